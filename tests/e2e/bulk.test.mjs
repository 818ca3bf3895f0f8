// Bulk runs end to end: a CSV of 200 rows with 5 invalid ones becomes 195 runs, each made and
// charged exactly once (forced 500s and 429s retried with the same key), the merged export has
// every record with its row's input; cancel stops a batch and cancels its running runs; a lack
// of credits pauses it with the API's message. Headless Chromium against the sandbox, with
// quick runs and a raised rate limit.
import { readFile } from "node:fs/promises";
import { expect, withSandbox } from "./fixtures.mjs";
import { csvLine, parseCsv, screenshot, api, besides, seriousViolations, signIn, signInAt, go, startSandbox } from "./harness.mjs";

const test = withSandbox({ args: ["--queue-ms", "60", "--process-ms", "120", "--rate-burst", "30", "--rate-per-sec", "40"] });

const counts = async (page) => Object.fromEntries(await page.locator("[data-count]").evaluateAll((els) =>
  els.map((e) => [e.dataset.count, Number(e.querySelector("dd").textContent.replaceAll(",", ""))])));

/** The number of the batch's rows in `state`, as the page shows it. */
const countOf = async (page, state) => Number((await page.locator(`[data-count="${state}"] dd`).textContent()).replaceAll(",", ""));

async function axeClean(page, state) {
  const found = (await seriousViolations(page)).map((v) => `${state}: ${v}`);
  expect(found).toEqual([]);
}

