// The credit ledger on /credits (issue 47): every balance the console reads is kept, and what
// no run seen by this browser explains shows as "spent by runs this browser did not see". Runs
// made with another API key of the workspace, never listed here, show as exactly their cost;
// a 200-run session of the console's own leaves nothing unexplained. Headless Chromium, each
// test against a sandbox of its own: quick runs and a rate limit that lets a script make 100 runs
// at once; then a rate limit that makes a 200-row batch last long enough for the console to read
// the balance while its runs are in progress (the batch refreshes it every 10 s).
import { readFile } from "node:fs/promises";
import { expect, withSandbox } from "./fixtures.mjs";
import { api, go, queueRun, screenshot, seriousViolations, watchRunToCompletion } from "./harness.mjs";

const test = withSandbox({ args: ["--rate-burst", "500", "--rate-per-sec", "50", "--queue-ms", "50", "--process-ms", "100"] });
const paced = withSandbox({ args: ["--rate-burst", "20", "--rate-per-sec", "10", "--queue-ms", "50", "--process-ms", "400"] });

const isFinal = (status) => ["completed", "failed", "cancelled"].includes(status);

/** A number as the console writes it (`1,234`). */
const credits = (n) => n.toLocaleString("en-US");

/** The ledger's totals as the page shows them, numbers. */
async function ledgerTotals(page) {
  const number = async (field) => Number((await page.locator(`[data-field="${field}"]`).textContent()).replaceAll(",", ""));
  return {
    spent: await number("ledger-spent"),
    madeHere: await number("ledger-made-here"),
    listed: await number("ledger-listed"),
    unexplained: await number("ledger-unexplained"),
    added: await number("ledger-added"),
  };
}

/**
 * Has the console read the workspace as the API has it now, then opens /credits, whose ledger
 * ends with that reading. The workspace page reads the workspace on arrival unless it was read
 * in the last 2 s: it is opened again until it shows the API's balance.
 */
async function readBalanceThenOpenCredits(page, sandbox) {
  const balance = (await api(sandbox, "GET", "/v1/workspace")).json.credits_balance;
  await expect.poll(async () => {
    await go(page, "/actions");
    await go(page, "/workspace");
    return page.locator('[data-field="credits_balance"] .stat-value').textContent();
  }, { message: "the balance the workspace page shows", intervals: [1_000] }).toBe(credits(balance));
  await go(page, "/credits");
  await expect(page.locator('[data-field="ledger-summary"]')).toBeVisible();
  return balance;
}

/** Waits until the API lists no run that is not final. */
async function untilAllFinal(sandbox) {
  await expect.poll(async () => (await api(sandbox, "GET", "/v1/runs")).json.runs.filter((r) => !isFinal(r.status)).length, {
    message: "the runs listed by the API that are not final yet",
    intervals: [200],
  }).toBe(0);
}

