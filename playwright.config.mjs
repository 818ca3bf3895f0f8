// The end-to-end tests' runner (`npx playwright test`, from scripts/test.sh and
// scripts/test-e2e-dev.sh): Debian's headless Chromium (a browser download fails here), one
// test file at a time, each file with a sandbox of its own (`withSandbox`, tests/e2e/fixtures.mjs),
// and a trace of every failed test in target/playwright/ (`npx playwright show-trace <trace.zip>`).
import { defineConfig } from "@playwright/test";

export default defineConfig({
  testDir: "tests/e2e",
  testMatch: /.*\.test\.mjs$/,
  // One browser, one file at a time: the tests measure pacing and timing against a sandbox on
  // the same two cores.
  workers: 1,
  fullyParallel: false,
  forbidOnly: true,
  retries: 0,
  // A safety net, not an assertion: the longest test (a 200-row batch) takes about 25 s.
  timeout: 120_000,
  // Web-first assertions and `expect.poll` retry as long as an action waits (below), rather than
  // the runner's 5 s: on two shared cores, what the sandbox's timers bring on screen can take
  // longer than that.
  expect: { timeout: 30_000 },
  reporter: [["list"]],
  outputDir: "target/playwright",
  use: {
    trace: "retain-on-failure",
    // As playwright-core's own defaults, which the tests were written against: a wait without a
    // timeout of its own gives up after 30 s (the runner's default is none, up to the test's).
    actionTimeout: 30_000,
    navigationTimeout: 30_000,
    launchOptions: {
      executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
      // Without the background-networking switches, Chromium's connections are refused by this
      // machine's closed network.
      //
      // Pages are rastered and composited on the GPU, as on a laptop with one; here the GPU is
      // SwiftShader's, on the CPU. Not `--disable-gpu`: with it, headless Chromium 156 rasters
      // in the renderer's own worker pool, which now and then loses its raster tasks for good
      // (every worker idle, the tiles never rastered, the pending tree never activated, so no
      // frame, no requestAnimationFrame, no screenshot, until the tab closes; traced in
      // docs/testing.md). A long scroll through the explorer's table met it one pass in four
      // with the CPU shared; on SwiftShader, in none of 15.
      args: [
        "--no-sandbox",
        "--use-angle=swiftshader",
        "--enable-unsafe-swiftshader",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
});