test("200 rows, 5 invalid: 195 runs, each made and charged once, and one merged export", async ({ sandbox, pages }) => {
  const invalid = new Set([17, 50, 99, 150, 199]);
  const lines = [csvLine(["keywords", "team", "max_results"])];
  for (let i = 1; i <= 200; i++) {
    let keywords = `bulk person ${i}`;
    if (i === 10 || i === 110) keywords += " sandbox:500";
    if (i === 20 || i === 120) keywords += " sandbox:429";
    const maxResults = invalid.has(i) ? (i % 2 ? "500" : "0") : "2";
    lines.push(csvLine([i === 50 ? "" : keywords, `team ${i % 7}`, maxResults]));
  }
  const before = (await api(sandbox, "GET", "/v1/workspace")).json;
  const { page, problems } = await pages.signedIn("/bulk");
  await page.getByLabel("Action").selectOption("premium-search-people");
  await page.locator("#bulk-text").fill(lines.join("\r\n") + "\r\n");
  await expect(page.locator('[data-field="table-summary"]')).toContainText("200 rows");
  // Mapped by header name; the five invalid rows listed by line, field and reason.
  await expect(page.locator("#map-keywords")).toHaveValue("c0");
  await expect(page.locator("#map-max_results")).toHaveValue("c2");
  const listed = await page.locator('[data-field="invalid-rows"] li').evaluateAll((els) => els.map((e) => Number(e.dataset.line)));
  expect(listed).toEqual([...invalid].map((i) => i + 1));
  await expect(page.locator('[data-field="invalid-rows"] li[data-line="51"]')).toHaveText(/keywords is required/);
  await expect(page.locator('[data-field="invalid-rows"] li[data-line="18"]')).toHaveText(/max_results must/);
  // Nothing is sent before the person leaves the invalid rows out and starts.
  const start = page.locator('[data-field="start-batch"]');
  await expect(start).toBeDisabled();
  await expect(page.locator('[data-field="rows-to-send"]')).toHaveText("195");
  await expect(page.locator('[data-field="worst-case"]')).toHaveText("390");
  await axeClean(page, "prepare");
  await screenshot(page, "bulk-prepare");
  const submissions = [];
  page.on("request", (r) => { if (r.method() === "POST" && /\/run\/async$/.test(new URL(r.url()).pathname)) submissions.push(r.headers()["idempotency-key"]); });
  await page.locator('[data-field="leave-out-invalid"]').check();
  await start.click();
  await expect(page.locator('[data-field="batch"]')).toBeVisible();
  // At 40 a second the rate limit holds the batch back (not this computer), and the page says so.
  await expect(page.locator('[data-field="paced-by"]')).toHaveAttribute("data-paced-by", "rate-limit");
  await expect(page.locator('[data-field="paced-by"]')).toHaveText("paced by the API's rate limit");
  await axeClean(page, "running");
  await screenshot(page, "bulk-running");
  await expect(page.locator('[data-field="batch"][data-phase="done"]')).toBeVisible({ timeout: 90_000 });
  const c = await counts(page);
  expect(c.completed, JSON.stringify(c)).toBe(195);
  expect(c.invalid).toBe(5);
  expect(c.failed + c.waiting + c.queued + c.processing).toBe(0);
  // The forced 500s and 429s were sent again with the same key: more submissions than rows,
  // but never a second key for a row.
  const keysByRow = new Map();
  for (const key of submissions) {
    const row = key.split("-").at(-1);
    keysByRow.set(row, new Set([...(keysByRow.get(row) ?? []), key]));
  }
  expect(keysByRow.size).toBe(195);
  expect([...keysByRow.values()].filter((keys) => keys.size !== 1), "rows sent with more than one key").toEqual([]);
  expect(submissions.length, "the submissions, retries included").toBeGreaterThanOrEqual(195 + 4);
  await axeClean(page, "done");
  await screenshot(page, "bulk-done");
  // The rows a page at a time, and by state.
  await expect(page.locator('[data-field="page-of"]')).toHaveText("Page 1 of 4");
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.locator('[data-field="page-of"]')).toHaveText("Page 2 of 4");
  await expect(page.locator('[data-field="batch-rows"] tbody tr').first()).toHaveAttribute("data-line", "52");
  // Drawn a slice a frame, the page's 50 lines all come, the last one too.
  await expect(page.locator('[data-field="batch-rows"] tbody tr')).toHaveCount(50);
  await expect(page.locator('[data-field="batch-rows"] tbody tr').last()).toHaveAttribute("data-line", "101");
  await page.getByLabel("Show").selectOption("invalid");
  await expect(page.locator('[data-field="page-of"]')).toHaveText("Page 1 of 1");
  await expect(page.locator('[data-field="batch-rows"] tbody tr[data-state="invalid"]')).toHaveCount(5);

  // The merged CSV: every record with its row's line and input columns, and the run id.
  const [download] = await Promise.all([page.waitForEvent("download"), page.locator('[data-field="export-csv"]').click()]);
  const csv = parseCsv(await readFile(await download.path(), "utf8"));
  const header = csv[0];
  expect(header.slice(0, 10)).toEqual(["line", "input.keywords", "input.team", "input.max_results", "run_id", "status", "error_code", "error_message", "same_as_line", "reused"]);
  const body = csv.slice(1);
  const runIds = new Set(body.filter((r) => r[5] === "completed").map((r) => r[4]));
  expect(runIds.size).toBe(195);
  for (const r of body.filter((r) => r[5] === "completed")) {
    const i = Number(r[0]) - 1;
    expect(r[1]).toMatch(new RegExp(`^bulk person ${i}( |$)`));
    expect(r[2]).toBe(`team ${i % 7}`);
  }
  expect(body.filter((r) => r[5] === "invalid")).toHaveLength(5);
  // Charged once: the balance went down by exactly the records returned (1 credit each), and
  // nothing is left reserved. A second run for any row would have cost more.
  const records = body.filter((r) => r[5] === "completed" && header.slice(10).some((_, j) => r[10 + j] !== "")).length;
  // JSON Lines: one object per row with its records (read back from this browser's store, where
  // finished rows keep them), the same records as the CSV.
  const [jsonl] = await Promise.all([page.waitForEvent("download"), page.locator('[data-field="export-jsonl"]').click()]);
  expect(jsonl.suggestedFilename()).toMatch(/^sandbox-bulk-premium-search-people-[0-9a-f]{8}\.jsonl$/);
  const items = (await readFile(await jsonl.path(), "utf8")).trim().split("\n").map((l) => JSON.parse(l));
  expect(items).toHaveLength(200);
  expect(items.reduce((n, item) => n + item.records.length, 0)).toBe(records);
  const after = (await api(sandbox, "GET", "/v1/workspace")).json;
  expect(before.credits_balance - after.credits_balance, "credits spent").toBe(records);
  expect(after.credits_reserved).toBe(0);
  // The latest 100 runs of the workspace are all the batch's.
  const latest = (await api(sandbox, "GET", "/v1/runs")).json.runs;
  expect(latest.filter((r) => !runIds.has(r.id)), "the latest runs not the batch's").toEqual([]);
  expect(besides(problems, 500, 429)).toEqual([]);
});

