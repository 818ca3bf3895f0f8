// When this browser's store fails, the person reads why and what to do (`model::store_error`),
// and nothing else is lost: a browser without IndexedDB, and a disk that is full.
import { readFileSync } from "node:fs";
import { expect, withSandbox } from "./fixtures.mjs";
import { api, go, screenshot, signInAt } from "./harness.mjs";

const test = withSandbox();

test("without IndexedDB, /storage, /runs and /log say that nothing is kept here, and what to do", async ({ sandbox, pages }) => {
  const { context, page, problems } = await pages.open();
  // As in a browser whose settings block site data: the page has no `indexedDB`.
  await context.addInitScript(() => Object.defineProperty(window, "indexedDB", { get: () => undefined, configurable: true }));
  await signInAt(page, sandbox, "/storage", sandbox.api_key);
  const noStorage = page.locator('[data-field="no-storage"]');
  await expect(noStorage).toContainText("its storage (IndexedDB) is unavailable");
  await expect(noStorage).toContainText("Allow site data for this site, or use a normal window.");
  await screenshot(page, "storage-unavailable");

  await go(page, "/runs");
  const noHistory = page.locator('[data-field="no-history"]');
  await expect(noHistory).toContainText("Only the API's latest 100 runs are listed: this browser's history of runs could not be read.");
  await expect(noHistory).toContainText("(IndexedDB) is unavailable");

  await go(page, "/log");
  await expect(page.locator('[data-field="no-storage"]')).toContainText("The log could not be read. This browser keeps nothing for the console here");
  expect(problems).toEqual([]);
});

test("a full disk: an import says the storage is full and what to free, and keeps none of the file", async ({ sandbox, pages }) => {
  for (let i = 1; i <= 2; i++) {
    const made = await api(sandbox, "POST", "/v1/actions/network-search-groups/run/async", {
      body: { input: { query: `full disk ${i}` }, max_results: 1 },
      key: `e2e-full-disk-${i}-${Date.now()}`,
    });
    expect([200, 202]).toContain(made.status);
  }
  const listed = (await api(sandbox, "GET", "/v1/runs")).json.runs.length;
  const { page, problems } = await pages.signedIn("/runs");
  await go(page, "/storage");
  const keptRuns = page.locator('[data-field="kept-runs"] .stat-value');
  await expect(keptRuns).toHaveText(String(listed));
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Export the history" }).click(),
  ]);
  const file = { name: "history.jsonl", mimeType: "application/jsonl", buffer: readFileSync(await download.path()) };
  await page.getByRole("button", { name: "Forget this workspace's history…" }).click();
  await page.getByRole("button", { name: "Forget the history" }).click();
  await expect(keptRuns).toHaveText("0");

  // From now on the disk is full: every write is refused as browsers refuse it.
  await page.evaluate(() => {
    IDBObjectStore.prototype.put = function () {
      throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
    };
  });
  await page.locator('[data-field="import-file"]').setInputFiles(file);
  const report = page.locator('[data-field="import-report"]');
  await expect(report).toContainText("history.jsonl could not be saved in this browser, so nothing was imported. This browser's storage is full. Free space");
  await screenshot(page, "storage-full");
  // All or nothing: none of the file's runs was kept.
  await expect(keptRuns).toHaveText("0");
  expect(problems).toEqual([]);
});
