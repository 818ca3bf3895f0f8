// Fixtures for the end-to-end tests (@playwright/test): the file's sandbox, what the file seeds in
// it once, and pages of the config's browser that are closed after each test, pass or fail. A
// file calls `withSandbox()` once and writes its tests with the `test` it returns:
//
//   const test = withSandbox({ args: ["--queue-ms", "400"] });
//   test("…", async ({ sandbox, signedIn: { page, problems } }) => { … });
//   test("…", async ({ sandbox, pages }) => {
//     const { page, problems } = await pages.signedIn("/keys", { credential: sandbox.session_token });
//     const other = await pages.open({ viewport: { width: 375, height: 800 } });
//   });
//
// The sandbox is the file's own (started at its first use, stopped after the file's last test),
// so files do not see each other's runs and credits; one worker runs every file, so a
// worker-scoped fixture would be one sandbox for all of them. For the same reason `beforeAll`
// cannot reach it (a hook only gets worker-scoped fixtures): what several tests need made first,
// such as runs to look at, goes in `seed`, run once for the file.
//
// The file also passes on the `expect` the tests assert with (`import { expect, withSandbox }
// from "./fixtures.mjs"`): Playwright's own, whose web-first assertions and `expect.poll` retry
// for up to 30 s (playwright.config.mjs).
import { test as base } from "@playwright/test";
import { startSandbox, openPage, signInAt } from "./harness.mjs";

export { expect } from "@playwright/test";

/**
 * The `test` of a file whose tests share one sandbox started with `args`. `seed(sandbox)`, if
 * given, runs once, at the first test that asks for `seeded`, which then holds what it returned.
 */
export function withSandbox({ args = [], seed } = {}) {
  let starting;
  let seeding;
  const fileSandbox = () => (starting ??= startSandbox({ args }));
  const test = base.extend({
    /** The file's sandbox: its `url`, `api_key`, `session_token`, … (harness.mjs `startSandbox`). */
    sandbox: async ({}, use) => {
      await use(await fileSandbox());
    },
    /** What `seed` returned for this file's sandbox. */
    seeded: async ({ sandbox }, use) => {
      if (!seed) throw new Error("this file's withSandbox() has no `seed`");
      seeding ??= seed(sandbox);
      await use(await seeding);
    },
    /**
     * Opens fresh contexts and pages, each with the console errors, warnings, page errors and
     * CSP violations it meets (`problems`):
     * - `open(options)`: a blank page (harness.mjs `openPage`: `viewport`, `colorScheme`);
     * - `signedIn(path, { credential, ...options })`: signed in through the form with
     *   `credential` (the sandbox's API key unless given), then at `path`, reached in the app.
     * Every context opened is closed after the test; `open` alone starts no sandbox.
     */
    pages: async ({ browser }, use) => {
      const contexts = [];
      const keep = (opened) => (contexts.push(opened.context), opened);
      await use({
        open: async (options) => keep(await openPage(browser, options)),
        signedIn: async (path, { credential, ...options } = {}) => {
          const sandbox = await fileSandbox();
          const opened = keep(await openPage(browser, options));
          await signInAt(opened.page, sandbox, path, credential ?? sandbox.api_key);
          return opened;
        },
      });
      // Every one, even when another fails to close.
      await Promise.allSettled(contexts.map((context) => context.close()));
    },
    /** A page signed in with the API key, on `/workspace`: `{ context, page, problems }`. */
    signedIn: async ({ pages }, use) => {
      await use(await pages.signedIn("/workspace"));
    },
  });
  test.afterAll(async () => (await starting?.catch(() => null))?.stop());
  return test;
}