test("cancel stops sending and cancels the batch's running runs", async ({ sandbox, pages }) => {
  const lines = [csvLine(["query"])];
  // Enough rows that some are still being sent, and many running, when the cancel lands.
  for (let i = 1; i <= 300; i++) lines.push(csvLine([`cancel me ${i} sandbox:slow`]));
  const { page, problems } = await pages.signedIn("/bulk", { viewport: { width: 375, height: 800 } });
  await page.getByLabel("Action").selectOption("network-search-groups");
  // Chosen as a file this time, rather than pasted.
  await page.getByLabel("Choose a CSV or TSV file").setInputFiles({ name: "cancel.csv", mimeType: "text/csv", buffer: Buffer.from(lines.join("\n")) });
  await expect(page.getByText("Read cancel.csv.")).toBeVisible();
  await expect(page.locator("#bulk-text")).toHaveValue(lines.join("\n"));
  await page.locator('[data-field="start-batch"]').click();
  await expect.poll(async () => (await countOf(page, "queued")) + (await countOf(page, "processing")), {
    message: "rows queued or processing",
    intervals: [100],
  }).toBeGreaterThanOrEqual(5);
  await page.locator('[data-field="cancel-batch"]').click();
  await axeClean(page, "confirm cancel");
  await page.getByRole("button", { name: "Cancel batch", exact: true }).click();
  await expect(page.locator('[data-field="batch"][data-phase="cancelled"]')).toBeVisible();
  const c = await counts(page);
  expect(c.queued + c.processing + c.waiting + c.submitting, JSON.stringify(c)).toBe(0);
  expect(c.cancelled, JSON.stringify(c)).toBeGreaterThanOrEqual(5);
  const runs = (await api(sandbox, "GET", "/v1/runs")).json.runs.filter((r) => r.action === "network-search-groups");
  expect(runs.filter((r) => ["queued", "processing"].includes(r.status)), "runs still queued or processing").toEqual([]);
  expect(runs.some((r) => r.status === "cancelled"), "runs were cancelled through the API").toBe(true);
  await screenshot(page, "bulk-cancelled-375");
  // A batch paced at the rate limit may meet a 429 (retried with the same key): Chromium logs
  // each as "Failed to load resource"; that is the API's answer, not the console's error.
  expect(besides(problems, 409, 429)).toEqual([]);
});

test("a lack of credits pauses the batch with the API's message", async ({ sandbox, pages }) => {
  const globex = sandbox.workspaces.find((w) => w.workspace_id === "ws_globex");
  const lines = [csvLine(["keywords", "max_results"])];
  for (let i = 1; i <= 40; i++) lines.push(csvLine([`expensive ${i} sandbox:slow`, 100]));
  const { page, problems } = await pages.signedIn("/bulk", { credential: globex.api_key, colorScheme: "dark" });
  await page.getByLabel("Action").selectOption("premium-search-people");
  await page.locator("#bulk-text").fill(lines.join("\n"));
  await expect(page.locator('[data-field="credits-warning"]')).toBeVisible();
  // A budget of the whole worst case, past the 1,500 credits available (the default budget
  // would stop the batch at what is available, before the API refuses a row): starting asks.
  await page.getByLabel("Budget, in credits (optional)").fill("4000");
  await page.locator('[data-field="start-batch"]').click();
  const asked = page.getByRole("dialog");
  await expect(asked).toContainText("This batch of 40 rows may spend up to its budget of 4,000 credits: more than the 1,500 credits available");
  await asked.getByRole("button", { name: "Spend up to 4,000 credits" }).click();
  await expect(page.locator('[data-field="batch"][data-phase="paused"]')).toBeVisible();
  await expect(page.locator('[data-field="paused-reason"]')).toHaveText(/only \d+ are available.*Resume once credits are available/);
  await axeClean(page, "paused");
  await screenshot(page, "bulk-paused-dark");
  await page.locator('[data-field="cancel-batch"]').click();
  await page.getByRole("button", { name: "Cancel batch", exact: true }).click();
  await expect(page.locator('[data-field="batch"][data-phase="cancelled"]')).toBeVisible();
  expect(besides(problems, 409, 429)).toEqual([]);
});