test("runs made with another API key and never listed here show as spent by runs this browser did not see, exactly their cost", async ({ sandbox, pages }) => {
  test.setTimeout(120_000);
  const opening = (await api(sandbox, "GET", "/v1/workspace")).json.credits_balance;
  const { page, problems } = await pages.signedIn("/credits");
  await expect(page.getByRole("heading", { name: "Where the credits went" })).toBeVisible();

  // A run of the console's own: seen here, it explains what it used.
  await go(page, "/actions/premium-search-people");
  await page.getByLabel(/^Keywords/).fill("ledger seen here");
  await page.getByLabel(/^Max results/).fill("3");
  // The file's sandbox ends a run in 150 ms: the page may first read it completed.
  const mine = await watchRunToCompletion(page, sandbox, await queueRun(page), { seenRunning: false });
  expect(mine.credits_used, "the console's run costs something").toBeGreaterThan(0);

  // A script with another key of the same workspace, while the console is open.
  const other = (await api(sandbox, "POST", "/v1/keys", { bearer: sandbox.session_token, body: { name: "ledger script" } })).json;
  expect(other.api_key).toBeTruthy();
  // This browser must not list the script's runs before they leave the API's latest 100, as in a
  // workspace busier than one read of the runs list a minute: its reads of the list wait until then.
  const held = [];
  const isList = (url) => url.pathname === "/v1/runs";
  await page.route(isList, (route) => { held.push(route); });
  const outside = [];
  for (const [action, input, maxResults] of [
    ["network-extract-people", { identifier: "ledger-outside-1" }, 1],
    ["premium-search-people", { keywords: "ledger outside 2" }, 4],
    ["network-search-companies", { keywords: "ledger outside 3" }, 2],
  ]) {
    const made = await api(sandbox, "POST", `/v1/actions/${action}/run/live`, {
      body: { input, max_results: maxResults },
      key: `e2e-ledger-outside-${outside.length}-${Date.now()}`,
      bearer: other.api_key,
    });
    expect(made.status, JSON.stringify(made.json)).toBe(200);
    outside.push(made.json);
  }
  const outsideCost = outside.reduce((sum, run) => sum + run.credits_used, 0);
  expect(outsideCost, "the script's runs cost something").toBeGreaterThan(0);
  // 100 more runs of the script, which fail and cost nothing, push its first three out of the list.
  for (let i = 0; i < 100; i++) {
    const made = await api(sandbox, "POST", "/v1/actions/network-search-groups/run/async", {
      body: { input: { query: `ledger filler ${i} sandbox:fail=filler` }, max_results: 1 },
      key: `e2e-ledger-filler-${i}-${Date.now()}`,
      bearer: other.api_key,
    });
    expect([200, 202]).toContain(made.status);
  }
  await untilAllFinal(sandbox);
  const listed = (await api(sandbox, "GET", "/v1/runs")).json.runs.map((r) => r.id);
  expect(listed.filter((id) => outside.some((run) => run.id === id)), "the API no longer lists the script's three runs").toEqual([]);
  await page.unroute(isList);
  await Promise.all(held.map((route) => route.continue()));

  // The console reads the workspace again: the ledger has what the balance lost since sign-in,
  // the console's run explaining its share and the script's three runs exactly the rest.
  const now = await readBalanceThenOpenCredits(page, sandbox);
  expect(opening - now).toBe(mine.credits_used + outsideCost);
  await expect(page.locator('[data-field="ledger-unexplained"]')).toHaveText(credits(outsideCost));
  expect(await ledgerTotals(page)).toEqual({
    spent: opening - now,
    madeHere: mine.credits_used,
    listed: 0,
    unexplained: outsideCost,
    added: 0,
  });
  await expect(page.locator('[data-field="ledger-unseen-meaning"]')).toContainText("another API key");
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, "credits-ledger");

  // The same table as a CSV file: one row per day, the totals the page's.
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export as CSV" }).click()]);
  expect(download.suggestedFilename()).toMatch(/^sandbox-credits-ledger-.+-\d{4}-\d{2}-\d{2}\.csv$/);
  const [header, ...rows] = (await readFile(await download.path(), "utf8")).replace(/^\uFEFF/, "").trimEnd().split("\r\n").map((line) => line.split(","));
  expect(header).toEqual(["Day", "Since", "Spent", "By runs this console made", "By other runs it listed", "By runs this browser did not see", "Credits added", "Runs seen charged", "Readings"]);
  const column = (name) => rows.reduce((sum, row) => sum + Number(row[header.indexOf(name)]), 0);
  expect(column("Spent")).toBe(opening - now);
  expect(column("By runs this console made")).toBe(mine.credits_used);
  expect(column("By other runs it listed")).toBe(0);
  expect(column("By runs this browser did not see")).toBe(outsideCost);
  expect(await page.locator('[data-field="ledger-table"] tbody tr').count()).toBe(rows.length);
  expect(problems).toEqual([]);
});

test("runs of another API key that the console listed stand apart from its own, exactly their cost", async ({ sandbox, pages }) => {
  test.setTimeout(120_000);
  const opening = (await api(sandbox, "GET", "/v1/workspace")).json.credits_balance;
  const { page, problems } = await pages.signedIn("/credits");
  await expect(page.getByRole("heading", { name: "Where the credits went" })).toBeVisible();
  await go(page, "/actions/premium-search-people");
  await page.getByLabel(/^Keywords/).fill("ledger made here");
  await page.getByLabel(/^Max results/).fill("2");
  const mine = await watchRunToCompletion(page, sandbox, await queueRun(page), { seenRunning: false });
  // A script with another key, whose runs the console's list then shows.
  const other = (await api(sandbox, "POST", "/v1/keys", { bearer: sandbox.session_token, body: { name: "listed script" } })).json;
  const outside = [];
  for (const keywords of ["ledger listed 1", "ledger listed 2"]) {
    const made = await api(sandbox, "POST", "/v1/actions/premium-search-people/run/live", {
      body: { input: { keywords }, max_results: 3 },
      key: `e2e-ledger-listed-${outside.length}-${Date.now()}`,
      bearer: other.api_key,
    });
    expect(made.status, JSON.stringify(made.json)).toBe(200);
    outside.push(made.json);
  }
  const outsideCost = outside.reduce((sum, run) => sum + run.credits_used, 0);
  expect(outsideCost).toBeGreaterThan(0);
  await untilAllFinal(sandbox);
  // /credits reads the API's list into the history before it draws the ledger: the script's
  // runs are listed, so seen, but not made here.
  const now = await readBalanceThenOpenCredits(page, sandbox);
  expect(opening - now).toBe(mine.credits_used + outsideCost);
  await expect(page.locator('[data-field="ledger-listed"]')).toHaveText(credits(outsideCost));
  expect(await ledgerTotals(page)).toEqual({
    spent: opening - now,
    madeHere: mine.credits_used,
    listed: outsideCost,
    unexplained: 0,
    added: 0,
  });
  await screenshot(page, "credits-ledger-listed");
  expect(problems).toEqual([]);
});

