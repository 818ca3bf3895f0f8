# Sourced by scripts/demo.sh and scripts/dev.sh, which both start a sandbox and tell a person how
# to sign in to it.

# print_sign_in CONSOLE API_BASE_URL: prints the console's address and what to enter as the API
# base URL (in both, `{url}` stands for the sandbox's own address), then each workspace's
# credentials, from target/sandbox-credentials.json (the sandbox's start-up line).
print_sign_in() {
  python3 - "$1" "$2" <<'PY'
import json, sys
info = json.load(open("target/sandbox-credentials.json"))
console, api_base_url = (text.replace("{url}", info["url"]) for text in sys.argv[1:3])
print()
print("  Console:        " + console)
print("  API base URL:   " + api_base_url)
for ws in info["workspaces"]:
    print()
    print("  Workspace " + ws["name"] + " (" + ws["workspace_id"] + ")")
    print("    API key:        " + ws["api_key"])
    print("    Session token:  " + ws["session_token"])
    print("                    (account " + ws["account"] + "; needed for API key management)")
print()
PY
}