test("a reload mid-batch, sign in, resume: still exactly one run per row; a row's run can be run again", async ({ pages }) => {
  // A sandbox of its own, whose rate limit spreads the 90 rows' sending over about 10 s: the
  // reload must come while rows are left to send. At the file's 40 a second the whole batch
  // took about 2 s, and a dev build's page, drawing its counts late, once showed 15 rows
  // completed when the batch had already finished all 90 (the reload then came after the end).
  // The rate limit is the API's clock, not this computer's: a slower page only sends slower.
  const sandbox = await startSandbox({ args: ["--queue-ms", "60", "--process-ms", "120", "--rate-burst", "10", "--rate-per-sec", "8"] });
  try {
    await reloadMidBatch(sandbox, pages);
  } finally {
    sandbox.stop();
  }
});

async function reloadMidBatch(sandbox, pages) {
  const rows = 90;
  const lines = [csvLine(["query"])];
  for (let i = 1; i <= rows; i++) lines.push(csvLine([`reload row ${i}`]));
  const { page, problems } = await pages.open();
  await signInAt(page, sandbox, "/bulk", sandbox.api_key);
  // Every key sent, and the run each answer names, across the reload.
  const keys = new Set();
  const runByKey = new Map();
  page.on("request", (r) => { if (r.method() === "POST" && /\/run\/async$/.test(new URL(r.url()).pathname)) keys.add(r.headers()["idempotency-key"]); });
  page.on("response", async (r) => {
    if (r.request().method() !== "POST" || !/\/run\/async$/.test(new URL(r.url()).pathname) || ![200, 202].includes(r.status())) return;
    const key = r.request().headers()["idempotency-key"];
    const id = (await r.json().catch(() => ({}))).id;
    if (id) runByKey.set(key, new Set([...(runByKey.get(key) ?? []), id]));
  });
  await page.getByLabel("Action").selectOption("network-search-schools");
  await page.locator("#bulk-text").fill(lines.join("\n"));
  await expect(page.locator('[data-field="kept-note"]')).toHaveText(/kept in this browser/);
  await page.locator('[data-field="start-batch"]').click();
  await expect(page.locator('[data-field="keeping"]').getByText("Kept in this browser")).toBeVisible();
  // Polled often: the reload must come mid-batch.
  await expect.poll(() => countOf(page, "completed"), { message: "rows completed", intervals: [100] }).toBeGreaterThanOrEqual(15);
  await page.reload();

  // The credential was in memory only: sign in again, and Bulk lists the unfinished batch.
  await expect(page).toHaveURL(/\/sign-in/);
  await signIn(page, sandbox.api_key);
  await expect(page).toHaveURL(/\/bulk$/);
  const saved = page.locator('[data-field="saved-batches"] li[data-state="unfinished"]');
  await expect(saved, "the batch is kept unfinished: the reload came mid-batch").toContainText("network-search-schools");
  await axeClean(page, "kept batches");
  await screenshot(page, "bulk-kept");
  // Every phase the batch is shown in from the click on resume on, as the page draws them.
  await page.evaluate(() => {
    window.phasesShown = [];
    const note = () => {
      const phase = document.querySelector('[data-field="batch"]')?.dataset.phase;
      if (phase && window.phasesShown.at(-1) !== phase) window.phasesShown.push(phase);
    };
    new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-phase"] });
  });
  await saved.locator('[data-field="resume-saved"]').click();
  await expect(page.locator('[data-field="batch"][data-phase="done"]')).toBeVisible({ timeout: 60_000 });
  const c = await counts(page);
  expect(c.completed, JSON.stringify(c)).toBe(rows);
  // Resumed from the first frame on: never shown paused ("taken up again") on the way.
  expect(await page.evaluate(() => window.phasesShown)).not.toContain("paused");

  // One key per row, one run per key, and the API holds exactly one run per row.
  expect(keys.size).toBe(rows);
  expect([...runByKey.values()].filter((ids) => ids.size !== 1), "keys answered with more than one run").toEqual([]);
  const latest = (await api(sandbox, "GET", "/v1/runs")).json.runs.filter((r) => r.action === "network-search-schools");
  expect(latest).toHaveLength(rows);
  const fromAnswers = new Set([...runByKey.values()].flatMap((ids) => [...ids]));
  expect(latest.filter((r) => !fromAnswers.has(r.id)), "runs no answer named").toEqual([]);

  // A row's run page offers its input again: the form opens filled, for a new run.
  const first = page.locator('[data-field="batch-rows"] tbody tr[data-line="2"] a');
  await first.click();
  await page.locator('[data-field="run-again"]').click();
  await expect(page).toHaveURL(/\/actions\/network-search-schools$/);
  await expect(page.getByLabel(/^Query/)).toHaveValue("reload row 1");

  // Clearing the batch deletes it from this browser.
  await go(page, "/bulk");
  await page.locator('[data-field="clear-batch"]').click();
  await expect(page.locator('[data-field="start-batch"]')).toBeVisible();
  await expect(page.locator('[data-field="saved-batches"]')).toHaveCount(0);
  const left = await page.evaluate(() => new Promise((resolve, reject) => {
    const open = indexedDB.open("console");
    open.onsuccess = () => {
      const req = open.result.transaction("rows").objectStore("rows").count();
      req.onsuccess = () => resolve(req.result);
      req.onerror = reject;
    };
    open.onerror = reject;
  }));
  expect(left, "rows left in the browser's store").toBe(0);
  // Nothing kept holds the credential.
  const kept = await page.evaluate(() => new Promise((resolve) => {
    const open = indexedDB.open("console");
    open.onsuccess = () => {
      const all = [];
      const tx = open.result.transaction(["batches", "rows", "submissions"]);
      for (const name of ["batches", "rows", "submissions"]) tx.objectStore(name).getAll().onsuccess = (e) => all.push(...e.target.result);
      tx.oncomplete = () => resolve(JSON.stringify(all));
    };
  }));
  expect(kept, "the API key is not in IndexedDB").not.toContain(sandbox.api_key);
  // The rate limit's 429s (Chromium logs each as a failed resource) are the API pacing the
  // batch, not a console error; everything else still fails the test.
  expect(besides(problems, 429)).toEqual([]);
}