/** The balances this browser keeps for `workspace`, as its IndexedDB holds them. */
async function keptReadings(page, workspace) {
  return page.evaluate((key) => new Promise((resolve, reject) => {
    const open = indexedDB.open("console");
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const read = open.result.transaction("meta").objectStore("meta").get(key);
      read.onsuccess = () => { resolve(JSON.parse(read.result ?? '{"readings":[]}').readings); open.result.close(); };
      read.onerror = () => reject(read.error);
    };
  }), `${workspace}/balance-readings`);
}

paced("a 200-run session of the console's own leaves nothing unexplained", async ({ sandbox, pages }) => {
  test.setTimeout(120_000);
  await untilAllFinal(sandbox);
  const opening = (await api(sandbox, "GET", "/v1/workspace")).json.credits_balance;
  const { page, problems } = await pages.signedIn("/bulk");
  const lines = ["keywords,max_results", ...Array.from({ length: 200 }, (_, i) => `ledger session ${i + 1},${(i % 3) + 1}`)];
  await page.getByLabel("Action").selectOption("premium-search-people");
  await page.locator("#bulk-text").fill(lines.join("\r\n") + "\r\n");
  await expect(page.locator('[data-field="rows-to-send"]')).toHaveText("200");
  await page.locator('[data-field="start-batch"]').click();
  await expect(page.locator('[data-field="batch"][data-phase="done"]')).toBeVisible({ timeout: 90_000 });
  await expect(page.locator('[data-count="completed"] dd')).toHaveText("200");
  await untilAllFinal(sandbox);

  const now = await readBalanceThenOpenCredits(page, sandbox);
  expect(opening - now, "the batch cost something").toBeGreaterThan(0);
  await expect(page.locator('[data-field="ledger-spent"]')).toHaveText(credits(opening - now));
  expect(await ledgerTotals(page)).toEqual({ spent: opening - now, madeHere: opening - now, listed: 0, unexplained: 0, added: 0 });
  const unexplainedPerDay = await page.locator('[data-field="ledger-table"] tbody [data-field="unexplained"]').allTextContents();
  expect(unexplainedPerDay.length).toBeGreaterThan(0);
  expect(unexplainedPerDay.every((text) => text === "0")).toBe(true);
  // Besides sign-in's and the last, the batch's refreshes were read, with runs in progress.
  const intervals = await page.locator('[data-field="ledger-table"] tbody [data-field="readings"]').allTextContents();
  expect(intervals.reduce((sum, text) => sum + Number(text), 0)).toBeGreaterThan(1);
  const kept = await keptReadings(page, (await api(sandbox, "GET", "/v1/workspace")).json.workspace_id);
  expect(kept.some((reading) => reading.reserved > 0), JSON.stringify(kept)).toBe(true);
  expect(kept.at(-1).balance).toBe(now);
  await expect(page.locator('[data-field="ledger-unfinished"]')).toHaveCount(0);
  expect(problems).toEqual([]);
});

test("a reading the store refuses (a full disk) is told on /credits with what to do, until one is kept", async ({ pages }) => {
  const { page, problems } = await pages.signedIn("/credits");
  await expect(page.getByRole("heading", { name: "Where the credits went" })).toBeVisible();
  // From now on the disk is full: every write is refused as browsers refuse it.
  await page.evaluate(() => {
    window.__put = IDBObjectStore.prototype.put;
    IDBObjectStore.prototype.put = function () {
      throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
    };
  });
  const notKept = page.locator('[data-field="ledger-not-kept"]');
  // /credits reads the balance on arrival unless it was read in the last 2 s: arrive again
  // until a reading has been refused.
  await expect.poll(async () => {
    await go(page, "/actions");
    await go(page, "/credits");
    return notKept.count();
  }, { message: "the notice of a reading not kept", intervals: [1_000] }).toBe(1);
  await expect(notKept).toContainText("This browser did not keep the balance it just read, so the ledger misses it. This browser's storage is full. Free space");
  expect(await seriousViolations(page)).toEqual([]);

  // Room again: the next reading is kept and the notice goes.
  await page.evaluate(() => { IDBObjectStore.prototype.put = window.__put; });
  await expect.poll(async () => {
    await go(page, "/actions");
    await go(page, "/credits");
    return notKept.count();
  }, { message: "the notice of a reading not kept", intervals: [1_000] }).toBe(0);
  expect(problems).toEqual([]);
});
