// A smoke run in a second engine: Debian's firefox-esr, driven over WebDriver BiDi by
// puppeteer-core (Playwright's Firefox is a build of its own, which cannot be downloaded here).
// Sign in, an async run watched to its end, a bulk batch of 3 rows, no page or console error,
// and the header on one line at 1280 px. FIREFOX picks another binary; CONSOLE_DIST and
// SANDBOX_BIN work as in the other files (harness.mjs). The page is puppeteer's, not Playwright's:
// it is waited on with puppeteer's own waits, and its values checked with Playwright's `expect`.
import { join } from "node:path";
import puppeteer from "puppeteer-core";
import { expect, withSandbox } from "./fixtures.mjs";
import { screenshotDir } from "./harness.mjs";

/**
 * Launches Firefox with one page, whose page errors, console errors and warnings and
 * Content-Security-Policy violations are collected in `problems`: `{ browser, page, problems }`.
 */
async function launchFirefox() {
  const problems = [];
  // puppeteer-core makes a fresh profile in a temporary folder and removes it on close.
  const browser = await puppeteer.launch({
    browser: "firefox",
    executablePath: process.env.FIREFOX ?? "/usr/bin/firefox-esr",
    headless: true,
  });
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  page.setDefaultTimeout(15_000);
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console error: ${msg.text()}`);
    // Warnings the console's own code logs (Leptos's, through its JS glue), as in harness.mjs.
    if (msg.type() === "warn" && msg.location()?.url?.endsWith(".js")) problems.push(`console warning: ${msg.text()}`);
  });
  // Content-Security-Policy violations are errors too (Firefox also reports them as page errors).
  await page.evaluateOnNewDocument(() => {
    document.addEventListener("securitypolicyviolation", (e) =>
      console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI}`));
  });
  return { browser, page, problems };
}

let launched;
// Quick runs, yet slow enough that the run page shows the run before its end even on a
// loaded machine (the page opens within a second of the submission).
const test = withSandbox({ args: ["--queue-ms", "400", "--process-ms", "4000"] }).extend({
  /**
   * The file's Firefox and its one page (`launchFirefox`), launched at the first test that asks
   * for it and closed after the file's last: the tests go on in that page one after another,
   * the first signing in.
   */
  firefox: async ({}, use) => {
    await use(await (launched ??= launchFirefox()));
  },
});
test.afterAll(async () => (await launched?.catch(() => null))?.browser.close());

const shot = (page, name) => page.screenshot({ path: join(screenshotDir, `firefox-${name}.png`), fullPage: true });

/** Waits until the page's path is `path` and no page is waiting for its code (harness.mjs `settled`). */
async function at(page, path) {
  await page.waitForFunction((p) => location.pathname === p && document.querySelector("main")?.getAttribute("aria-busy") !== "true", {}, path);
}

/** Follows a link of the page, as a person would. */
async function follow(page, selector, path) {
  await page.locator(selector).click();
  await at(page, path);
}

/**
 * The header's flex rows that are taller than their tallest item: a wrapped row is. The header
 * itself, the main navigation and the header's end (credential, sign-out, theme) each count.
 */
const wrappedHeaderRows = (page) => page.evaluate(() => {
  const rows = [".app-header", ".app-header .app-nav", ".app-header .header-end"];
  return rows.flatMap((selector) => {
    const row = document.querySelector(selector);
    if (!row) return [];
    const style = getComputedStyle(row);
    const content = row.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
    const items = [...row.children].filter((c) => c.getClientRects().length > 0);
    const tallest = Math.max(...items.map((c) => c.getBoundingClientRect().height));
    return content > tallest + 1 ? [`${selector}: ${content.toFixed(1)} px high, its tallest item ${tallest.toFixed(1)} px`] : [];
  });
});