/** The idempotency keys of the submissions `page` sends, as they are sent. */
function submissionKeys(page, keys = []) {
  page.on("request", (r) => { if (r.method() === "POST" && /\/run\/async$/.test(new URL(r.url()).pathname)) keys.push(r.headers()["idempotency-key"]); });
  return keys;
}

/** Starts a batch of one-record rows of network-search-companies in `page`, and waits until it is kept. */
async function startKeptBatch(page, label, rows) {
  // One record a row: the file's later batches need the workspace's credits too.
  const lines = [csvLine(["keywords", "max_results"])];
  for (let i = 1; i <= rows; i++) lines.push(csvLine([`${label} ${i}`, 1]));
  await page.getByLabel("Action").selectOption("network-search-companies");
  await page.locator("#bulk-text").fill(lines.join("\n"));
  await page.locator('[data-field="start-batch"]').click();
  await expect(page.locator('[data-field="keeping"]').getByText("Kept in this browser")).toBeVisible();
}

/**
 * A second tab of the same browser signs in and opens the kept batch another tab runs: it shows
 * it read-only (signed in to `sandbox`). Its page errors and console errors are collected in
 * `problems`; the page is closed with `context`.
 */
async function openInSecondTab(sandbox, context, keys) {
  const page = await context.newPage();
  const problems = [];
  page.on("console", (msg) => { if (msg.type() === "error") problems.push(msg.text()); });
  page.on("pageerror", (err) => problems.push(err.message));
  submissionKeys(page, keys);
  await page.goto(`${sandbox.url}/sign-in`);
  await signIn(page, sandbox.api_key);
  await expect(page).toHaveURL(/\/workspace$/);
  await go(page, "/bulk");
  await page.locator('[data-field="saved-batches"] li[data-state="unfinished"] [data-field="resume-saved"]').first().click();
  await expect(page.locator('[data-field="elsewhere"]')).toBeVisible();
  return { page, problems };
}

