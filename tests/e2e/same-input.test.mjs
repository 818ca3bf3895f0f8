// The same question is never paid twice (issue 47): a CSV of 1,000 profile URLs in which 300
// rows repeat earlier ones, written the ways merged spreadsheets write them (with or without
// `www.`, a trailing slash, the host's case, a query string, spaces around), becomes 700 runs,
// across a reload mid-batch; every repeated row shows and exports its first row's results; the
// merged export can hold each record once. Headless Chromium against the sandbox.
import { readFile } from "node:fs/promises";
import { expect, withSandbox } from "./fixtures.mjs";
import { api, besides, csvLine, go, parseCsv, screenshot, signIn } from "./harness.mjs";

const test = withSandbox({ args: ["--queue-ms", "60", "--process-ms", "120", "--rate-burst", "40", "--rate-per-sec", "60", "--credits", "100000"] });

/** How a merged spreadsheet writes the profile URL of `handle` again: five kinds, in turn. */
const rewritten = (handle, kind) => [
  `https://www.network.com/in/${handle}`,
  `https://network.com/in/${handle}/`,
  `https://NETWORK.com/in/${handle}`,
  `https://network.com/in/${handle}?utm_source=share`,
  `  https://network.com/in/${handle}  `,
][kind % 5];

/**
 * 1,000 rows of profile URLs of handles `{prefix}-1` to `{prefix}-700` (lines 2 to 1001): every
 * row whose number ends in 3, 6 or 9 repeats an earlier handle, rewritten.
 */
function profileFile(prefix) {
  const lines = [csvLine(["identifier"])];
  const firstLineOf = new Map();
  const repeatOf = new Map();
  const textOf = new Map();
  let distinct = 0;
  for (let i = 1; i <= 1000; i++) {
    const line = i + 1;
    if ([3, 6, 9].includes(i % 10)) {
      const handle = `${prefix}-${1 + ((i * 37) % distinct)}`;
      repeatOf.set(line, firstLineOf.get(handle));
      textOf.set(line, rewritten(handle, i));
      lines.push(csvLine([rewritten(handle, i)]));
    } else {
      distinct += 1;
      const handle = `${prefix}-${distinct}`;
      firstLineOf.set(handle, line);
      lines.push(csvLine([`https://network.com/in/${handle}`]));
    }
  }
  return { text: lines.join("\n") + "\n", lines, firstLineOf, repeatOf, textOf, distinct };
}

/** The idempotency keys of the submissions `page` sends from now on. */
function keysSent(page) {
  const keys = new Set();
  page.on("request", (r) => { if (r.method() === "POST" && /\/run\/async$/.test(new URL(r.url()).pathname)) keys.add(r.headers()["idempotency-key"]); });
  return keys;
}

