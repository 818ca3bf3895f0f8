// The address bar follows every navigation (docs/decisions/router-history.md): after Back and
// Forward, after the entries that replace the one shown (a filter changed on /runs, sign-in's
// return), a link to a page changes the view and the address, pushes one history entry, and a
// reload opens the same page. Each test signs in with "keep me signed in in this tab", so a
// reload keeps the session and shows the page the address names.
import { expect, withSandbox } from "./fixtures.mjs";
import { screenshot, settled, signIn } from "./harness.mjs";

const test = withSandbox();

const HEADINGS = { "/workspace": "Workspace", "/actions": "Actions", "/runs": "Runs" };

/** Signs in on a fresh page, kept in the tab, and lands on `/workspace`. */
async function signedInKeptInTab(pages, sandbox, path = "/workspace") {
  const opened = await pages.open();
  await opened.page.goto(`${sandbox.url}${path}`);
  await opened.page.getByLabel("Keep me signed in in this tab").check();
  await signIn(opened.page, sandbox.api_key);
  return opened;
}

/** Follows the header's link to `path`, as a person clicks it. */
async function headerLink(page, path) {
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: HEADINGS[path], exact: true }).click();
  await settled(page);
}

/** The address bar and the view agree on `path`, and so does a reload. */
async function showsAndReloads(page, path) {
  await expect(page).toHaveURL(new RegExp(`${path.replace("?", "\\?")}$`));
  await expect(page.locator("main h1").first()).toHaveText(HEADINGS[new URL(path, "http://x").pathname]);
  await page.reload();
  await expect(page).toHaveURL(new RegExp(`${path.replace("?", "\\?")}$`));
  await expect(page.locator("main h1").first()).toHaveText(HEADINGS[new URL(path, "http://x").pathname]);
}

/**
 * From the page after `/workspace` in the history: Back to `/workspace`, then the header's Runs
 * (the address says `/runs`), Back again, and Forward to it.
 */
async function runsLinkAfterBack(page) {
  await back(page, "/workspace");
  await headerLink(page, "/runs");
  await expect(page).toHaveURL(/\/runs$/);
  await back(page, "/workspace");
  await page.goForward();
  await settled(page);
}

/** Back, as the browser's button, and what it shows. */
async function back(page, path) {
  await page.goBack();
  await settled(page);
  await expect(page).toHaveURL(new RegExp(`${path}$`));
  await expect(page.locator("main h1").first()).toHaveText(HEADINGS[path]);
}

test("workspace, runs, actions, Back, Forward, then the header's Runs: the address says /runs, and Back goes to /actions", async ({ sandbox, pages }) => {
  const { page, problems } = await signedInKeptInTab(pages, sandbox);
  await expect(page).toHaveURL(/\/workspace$/);
  await headerLink(page, "/runs");
  await headerLink(page, "/actions");
  await back(page, "/runs");
  await page.goForward();
  await settled(page);
  await expect(page).toHaveURL(/\/actions$/);
  await expect(page.locator("main h1").first()).toHaveText("Actions");

  await headerLink(page, "/runs");
  await screenshot(page, "navigation-after-forward");
  // One new entry: Back goes to the page the link left, then to the ones before.
  await back(page, "/actions");
  await back(page, "/runs");
  await back(page, "/workspace");
  await page.goForward();
  await page.goForward();
  await page.goForward();
  await settled(page);
  await showsAndReloads(page, "/runs");
  expect(problems).toEqual([]);
});

test("a link to the page shown adds no history entry, even after Back and Forward", async ({ sandbox, pages }) => {
  const { page, problems } = await signedInKeptInTab(pages, sandbox);
  await headerLink(page, "/runs");
  await headerLink(page, "/actions");
  await back(page, "/runs");
  await page.goForward();
  await settled(page);
  const entries = await page.evaluate(() => history.length);
  await headerLink(page, "/actions");
  await expect(page).toHaveURL(/\/actions$/);
  expect(await page.evaluate(() => history.length)).toBe(entries);
  await back(page, "/runs");
  expect(problems).toEqual([]);
});

test("a filter changed and cleared on /runs, Back, then the header's Runs: the address says /runs", async ({ sandbox, pages }) => {
  const { page, problems } = await signedInKeptInTab(pages, sandbox);
  await headerLink(page, "/runs");
  // Each change of the filter replaces the history entry: no entry per choice.
  await page.getByLabel("Status").selectOption("failed");
  await expect(page).toHaveURL(/\/runs\?status=failed$/);
  await page.getByLabel("Status").selectOption("");
  await expect(page).toHaveURL(/\/runs$/);
  await runsLinkAfterBack(page);
  // Then a filter, and a reload keeps it.
  await page.getByLabel("Status").selectOption("completed");
  await expect(page).toHaveURL(/\/runs\?status=completed$/);
  await page.reload();
  await expect(page).toHaveURL(/\/runs\?status=completed$/);
  await expect(page.getByLabel("Status")).toHaveValue("completed");
  await showsAndReloads(page, "/runs?status=completed");
  expect(problems).toEqual([]);
});

test("sign-in's return after a refused credential, Back, then the header's Runs: the address says /runs", async ({ sandbox, pages }) => {
  const { page, problems } = await signedInKeptInTab(pages, sandbox);
  // The next list of runs is refused as a revoked key would be: the session ends, sign-in
  // replaces the page's entry, and signing in again replaces it with the page.
  const refused = /\/v1\/runs$/;
  await page.route(refused, (route) => route.fulfill({
    status: 401,
    contentType: "application/json",
    body: JSON.stringify({ error: { code: "invalid_credential", message: "The API key was revoked.", request_id: "req_e2e_401" } }),
  }));
  await headerLink(page, "/runs");
  await expect(page).toHaveURL(/\/sign-in\?next=(%2F|\/)runs$/);
  await page.unroute(refused);
  await page.getByLabel("Keep me signed in in this tab").check();
  await signIn(page, sandbox.api_key);
  await expect(page).toHaveURL(/\/runs$/);
  await expect(page.locator("main h1").first()).toHaveText("Runs");
  await runsLinkAfterBack(page);
  await showsAndReloads(page, "/runs");
  // A refused credential is logged by the browser as a failed load.
  expect(problems.filter((p) => !p.includes("status of 401"))).toEqual([]);
});
