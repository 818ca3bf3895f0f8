// The release build's pages chunk (src/pages/lazy.rs): the first screen does not need it, a page
// in it shows a progress bar while it loads (the old page stays up), and when it cannot be
// fetched, the page says so and loads it again on request, with nothing else lost.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { expect, withSandbox } from "./fixtures.mjs";
import { screenshot, signIn, signInFromStart, settled, seriousViolations } from "./harness.mjs";

const dist = process.env.CONSOLE_DIST ?? join(new URL("../..", import.meta.url).pathname, "dist");
const chunk = readdirSync(dist).find((name) => /^console-pages-[0-9a-f]+\.wasm$/.test(name));

const test = withSandbox();

test.beforeAll(() => {
  // These tests are the release build's (scripts/build-console.sh, which `make test` runs
  // first): without its pages chunk they fail rather than pass by skipping (and no sandbox is
  // started for them).
  expect(chunk, `no pages chunk (console-pages-*.wasm) in ${dist}: not a split release build`).toBeTruthy();
});

/** Holds every request for the chunk until `release()`; `asked` counts them. */
async function holdBack(page) {
  let release;
  const released = new Promise((resolve) => { release = resolve; });
  const held = { asked: 0, release };
  await page.route(`**/${chunk}`, async (route) => {
    held.asked++;
    await released;
    await route.continue();
  });
  return held;
}

/** Clicks a link of the header's navigation, as a person would. */
const navigate = (page, name) => page.getByRole("navigation").getByRole("link", { name, exact: true }).click();

test("a page whose code did not arrive says so, and Try again loads it", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.open();
  // The network drops every request for the chunk: the background preload and the visit fail.
  let blocked = true;
  let attempts = 0;
  await page.route(`**/${chunk}`, (route) => {
    attempts++;
    return blocked ? route.abort("internetdisconnected") : route.continue();
  });
  await signInFromStart(page, sandbox);
  await expect(page).toHaveURL(/\/workspace$/);
  await expect(page.locator('[data-field="credits_balance"]')).toBeVisible();

  await navigate(page, "Runs");
  await expect(page).toHaveURL(/\/runs$/);
  const panel = page.getByRole("alert").filter({ hasText: "This page could not be loaded" });
  await expect(panel).toContainText("did not arrive");
  expect(attempts, "the chunk was asked for").toBeGreaterThanOrEqual(1);
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, "chunk-failed");

  // Still down: a second try fails the same way, and says it tried again.
  await page.getByRole("button", { name: "Try again" }).click();
  await expect(page.getByText("Tried 2 times.")).toBeVisible();

  // The network is back: the same place shows the page, without a reload.
  blocked = false;
  await page.getByRole("button", { name: "Try again" }).click();
  await expect(page.getByRole("heading", { name: "Runs", level: 1 })).toBeVisible();
  await expect(panel).toHaveCount(0);
  // The other pages of the chunk need nothing more.
  await navigate(page, "Actions");
  await expect(page.getByRole("heading", { name: "Actions", level: 1 })).toBeVisible();

  // What a dropped chunk logs: the browser's failed load and the loader's error. Nothing else.
  const unexpected = problems.filter((p) => !/Failed to fetch|ERR_INTERNET_DISCONNECTED|Failed to load resource/.test(p));
  expect(unexpected).toEqual([]);
});

test("while a page's code loads, the old page stays and a labelled progress bar shows", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.open();
  // A slow link for the chunk only, and no background preload before the visit.
  const held = await holdBack(page);
  await signInFromStart(page, sandbox);
  await expect(page).toHaveURL(/\/workspace$/);
  await expect(page.locator('[data-field="credits_balance"]')).toBeVisible();

  await navigate(page, "Bulk");
  const progress = page.getByRole("progressbar", { name: "Loading the page" });
  await expect(progress).toBeVisible();
  await expect(page.locator("main")).toHaveAttribute("aria-busy", "true");
  // The workspace stays readable meanwhile; the bar appears once the wait passes 150 ms.
  await expect(page.locator('[data-field="credits_balance"]')).toBeVisible();
  await expect(page.locator(".route-progress")).toHaveCSS("opacity", "1");
  await screenshot(page, "chunk-loading");

  held.release();
  await settled(page);
  await expect(page.getByRole("heading", { name: "Bulk runs", level: 1 })).toBeVisible();
  await expect(page.locator("main")).toHaveAttribute("aria-busy", "false");
  await expect(progress).toHaveCount(0);
  expect(problems).toEqual([]);
});

test("a deep link opened signed out shows sign-in at once, fetching the page's code meanwhile", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.open();
  // The chunk is held back until the sign-in form is on screen.
  const held = await holdBack(page);
  await page.goto(`${sandbox.url}/runs?status=failed`);
  await expect(page).toHaveURL(/\/sign-in\?next=/);
  await expect(page.getByLabel("API key or session token")).toBeVisible();
  // The page asked for is in the chunk, so its code is already on its way, without delaying this.
  expect(held.asked, "the chunk is fetched while the person signs in").toBe(1);
  held.release();
  await signIn(page, sandbox.api_key);
  await expect(page).toHaveURL(/\/runs\?status=failed$/);
  await expect(page.getByRole("heading", { name: "Runs", level: 1 })).toBeVisible();
  expect(held.asked, "and only once").toBe(1);
  expect(problems).toEqual([]);
});