test("1,000 profile URLs with 300 repeats: 700 runs and 700 charges, across a reload; repeats show their first row's results", async ({ sandbox, pages }) => {
  const { text, repeatOf, textOf, distinct } = profileFile("person");
  expect([distinct, repeatOf.size]).toEqual([700, 300]);
  const before = (await api(sandbox, "GET", "/v1/workspace")).json;
  const { page, problems } = await pages.signedIn("/bulk");
  const keys = keysSent(page);
  await page.getByLabel("Action").selectOption("network-extract-people");
  await page.locator("#bulk-text").fill(text);
  await expect(page.locator('[data-field="table-summary"]')).toContainText("1,000 rows");

  // Before anything is sent: 300 repeats found, 700 rows to send, the worst case of 700.
  await expect(page.locator('[data-field="repeats-sentence"]')).toHaveText(/^300 rows repeat earlier rows .* up to 6,000 credits saved\.$/);
  await expect(page.locator('[data-field="rows-to-send"]')).toHaveText("700");
  await expect(page.locator('[data-field="worst-case"]')).toHaveText("14,000");
  await expect(page.locator('[data-field="start-batch"]')).toHaveText("Start 700 runs");
  await page.locator('[data-field="repeated-rows"] summary').click();
  await expect(page.locator('[data-field="repeated-rows"] li[data-line="4"]')).toHaveText(`Line 4 asks what line ${repeatOf.get(4)} asks: ${textOf.get(4)}`);
  await screenshot(page, "bulk-repeats");

  await page.locator('[data-field="start-batch"]').click();
  await expect(page.locator('[data-field="keeping"]').getByText("Kept in this browser")).toBeVisible();
  const completed = () => page.locator('[data-count="completed"] dd').textContent().then((t) => Number(t.replaceAll(",", "")));
  await expect.poll(completed, { message: "rows completed", intervals: [100] }).toBeGreaterThanOrEqual(100);
  await page.reload();
  await expect(page).toHaveURL(/\/sign-in/);
  await signIn(page, sandbox.api_key);
  await page.locator('[data-field="saved-batches"] li[data-state="unfinished"] [data-field="resume-saved"]').click();
  await expect(page.locator('[data-field="batch"][data-phase="done"]')).toBeVisible({ timeout: 120_000 });
  await expect(page.locator('[data-count="completed"] dd')).toHaveText("700");
  await expect(page.locator('[data-count="repeat"] dd')).toHaveText("300");
  await expect(page.locator('[data-field="batch-finished"]')).toContainText("700 of 700 rows finished");

  // The API made 700 runs and charged 700 enrichments, once each, reload or not.
  expect(keys.size, "keys sent").toBe(700);
  const after = (await api(sandbox, "GET", "/v1/workspace")).json;
  expect(before.credits_balance - after.credits_balance, "credits spent").toBe(700 * 20);
  expect(after.usage_today.profiles - before.usage_today.profiles, "profiles enriched").toBe(700);
  expect(after.credits_reserved).toBe(0);

  // A repeated row in the table: its first row's run, marked as such, no credits of its own.
  const repeated = page.locator('[data-field="batch-rows"] tbody tr[data-line="4"]');
  await expect(repeated).toHaveAttribute("data-same-as", String(repeatOf.get(4)));
  await expect(repeated).toContainText(`same as line ${repeatOf.get(4)}`);
  const firstRow = page.locator(`[data-field="batch-rows"] tbody tr[data-line="${repeatOf.get(4)}"]`);
  await expect(repeated.locator("a")).toHaveAttribute("href", await firstRow.locator("a").getAttribute("href"));
  await screenshot(page, "bulk-repeats-done");

  // The merged CSV: every repeated row with its first row's run and record, marked.
  const [download] = await Promise.all([page.waitForEvent("download"), page.locator('[data-field="export-csv"]').click()]);
  const csv = parseCsv(await readFile(await download.path(), "utf8"));
  const header = csv[0];
  const at = (name) => header.indexOf(name);
  const byLine = new Map(csv.slice(1).map((r) => [Number(r[0]), r]));
  expect(byLine.size).toBe(1000);
  for (const [line, first] of repeatOf) {
    const row = byLine.get(line);
    const firstRowCells = byLine.get(first);
    expect(row[at("same_as_line")], `line ${line}`).toBe(String(first));
    expect(row[at("run_id")], `line ${line}`).toBe(firstRowCells[at("run_id")]);
    expect(row[at("status")], `line ${line}`).toBe("completed");
    expect(row[at("network_profile_identifier")], `line ${line}`).toBe(firstRowCells[at("network_profile_identifier")]);
  }
  expect(new Set(csv.slice(1).map((r) => r[at("run_id")])).size).toBe(700);

  // Each record once, by the contract's ids: the 300 repeated records are left out.
  await page.locator('[data-field="export-records"]').selectOption("contract-ids");
  const [once] = await Promise.all([page.waitForEvent("download"), page.locator('[data-field="export-jsonl"]').click()]);
  const items = (await readFile(await once.path(), "utf8")).trim().split("\n").map((l) => JSON.parse(l));
  expect(items).toHaveLength(1000);
  const ids = items.flatMap((item) => item.records.map((record) => record.network_profile_identifier));
  expect(ids).toHaveLength(700);
  expect(new Set(ids).size).toBe(700);
  await expect(page.locator('[data-field="export-done"]')).toHaveText("Exported: 300 duplicate records left out.");
  expect(besides(problems, 401)).toEqual([]);
});