test("one tab runs a batch: another tab shows it read-only and can take it over, which stops the first", async ({ pages }) => {
  // A sandbox of its own, whose rate limit spreads the batch's sending over about 30 s: the
  // take-over must come while rows are left to send, and opening, checking and photographing
  // the second tab takes a few seconds (more on a loaded machine). At the file's 40 a second,
  // the first tab had once sent every row before the second could take over.
  const sandbox = await startSandbox({ args: ["--queue-ms", "60", "--process-ms", "120", "--rate-burst", "10", "--rate-per-sec", "8"] });
  test.info().setTimeout(120_000);
  try {
    await takeOver(sandbox, pages);
  } finally {
    sandbox.stop();
  }
});

async function takeOver(sandbox, pages) {
  const rows = 240;
  const { context, page: first, problems } = await pages.open();
  await signInAt(first, sandbox, "/bulk", sandbox.api_key);
  const firstKeys = submissionKeys(first);
  await startKeptBatch(first, "two tabs", rows);
  // A second tab of the same browser opens the batch: it only watches.
  const secondKeys = [];
  const { page: second, problems: secondProblems } = await openInSecondTab(sandbox, context, secondKeys);
  await expect(second.locator('[data-field="cancel-batch"]'), "a watching tab offers no controls").toHaveCount(0);
  // It follows the first tab's progress, and sends nothing.
  const finishedIn = (page) => page.locator('[data-field="batch-finished"]').textContent().then((t) => Number(t.split(" of ")[0].replaceAll(",", "")));
  const seen = await finishedIn(second);
  await expect.poll(() => finishedIn(second), { message: "rows finished, as the watching tab shows them" }).toBeGreaterThan(seen);
  expect(secondKeys, "the watching tab sent no submission").toEqual([]);
  await axeClean(second, "watching");
  await screenshot(second, "bulk-watching");

  // Taking it over: the second tab runs it, the first stops sending and watches.
  expect(firstKeys.length, "rows are left to send at the take-over").toBeLessThan(rows);
  await second.locator('[data-field="take-over"]').click();
  await expect(second.locator('[data-field="elsewhere"]')).toHaveCount(0);
  await expect(first.locator('[data-field="elsewhere"]')).toBeVisible();
  const sentByFirst = firstKeys.length;
  await expect(second.locator('[data-field="batch"][data-phase="done"]')).toBeVisible({ timeout: 60_000 });
  // Requests already on their way at the take-over may land; the first tab sends nothing after.
  expect(firstKeys.length - sentByFirst, "sent by the first tab after losing the batch").toBeLessThanOrEqual(5);
  expect(secondKeys.length, "the second tab sent the rest").toBeGreaterThan(0);
  const c = await counts(second);
  expect(c.completed, JSON.stringify(c)).toBe(rows);
  // Each row went with its one key, whichever tab sent it; the API made one run per row.
  const keysPerRow = new Map();
  for (const key of [...firstKeys, ...secondKeys]) keysPerRow.set(key.split("-").pop(), new Set([...(keysPerRow.get(key.split("-").pop()) ?? []), key]));
  expect(keysPerRow.size).toBe(rows);
  expect([...keysPerRow.values()].filter((keys) => keys.size !== 1), "rows sent with more than one key").toEqual([]);
  const made = (await api(sandbox, "GET", "/v1/runs")).json.runs.filter((r) => r.action === "network-search-companies");
  expect(new Set(made.map((r) => r.id)).size).toBe(made.length);
  // The first tab, watching, sees the end too.
  await expect(first.locator('[data-field="batch"][data-phase="done"]')).toBeVisible();
  await screenshot(second, "bulk-taken-over");
  expect(besides(problems, 429)).toEqual([]);
  expect(secondProblems.filter((p) => !/status of 429/.test(p))).toEqual([]);
}