test("signs in with the API key; the header is one line at 1280 px", async ({ sandbox, firefox: { page, problems } }) => {
  await page.goto(`${sandbox.url}/`);
  await at(page, "/sign-in");
  await shot(page, "sign-in");
  await page.locator("#credential").fill(sandbox.api_key);
  await page.locator(".sign-in button[type=submit]").click();
  await at(page, "/workspace");
  const name = await page.waitForSelector('[data-field="name"]');
  expect(await name.evaluate((e) => e.textContent.trim())).toBe("Acme Research");
  await page.waitForSelector('.app-header [data-field="header-available"]');
  await shot(page, "workspace");
  expect(await wrappedHeaderRows(page)).toEqual([]);
  expect(problems).toEqual([]);
});

test("an async run from an action form is watched to its end", async ({ sandbox, firefox: { page, problems } }) => {
  await follow(page, '.app-nav a[href="/actions"]', "/actions");
  await follow(page, '[data-action="premium-search-people"] a[href="/actions/premium-search-people"]', "/actions/premium-search-people");
  await page.locator("#field-keywords").fill("firefox smoke");
  await page.locator("#field-max_results").fill("3");
  await page.locator('input[name="mode"][value="async"]').click();
  await shot(page, "action-form");
  await page.locator("::-p-text(Queue run)").click();
  await page.waitForFunction(() => /^\/runs\/[^/]+$/.test(location.pathname));
  const id = decodeURIComponent(new URL(page.url()).pathname.split("/").pop());
  // Seen before its end, then at its end, in the status the page shows.
  const running = await page.waitForSelector(".run-head [data-status]");
  expect(await running.evaluate((e) => e.textContent.trim())).toMatch(/^(queued|processing)$/);
  const done = await page.waitForSelector('.run-head [data-status="completed"]');
  expect(await done.evaluate((e) => e.textContent.trim())).toBe("completed");
  const run = await (await fetch(`${sandbox.url}/v1/runs/${id}`, { headers: { authorization: `Bearer ${sandbox.api_key}` } })).json();
  expect(run.status).toBe("completed");
  await page.waitForFunction((n) => document.querySelector('[data-field="output-table"]')?.getAttribute("aria-rowcount") === String(n + 1)
    && document.querySelector('[data-field="output-table"] tbody tr[aria-rowindex="2"]') !== null, {}, run.output.length);
  expect(await page.$eval('[data-field="records"]', (e) => e.textContent.trim())).toBe(String(run.output.length));
  await shot(page, "run-completed");
  expect(await wrappedHeaderRows(page)).toEqual([]);
  expect(problems).toEqual([]);
});

test("a bulk batch of 3 rows runs to completion", async ({ firefox: { page, problems } }) => {
  await follow(page, '.app-nav a[href="/bulk"]', "/bulk");
  await page.select("#bulk-action", "premium-search-people");
  const rows = ["keywords,max_results", "firefox row 1,2", "firefox row 2,2", "firefox row 3,2"];
  await page.locator("#bulk-text").fill(rows.join("\n"));
  await page.waitForFunction(() => /\b3 rows\b/.test(document.querySelector('[data-field="table-summary"]')?.textContent ?? ""));
  expect(await page.$eval('[data-field="rows-to-send"]', (e) => e.textContent.trim())).toBe("3");
  await shot(page, "bulk-prepare");
  await page.locator('[data-field="start-batch"]').click();
  await page.waitForSelector('[data-field="batch"][data-phase="done"]', { timeout: 30_000 });
  const counts = await page.$$eval("[data-count]", (els) =>
    Object.fromEntries(els.map((e) => [e.dataset.count, Number(e.querySelector("dd").textContent.replaceAll(",", ""))])));
  expect(counts.completed, JSON.stringify(counts)).toBe(3);
  const others = ["waiting", "submitting", "queued", "processing", "failed", "cancelled", "invalid"];
  expect(others.map((state) => counts[state]), JSON.stringify(counts)).toEqual(others.map(() => 0));
  expect(await page.$$eval('[data-field="batch-rows"] tbody tr[data-state="completed"]', (els) => els.length)).toBe(3);
  await shot(page, "bulk-done");
  expect(await wrappedHeaderRows(page)).toEqual([]);
  expect(problems).toEqual([]);
});
