// Fixtures for the end-to-end tests (@playwright/test): the file's sandbox, and a page signed in
// to it. A file calls `withSandbox()` once and writes its tests with the `test` it returns:
//
//   const test = withSandbox({ args: ["--queue-ms", "400"] });
//   test("…", async ({ sandbox, signedIn: { page, problems } }) => { … });
//
// The sandbox is the file's own (started at its first use, stopped after the file's last test),
// so files do not see each other's runs and credits; one worker runs every file, so a
// worker-scoped fixture would be one sandbox for all of them.
import { test as base } from "@playwright/test";
import { startSandbox, openSignedIn } from "./harness.mjs";

export function withSandbox({ args = [] } = {}) {
  let started;
  const test = base.extend({
    /** The file's sandbox: its `url`, `api_key`, `session_token`, … (harness.mjs `startSandbox`). */
    sandbox: async ({}, use) => {
      started ??= await startSandbox({ args });
      await use(started);
    },
    /**
     * A fresh context and page of the config's browser, signed in with the sandbox's API key
     * and on `/workspace`, with the console errors, warnings, page errors and CSP violations it
     * has met so far (`problems`); closed after the test.
     */
    signedIn: async ({ browser, sandbox }, use) => {
      const opened = await openSignedIn(browser, sandbox, "/workspace", sandbox.api_key);
      await use(opened);
      await opened.context.close();
    },
  });
  test.afterAll(() => started?.stop());
  return test;
}