test("when the tab running a batch is closed, a tab showing it takes it up, paused, and finishes it", async ({ sandbox, pages }) => {
  const rows = 400;
  const { context, page: first, problems } = await pages.signedIn("/bulk");
  const keys = submissionKeys(first);
  await startKeptBatch(first, "closed tab", rows);
  const { page: second, problems: secondProblems } = await openInSecondTab(sandbox, context, keys);

  // The running tab goes away: its lock is released, and the watching tab takes the batch up
  // from what was saved, paused, as after a reload.
  await first.close();
  await expect(second.locator('[data-field="elsewhere"]')).toHaveCount(0, { timeout: 15_000 });
  await expect(second.locator('[data-field="batch"][data-phase="paused"]')).toBeVisible();
  await second.getByRole("button", { name: "Resume" }).click();
  await expect(second.locator('[data-field="batch"][data-phase="done"]')).toBeVisible({ timeout: 60_000 });
  expect((await counts(second)).completed).toBe(rows);
  const byRow = new Map();
  for (const key of keys) byRow.set(key.split("-").pop(), new Set([...(byRow.get(key.split("-").pop()) ?? []), key]));
  expect(byRow.size).toBe(rows);
  expect([...byRow.values()].filter((k) => k.size !== 1), "rows sent with more than one key across both tabs").toEqual([]);
  expect(besides(problems, 429)).toEqual([]);
  expect(secondProblems.filter((p) => !/status of 429/.test(p))).toEqual([]);
});

/** How many rows of the kept batch are in this browser's store, and how many of them are final. */
const keptRows = (page) => page.evaluate(() => new Promise((resolve, reject) => {
  const open = indexedDB.open("console");
  open.onsuccess = () => {
    const req = open.result.transaction("rows").objectStore("rows").getAll();
    req.onsuccess = () => {
      const rows = req.result.map((text) => JSON.parse(text));
      resolve({ rows: rows.length, final: rows.filter((r) => ["completed", "failed", "cancelled", "invalid"].includes(r.state)).length });
    };
    req.onerror = reject;
  };
  open.onerror = reject;
}));