/** A form field by its label, with or without "(optional)". */
const field = (page, label) => page.getByLabel(new RegExp(`^${label}( \\(optional\\))?$`));

test("the form offers a kept run of the same input, not one that asked for fewer records, nor one older than the window", async ({ pages }) => {
  const { page, problems } = await pages.signedIn("/actions/premium-search-people");
  const offer = page.locator('[data-field="kept-result"]');
  await field(page, "Keywords").fill("reuse rust berlin");
  await field(page, "Max results").fill("5");
  await expect(offer).toHaveCount(0);
  await page.getByRole("button", { name: "Run live" }).click();
  await expect(page).toHaveURL(/\/runs\/[^/]+$/);
  const runId = new URL(page.url()).pathname.split("/").at(-1);
  await expect(page.locator('.run-head [data-status="completed"]')).toBeVisible();

  // The same input, spaced otherwise: offered, with the run to open. (Links all the way: going
  // back in history, then following a link to the page left, does not navigate with
  // leptos_router 0.8.17; docs/testing.md.)
  const openForm = async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Actions" }).click();
    await page.locator('a.action-id[href="/actions/premium-search-people"]').click();
    await expect(page).toHaveURL(/\/actions\/premium-search-people$/);
  };
  await openForm();
  await field(page, "Keywords").fill("  reuse   rust berlin ");
  await expect(offer).toHaveText(/^The same input completed (just now|\d+ s ago): \d+ records?\. Open it to see them without paying again\./);
  await expect(offer.locator('[data-field="open-kept-run"]')).toHaveAttribute("href", `/runs/${runId}`);
  await screenshot(page, "form-kept-result");
  // More records than the kept run asked for: not offered; fewer: offered.
  await field(page, "Max results").fill("10");
  await expect(offer).toHaveCount(0);
  await field(page, "Max results").fill("3");
  await expect(offer).toHaveCount(1);
  // Other words: not offered.
  await field(page, "Keywords").fill("reuse berlin rust");
  await expect(offer).toHaveCount(0);
  await field(page, "Keywords").fill("reuse rust berlin");
  await expect(offer).toHaveCount(1);

  // "Open it" shows the kept run; "Run again anyway" makes a new one.
  await offer.locator('[data-field="open-kept-run"]').click();
  await expect(page).toHaveURL(new RegExp(`/runs/${runId}$`));
  await expect(page.locator('.run-head [data-status="completed"]')).toBeVisible();
  await openForm();
  await offer.locator('[data-field="run-again-anyway"]').click();
  await expect(page).not.toHaveURL(/\/actions\//);
  expect(new URL(page.url()).pathname).toMatch(/^\/runs\/[^/]+$/);
  expect(new URL(page.url()).pathname).not.toBe(`/runs/${runId}`);

  // 25 hours later: past the default window of 24 hours; a week's window offers it again.
  await page.clock.setFixedTime(Date.now() + 25 * 3600 * 1000);
  await go(page, "/actions");
  await go(page, "/actions/premium-search-people");
  await expect(page.locator('[data-field="reuse-window"]')).toHaveValue("24h");
  await expect(field(page, "Keywords")).toHaveValue("reuse rust berlin");
  await expect(offer).toHaveCount(0);
  await page.locator('[data-field="reuse-window"]').selectOption("7d");
  await expect(offer).toHaveText(/^The same input completed 1 d ago: /);
  await page.locator('[data-field="reuse-window"]').selectOption("off");
  await expect(offer).toHaveCount(0);

  expect(problems).toEqual([]);
});

