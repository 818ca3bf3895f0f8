# The two commands of the README. Both install what they need first (scripts/setup.sh).
.PHONY: demo test setup build

demo:
	@bash scripts/demo.sh

test:
	@bash scripts/test.sh

setup:
	@bash scripts/setup.sh

build: setup
	@bash scripts/build-console.sh