test("a full disk pauses the batch with a message; nothing received is lost, and resume finishes it, kept", async ({ sandbox, pages }) => {
  const rows = 400;
  const lines = [csvLine(["query", "max_results"])];
  for (let i = 1; i <= rows; i++) lines.push(csvLine([`full disk ${i}`, 1]));
  // The browser refuses writes as a full disk makes it (QuotaExceededError) once the test says
  // so. (Chromium's quota override does not reach a test context's IndexedDB.) The batch's
  // worker writes, so the refusal is put into the worker's scope.
  const { page, problems } = await pages.open();
  await page.goto(`${sandbox.url}/sign-in`);
  await signIn(page, sandbox.api_key);
  await expect(page).toHaveURL(/\/workspace$/);
  await go(page, "/bulk");
  const keys = [];
  page.on("request", (r) => { if (r.method() === "POST" && /\/run\/async$/.test(new URL(r.url()).pathname)) keys.push(r.headers()["idempotency-key"]); });
  await page.getByLabel("Action").selectOption("network-search-groups");
  await page.locator("#bulk-text").fill(lines.join("\n"));
  const workerStarted = page.waitForEvent("worker");
  await page.locator('[data-field="start-batch"]').click();
  const worker = await workerStarted;
  await worker.evaluate(() => {
    const put = IDBObjectStore.prototype.put;
    IDBObjectStore.prototype.put = function (...args) {
      if (self.__diskFull) throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
      return put.apply(this, args);
    };
  });
  await expect(page.locator('[data-field="keeping"]').getByText("Kept in this browser")).toBeVisible();
  // Polled often: the disk must fill up mid-batch.
  await expect.poll(() => countOf(page, "completed"), { message: "rows completed", intervals: [100] }).toBeGreaterThanOrEqual(10);
  // The disk is full: the browser refuses the next write.
  await worker.evaluate(() => { self.__diskFull = true; });
  const reason = page.locator('[data-field="paused-reason"]');
  await expect(reason).toHaveText(/storage refused to save the batch/);
  await screenshot(page, "bulk-disk-full");
  // Paused: nothing more leaves (what was on its way may still land).
  await expect(page.locator('[data-count="submitting"] dd')).toHaveText("0");
  const sentWhilePaused = keys.length;
  // A fixed wait on purpose: the test asserts that nothing is sent for a while.
  await page.waitForTimeout(1_500);
  expect(keys.length, "nothing is sent while paused").toBe(sentWhilePaused);
  // Room again: what was not saved is written, and resume finishes the batch.
  await worker.evaluate(() => { self.__diskFull = false; });
  await page.getByRole("button", { name: "Resume" }).click();
  await expect(page.locator('[data-field="batch"][data-phase="done"]')).toBeVisible({ timeout: 60_000 });
  expect((await counts(page)).completed).toBe(rows);
  // The batch's last rows are written soon after its end.
  await expect.poll(() => keptRows(page), { message: "the batch's rows in the store, and the final ones", timeout: 10_000 })
    .toEqual({ rows, final: rows });
  // One key per row across the pause.
  expect(new Set(keys.map((k) => k.split("-").pop())).size).toBe(rows);
  expect(new Set(keys).size).toBe(rows);
  await page.locator('[data-field="clear-batch"]').click();
  expect(besides(problems, 429)).toEqual([]);
});

test("a bulk worker that cannot start says so and sends nothing; resume starts it, once per row", async ({ pages }) => {
  const rows = 6;
  const lines = [csvLine(["query", "max_results"])];
  for (let i = 1; i <= rows; i++) lines.push(csvLine([`no worker ${i}`, 1]));
  const { context, page, problems } = await pages.signedIn("/bulk");
  const keys = [];
  page.on("request", (r) => { if (r.method() === "POST" && /\/run\/async$/.test(new URL(r.url()).pathname)) keys.push(r.headers()["idempotency-key"]); });
  // The worker's module does not load (a proxy that blocks it, a connection that drops).
  await context.route("**/bulk-worker_bg.wasm", (route) => route.abort("failed"));
  await page.getByLabel("Action").selectOption("network-search-groups");
  await page.locator("#bulk-text").fill(lines.join("\n"));
  await page.locator('[data-field="start-batch"]').click();
  const reason = page.locator('[data-field="paused-reason"]');
  await expect(reason).toHaveText(/could not start in this browser .*so nothing was sent/);
  await expect(page.locator('[data-field="batch"][data-phase="paused"]')).toBeVisible();
  await screenshot(page, "bulk-worker-could-not-start");
  // A fixed wait on purpose: the test asserts that nothing is sent for a while.
  await page.waitForTimeout(1_000);
  expect(keys, "nothing is sent without the worker").toEqual([]);
  // The module loads again: resume starts a worker, which sends each row once.
  await context.unroute("**/bulk-worker_bg.wasm");
  await page.getByRole("button", { name: "Resume" }).click();
  await expect(page.locator('[data-field="batch"][data-phase="done"]')).toBeVisible();
  expect((await counts(page)).completed).toBe(rows);
  expect(new Set(keys).size).toBe(rows);
  expect(keys).toHaveLength(rows);
  await page.locator('[data-field="clear-batch"]').click();
  // The blocked module is the one resource that failed, on purpose.
  expect(problems.filter((p) => !p.includes("net::ERR_FAILED"))).toEqual([]);
});