test("a batch reuses the results of runs kept here on request: after 100 of its inputs ran, the same 1,000 rows make 600 runs", async ({ sandbox, pages }) => {
  test.setTimeout(180_000);
  const file = profileFile("reuser");
  const { page, problems } = await pages.signedIn("/bulk");
  await page.getByLabel("Action").selectOption("network-extract-people");
  // A first batch: the first 100 handles.
  const first100 = [csvLine(["identifier"])];
  for (let n = 1; n <= 100; n++) first100.push(csvLine([`https://network.com/in/reuser-${n}`]));
  await page.locator("#bulk-text").fill(first100.join("\n") + "\n");
  await expect(page.locator('[data-field="rows-to-send"]')).toHaveText("100");
  await page.locator('[data-field="start-batch"]').click();
  await expect(page.locator('[data-field="batch"][data-phase="done"]')).toBeVisible({ timeout: 60_000 });
  await expect(page.locator('[data-count="completed"] dd')).toHaveText("100");
  const firstRunOf = new Map();
  for (const row of await page.locator('[data-field="batch-rows"] tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.dataset.line, tr.querySelector("a")?.getAttribute("href")]))) firstRunOf.set(Number(row[0]), row[1]);
  await page.locator('[data-field="clear-batch"]').click();
  await page.getByLabel("Action").selectOption("network-extract-people");

  // The 1,000 rows: 100 of their inputs completed here minutes ago. Nothing is reused unless asked.
  const before = (await api(sandbox, "GET", "/v1/workspace")).json;
  const keys = keysSent(page);
  await page.locator("#bulk-text").fill(file.text);
  await expect(page.locator('[data-field="reuse-answered"]')).toHaveText("100 rows ask what completed runs kept in this browser asked.");
  await expect(page.locator('[data-field="bulk-reuse"]')).toHaveValue("off");
  await expect(page.locator('[data-field="rows-to-send"]')).toHaveText("700");
  await page.locator('[data-field="bulk-reuse"]').selectOption("24h");
  await expect(page.locator('[data-field="reuse-sentence"]')).toHaveText(/^100 rows reuse those results instead of being sent: up to 2,000 credits saved\./);
  await expect(page.locator('[data-field="rows-to-send"]')).toHaveText("600");
  await expect(page.locator('[data-field="worst-case"]')).toHaveText("12,000");
  await screenshot(page, "bulk-reuse");
  await page.locator('[data-field="start-batch"]').click();
  await expect(page.locator('[data-field="batch"][data-phase="done"]')).toBeVisible({ timeout: 90_000 });
  await expect(page.locator('[data-count="completed"] dd')).toHaveText("700");
  await expect(page.locator('[data-count="repeat"] dd')).toHaveText("300");

  // 600 runs made and charged; the 100 reused rows show the first batch's runs, charging nothing.
  expect(keys.size, "keys sent").toBe(600);
  const after = (await api(sandbox, "GET", "/v1/workspace")).json;
  expect(before.credits_balance - after.credits_balance, "credits spent").toBe(600 * 20);
  expect(after.usage_today.profiles - before.usage_today.profiles, "profiles enriched").toBe(600);
  const reusedRow = page.locator(`[data-field="batch-rows"] tbody tr[data-line="${file.firstLineOf.get("reuser-1")}"]`);
  await expect(reusedRow.locator('[data-field="reused"]')).toHaveText("reused, not sent");
  await expect(reusedRow.locator("a")).toHaveAttribute("href", firstRunOf.get(2));
  await screenshot(page, "bulk-reuse-done");
  const [download] = await Promise.all([page.waitForEvent("download"), page.locator('[data-field="export-jsonl"]').click()]);
  const items = (await readFile(await download.path(), "utf8")).trim().split("\n").map((l) => JSON.parse(l));
  expect(items.filter((item) => item.reused)).toHaveLength(100);
  expect(items.filter((item) => item.reused && item.records.length === 1 && item.status === "completed")).toHaveLength(100);
  expect(besides(problems)).toEqual([]);
});
