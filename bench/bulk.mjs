// Benchmark: bulk batches through the console's /bulk page against the sandbox, in four
// scenarios, each with a sandbox of its own (their rate limits differ) and a fresh browser
// context, in one Chromium:
// - measure: 1,000 rows (max_results 1) against burst 20, 20 per second, 0.8 s runs: the batch's
//   time against the rate limit's ideal, 429s, duplicate runs, status requests, long tasks, the
//   exports;
// - status-2 and status-50: rows with max_results 100 (large outputs), at 2 and at 50 rows per
//   second, the sandbox's run times (0.6 s queued, 1.8 s processing): the bytes the page read
//   for status against the bytes of the results (issue 24: aim ≤ 2), and status requests per
//   row (aim < 2);
// - reload: burst 5, 2 per second; the page is reloaded mid-batch, signed in again and the kept
//   batch resumed: 429s per 100 rows before and after the reload (issue 24: a reload must not
//   learn the pace again through 429s; aim < 5);
// - repeats: 1,000 rows of which 300 repeat earlier rows' keywords (spaced otherwise), at the
//   measure's rate: runs made and credits spent against the 700 distinct rows, and the time
//   against the rate limit's ideal for those 700 (issue 47);
// - large (only when named): 10,000 rows with max_results 100 (about 880,000 records) against
//   burst 50, 50 per second, 0.8 s runs: the batch's time against the ideal (issue 24: ≤ 1.15×),
//   long tasks (none over 50 ms), the page's and the browser's memory before, during and after
//   the batch and after each export (aim: grows ≤ 250 MB), and each export (CSV, JSON, JSON
//   Lines) from click to download (aim ≤ 60 s) with the page's responsiveness meanwhile. It takes
//   5 to 6 minutes and writes about 1 GB of downloads to the temporary folder, so it runs only
//   when asked for: node bench/bulk.mjs 1000 large.
// Not part of the test suite's pass/fail: an aim missed is printed, not fatal; the script exits
// non-zero only when a measure could not be taken (a sandbox or the page did not come up, a batch
// did not finish in time or stopped short, an export did not download); the other scenarios are
// still run and written. Usage (after a release build of the console and of the sandbox):
//   node bench/bulk.mjs [rows] [scenario ...]
// rows: the measure's rows (default 1,000); scenarios: any of measure, repeats, status-2,
// status-50, reload, large (default all but large). BENCH_DIST: the built console to serve (default dist/; relative to the
// repository), e.g. a copy kept aside while dist/ is rebuilt.
// Writes target/bench/bulk.json (every scenario's results) and prints a Markdown table each.
//
// Duplicate runs: GET /v1/runs lists only the latest 100, so the sandbox cannot be asked for all
// of a workspace's runs. Instead every 200/202 answer to the page's submissions is read: each
// row's key must have one run id, each row one key, and the distinct run ids must number the rows.
// A run made without the page seeing it would still cost, so the workspace's balance must also
// have gone down by exactly the sum of those runs' credits_used (each read with GET
// /v1/runs/{id}), with nothing left reserved, and the latest 100 runs must all be the batch's.
//
// Status bytes: the bodies, as decoded (what the page's code reads; the sandbox gzips them on
// the wire), of every answer to GET /v1/runs and GET /v1/runs/{id} the page received, from the
// DevTools protocol's Network.dataReceived (Playwright gives no body sizes without copying the
// bodies over). Result bytes: each row's finished run as GET /v1/runs/{id} answers it, read once
// per run by this script after the batch. Their ratio is what watching a batch costs over what
// it brings; the same sums on the wire (gzip, headers included for status) are printed beside.
import { spawn } from "node:child_process";
import { createReadStream, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import os from "node:os";
import { chromium } from "playwright-core";
import { browserMemory } from "./lib/memory.mjs";

const root = new URL("..", import.meta.url).pathname;
const DIST = resolve(root, process.env.BENCH_DIST ?? "dist");
const ROWS = Number(process.argv[2] ?? 1000);
const ONLY = process.argv.slice(3);
const ACTION = "premium-search-people";
const FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

// The 1,000-row measure.
const BURST = 20;
const RATE = 20;
const DEADLINE_MS = 5 * 60_000;
// The ideal: the burst goes at once, every other submission waits for its token.
const IDEAL_S = Math.max(0, ROWS - BURST) / RATE;
const AIMS = { ratio: 1.15, limited: 10, duplicates: 0, statusPerRow: 2, longTaskMs: 100, statusBytes: 2, limitedPer100: 5 };

// Issue 24's scenarios: each sized to take well under 2 minutes at its rate, with a deadline
// far enough past that to tell a stalled batch from a slow machine.
const SCENARIO_DEADLINE_MS = 4 * 60_000;
// Large outputs: premium-search-people finds 5 to 404 people per keywords (crates/sandbox/src/
// data.rs), so about three rows in four return the full 100 records.
const STATUS_SCENARIOS = [
  { name: "status-2", rows: 60, burst: 5, rate: 2 },
  { name: "status-50", rows: 1000, burst: 50, rate: 50 },
];
// The sandbox's default rate (2 per second) with a small burst, so the pace is learned through
// 429s within the first rows; reloaded once this many rows were accepted.
const RELOAD = { name: "reload", rows: 140, reloadAfter: 50, burst: 5, rate: 2 };
// The sandbox's defaults, written out so the JSON says what the runs took.
const RUN_FLAGS = ["--queue-ms", "600", "--process-ms", "1800"];
// Issue 24's large batch: 10,000 rows (the most the page takes) of up to 100 records each, at 50
// per second; one deadline for the whole scenario (batch and exports).
const LARGE = { name: "large", rows: 10_000, maxResults: 100, burst: 50, rate: 50, deadlineMs: 12 * 60_000,
  aims: { ratio: 1.15, longTaskMs: 50, memoryMB: 250, exportS: 60 } };
// Issue 47: 1,000 rows of keywords of which 300 repeat earlier rows (spaced otherwise), at the
// measure's rate: each distinct row is sent once (700 runs, charged 700 times), in the rate
// limit's time for 700 rows.
const REPEATS = { name: "repeats", rows: 1000, repeats: 300, burst: BURST, rate: RATE };
// Scenarios left out unless named.
const OPT_IN = new Set([LARGE.name]);

async function startSandbox(flags) {
  const bin = process.env.SANDBOX_BIN ?? join(root, "target/release/sandbox");
  const args = ["--addr", "127.0.0.1:0", "--dist", DIST, ...flags];
  const child = spawn(bin, args, { stdio: ["ignore", "pipe", "ignore"] });
  const line = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("sandbox did not start within 10 s")), 10_000);
    child.once("error", reject);
    child.once("exit", (c) => reject(new Error(`sandbox exited ${c}`)));
    createInterface({ input: child.stdout }).once("line", (l) => { clearTimeout(timer); resolve(l); });
  });
  return { ...JSON.parse(line), flags, stop: () => child.kill() };
}

async function api(sandbox, path) {
  const res = await fetch(`${sandbox.url}${path}`, { headers: { authorization: `Bearer ${sandbox.api_key}` } });
  if (!res.ok) throw new Error(`GET ${path}: ${res.status}`);
  return res.json();
}

/** Each run as GET /v1/runs/{id} answers it, with its body's bytes (decoded, and gzipped here for the wire's approximation); eight at a time. */
async function readRuns(sandbox, ids) {
  const queue = [...ids];
  const runs = [];
  await Promise.all(Array.from({ length: 8 }, async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      const res = await fetch(`${sandbox.url}/v1/runs/${id}`, { headers: { authorization: `Bearer ${sandbox.api_key}` } });
      if (!res.ok) throw new Error(`GET /v1/runs/${id}: ${res.status}`);
      const text = await res.text();
      runs.push({ ...JSON.parse(text), bytes: Buffer.byteLength(text), gzip_bytes: gzipSync(text).length });
    }
  }));
  return runs;
}

/** Installed before the console loads: long tasks, and when start/export were clicked and the batch finished, on the page's clock. */
function instrument() {
  window.__bench = { longtasks: [], clicks: [], phases: [], pastes: [] };
  // The wasm module's memory (trunk's loader hands its exports over), for its size; kept apart
  // from __bench, which is read back whole.
  addEventListener("TrunkApplicationStarted", (e) => { window.__benchWasmMemory = e.detail?.wasm?.memory; });
  document.addEventListener("paste", () => window.__bench.pastes.push(performance.now()), true);
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__bench.longtasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: "longtask", buffered: true });
  document.addEventListener("click", (e) => {
    const field = e.target.closest?.("[data-field]")?.dataset.field;
    if (field) { window.__bench.clicks.push({ field, at: performance.now() }); performance.mark(`bench:${field}`); }
  }, true);
  const seen = () => {
    const phase = document.querySelector('[data-field="batch"]')?.dataset.phase;
    if (phase && phase !== window.__bench.phases.at(-1)?.phase) { window.__bench.phases.push({ phase, at: performance.now() }); performance.mark(`bench:${phase}`); }
  };
  new MutationObserver(seen).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-phase"] });
}

const csvLine = (cells) => cells.map((c) => `"${String(c).replaceAll('"', '""')}"`).join(",");
const longest = (tasks, from, to) => tasks.filter((t) => t.start >= from && t.start <= to).reduce((m, t) => Math.max(m, t.duration), 0);
const over = (tasks, from, to, ms) => tasks.filter((t) => t.start >= from && t.start <= to && t.duration > ms).length;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const lineOf = (key) => key.split("-").at(-1);

/** From a Chrome trace: the main-thread tasks between the bench's marks, wall and CPU time (ms). */
function traced(events) {
  const marks = events.filter((e) => e.name?.startsWith("bench:"));
  if (!marks.length) return null;
  const { pid, tid } = marks[0];
  const at = (name) => marks.filter((m) => m.name === name).at(-1)?.ts;
  const runs = events.filter((e) => e.pid === pid && e.tid === tid && e.ph === "X" && /RunTask$/.test(e.name));
  const window = (from, to) => {
    const inside = runs.filter((e) => e.ts >= from && e.ts <= to);
    const wall = inside.reduce((m, e) => (e.dur > (m?.dur ?? -1) ? e : m), null);
    return {
      longest_wall_ms: wall ? Math.round(wall.dur / 1000) : 0,
      its_cpu_ms: wall?.tdur !== undefined ? Math.round(wall.tdur / 1000) : null,
      longest_cpu_ms: Math.round(inside.reduce((m, e) => Math.max(m, e.tdur ?? 0), 0) / 1000),
      cpu_over_100_ms: inside.filter((e) => (e.tdur ?? 0) > 100_000).length,
      busy_cpu_s: +(inside.reduce((n, e) => n + (e.tdur ?? 0), 0) / 1e6).toFixed(2),
    };
  };
  const end = events.reduce((m, e) => Math.max(m, e.ts ?? 0), 0);
  return {
    batch: window(at("bench:start-batch"), at("bench:done")),
    export_csv: window(at("bench:export-csv"), at("bench:export-json") ?? end),
    export_json: window(at("bench:export-json"), end),
  };
}

/** A fresh context signed in as a person would be, then at /bulk inside the app with the action chosen. */
async function openBulk(browser, sandbox) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, acceptDownloads: true });
  const page = await context.newPage();
  const pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await page.addInitScript(instrument);
  await page.goto(`${sandbox.url}/sign-in`);
  await page.getByLabel("API key or session token").fill(sandbox.api_key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/workspace$/);
  await page.evaluate(() => { history.pushState({}, "", "/bulk"); dispatchEvent(new PopStateEvent("popstate")); });
  await page.getByLabel("Action").selectOption(ACTION);
  return { context, page, pageErrors };
}

/**
 * Pastes the rows as a person would (Ctrl+V) and waits until every one is checked: Playwright's
 * fill() types the text through Chromium's editing commands line by line, which takes seconds
 * for 1,000 lines before the page sees it.
 */
async function pasteRows(context, page, sandbox, lines, rows) {
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: sandbox.url });
  await page.evaluate((text) => navigator.clipboard.writeText(text), lines.join("\n") + "\n");
  await page.locator("#bulk-text").focus();
  await page.keyboard.press("ControlOrMeta+V");
  await page.waitForFunction((n) => Number(document.querySelector('[data-field="rows-to-send"]')?.textContent.replaceAll(",", "")) === n, rows, { timeout: 60_000, polling: "raf" });
  const start = page.locator('[data-field="start-batch"]');
  if (await start.isDisabled()) throw new Error("the start button is disabled with every row valid");
  return start;
}

/** Pastes `rows` rows of the action's keywords ("`label` 1", …), each asking `maxResults` results (pasteRows). */
async function pasteKeywordRows(context, page, sandbox, { label, rows, maxResults }) {
  const lines = [csvLine(["keywords", "max_results"])];
  for (let i = 1; i <= rows; i++) lines.push(csvLine([`${label} ${i}`, maxResults]));
  return pasteRows(context, page, sandbox, lines, rows);
}

/**
 * The page's status reads (GET /v1/runs and GET /v1/runs/{id}), sent by its bulk worker, as
 * Playwright reports a page's requests, its workers' included (a DevTools session of the page
 * would not see the worker's): per segment (the one current when the read was sent), how many
 * of each, their decoded body bytes, their bytes on the wire (body as received, gzipped, and
 * the response's headers), their answers' statuses and the reads that failed.
 */
async function watchStatusReads(page, segment) {
  const log = { segment, by: {} };
  const seg = (name) => (log.by[name] ??= { list: 0, single: 0, list_bytes: 0, single_bytes: 0, wire_bytes: 0, by_status: {}, failed: 0 });
  const pending = new Map();
  page.on("request", (request) => {
    if (request.method() !== "GET") return;
    const path = new URL(request.url()).pathname;
    const kind = path === "/v1/runs" ? "list" : /^\/v1\/runs\/[^/]+$/.test(path) ? "single" : null;
    if (!kind) return;
    const s = seg(log.segment);
    s[kind]++;
    pending.set(request, { kind, s });
  });
  page.on("requestfinished", async (request) => {
    const r = pending.get(request);
    if (!r) return;
    pending.delete(request);
    try {
      const response = await request.response();
      r.s.by_status[response.status()] = (r.s.by_status[response.status()] ?? 0) + 1;
      r.s[`${r.kind}_bytes`] += (await response.body()).length;
      const sizes = await request.sizes();
      r.s.wire_bytes += sizes.responseBodySize + sizes.responseHeadersSize;
    } catch {
      // The page (or its worker) went away before the body could be read: a reload.
    }
  });
  page.on("requestfailed", (request) => {
    const r = pending.get(request);
    if (r) { r.s.failed++; pending.delete(request); }
  });
  return log;
}

/** Sums a status log's segments (all of them, or those named). */
function statusTotals(log, names = Object.keys(log.by)) {
  const t = { list: 0, single: 0, list_bytes: 0, single_bytes: 0, wire_bytes: 0, failed: 0 };
  for (const name of names) for (const k of Object.keys(t)) t[k] += log.by[name]?.[k] ?? 0;
  return { ...t, requests: t.list + t.single, bytes: t.list_bytes + t.single_bytes };
}

/**
 * The page's submissions, per segment (the one current when the answer came): sent, answered
 * by status, 429s (any answer), and every 200/202 answer's key and run id; the segment in which
 * each row (the key's last part, its line) was first accepted.
 */
function watchSubmissions(page, segment) {
  const log = { segment, by: {}, answers: [], firstAccepted: new Map(), lastAcceptedAt: {}, limitedAt: [] };
  const seg = (name) => (log.by[name] ??= { sent: 0, by_status: {}, limited: 0 });
  const isSubmission = (r) => r.method() === "POST" && new URL(r.url()).pathname.endsWith("/run/async");
  page.on("request", (r) => { if (isSubmission(r)) seg(log.segment).sent++; });
  page.on("response", (res) => {
    const req = res.request();
    const s = seg(log.segment);
    if (res.status() === 429) { s.limited++; log.limitedAt.push(Date.now()); }
    if (!isSubmission(req)) return;
    s.by_status[res.status()] = (s.by_status[res.status()] ?? 0) + 1;
    if (res.status() === 200 || res.status() === 202) {
      const key = req.headers()["idempotency-key"];
      const segment = log.segment;
      const at = Date.now();
      if (!log.firstAccepted.has(lineOf(key))) log.firstAccepted.set(lineOf(key), segment);
      log.lastAcceptedAt[segment] = at;
      log.answers.push(res.json().then((run) => ({ key, id: run.id, segment, at }), () => ({ key, id: null, segment, at })));
    }
  });
  return log;
}

/** Waits for the batch to end; only "done" is a measure (paused by the API or cancelled is not). */
async function finished(page, deadlineMs) {
  await page.locator('[data-field="batch"][data-phase="done"], [data-field="batch"][data-phase="paused"], [data-field="batch"][data-phase="cancelled"]')
    .waitFor({ timeout: deadlineMs }).catch(() => { throw new Error(`the batch did not finish within ${deadlineMs / 60_000} minutes`); });
  const phase = await page.locator('[data-field="batch"]').getAttribute("data-phase");
  if (phase !== "done") throw new Error(`the batch stopped as "${phase}": ${await page.locator('[data-field="paused-reason"]').textContent().catch(() => "")}`);
}

const pageCounts = async (page) => Object.fromEntries(await page.locator("[data-count]").evaluateAll((els) =>
  els.map((e) => [e.dataset.count, Number(e.querySelector("dd").textContent.replaceAll(",", ""))])));

/** The learned pace kept with the page's batches in IndexedDB (values are JSON text), ms between submissions. */
const keptPace = (page) => page.evaluate(() => new Promise((resolve) => {
  const open = indexedDB.open("console");
  open.onerror = () => resolve(null);
  open.onsuccess = () => {
    try {
      const req = open.result.transaction("batches").objectStore("batches").getAll();
      req.onsuccess = () => resolve(req.result.map((v) => { try { return JSON.parse(v)?.pace?.interval_ms ?? null; } catch { return null; } }).find((p) => p != null) ?? null);
      req.onerror = () => resolve(null);
    } catch { resolve(null); }
  };
}));

// ---------------------------------------------------------------------------------------------
// The 1,000-row measure.

async function measure(browser) {
  // Short runs (0.8 s); 25,000 credits against a worst case of one credit per row.
  const sandbox = await startSandbox(["--queue-ms", "200", "--process-ms", "600",
    "--rate-burst", String(BURST), "--rate-per-sec", String(RATE), "--credits", "25000"]);
  try {
    return await measureWith(browser, sandbox);
  } finally {
    sandbox.stop();
  }
}

async function measureWith(browser, sandbox) {
  const { context, page, pageErrors } = await openBulk(browser, sandbox);
  const start = await pasteKeywordRows(context, page, sandbox, { label: "bench person", rows: ROWS, maxResults: 1 });
  const checkedAt = await page.evaluate(() => performance.now());
  const pasteAt = (await page.evaluate(() => window.__bench.pastes.at(-1)));
  if (pasteAt === undefined) throw new Error("the paste was not seen on the page");

  // Everything the page sends from here on.
  const net = { submissions: 0, accepted: [], statuses: {}, limited: 0, list: 0, single: 0, afterDone: 0, other: {} };
  let done = false;
  page.on("request", (r) => {
    const path = new URL(r.url()).pathname;
    if (r.method() === "POST" && path.endsWith("/run/async")) net.submissions++;
    else if (r.method() === "GET" && (path === "/v1/runs" || /^\/v1\/runs\/[^/]+$/.test(path))) {
      if (done) net.afterDone++;
      else if (path === "/v1/runs") net.list++;
      else net.single++;
    } else if (path.startsWith("/v1/")) {
      const k = `${r.method()} ${path.replace(/\/runs\/[^/]+/, "/runs/{id}")}`;
      net.other[k] = (net.other[k] ?? 0) + 1;
    }
  });
  const answers = [];
  page.on("response", (res) => {
    const req = res.request();
    const path = new URL(res.url()).pathname;
    if (res.status() === 429) net.limited++;
    if (req.method() !== "POST" || !path.endsWith("/run/async")) return;
    net.statuses[res.status()] = (net.statuses[res.status()] ?? 0) + 1;
    if (res.status() === 200 || res.status() === 202) {
      const key = req.headers()["idempotency-key"];
      answers.push(res.json().then((run) => ({ key, id: run.id, at: Date.now() }), () => ({ key, id: null, at: Date.now() })));
    }
  });
  // The status reads' bytes: during the batch, and after it ended.
  const reads = await watchStatusReads(page, "batch");

  const before = await api(sandbox, "/v1/workspace");
  if (before.credits_balance - before.credits_reserved < ROWS) throw new Error(`only ${before.credits_balance - before.credits_reserved} credits available for ${ROWS} rows`);
  // A trace of the renderer's main thread from here: each task's wall time and its CPU time,
  // since on a loaded machine a task can be long only because the thread waited for a core.
  await browser.startTracing(page, { categories: ["toplevel", "blink.user_timing", "__metadata"] });
  const clickWall = Date.now();
  await start.click();
  await finished(page, DEADLINE_MS);
  done = true;
  reads.segment = "after";
  const counts = await pageCounts(page);
  const progress = await page.locator('[data-field="batch-progress"]').evaluate((p) => ({ value: p.value, max: p.max }));
  const marks = await page.evaluate(() => window.__bench);
  const clickedAt = marks.clicks.find((c) => c.field === "start-batch")?.at;
  const doneAt = marks.phases.find((p) => p.phase === "done")?.at;
  if (clickedAt === undefined || doneAt === undefined) throw new Error("the start click or the end of the batch was not seen on the page");

  // The merged exports, each from its click until its file is saved.
  const exports = {};
  for (const kind of ["csv", "json"]) {
    await page.waitForTimeout(500);
    const [download] = await Promise.all([page.waitForEvent("download", { timeout: 60_000 }), page.locator(`[data-field="export-${kind}"]`).click()]);
    const text = readFileSync(await download.path(), "utf8");
    await page.waitForTimeout(300); // long-task entries are delivered after the task
    const m = await page.evaluate(() => window.__bench);
    const from = m.clicks.filter((c) => c.field === `export-${kind}`).at(-1).at;
    const to = await page.evaluate(() => performance.now());
    exports[kind] = { bytes: Buffer.byteLength(text), longest_task_ms: Math.round(longest(m.longtasks, from, to)), text };
  }
  const items = JSON.parse(exports.json.text);
  const records = items.reduce((n, item) => n + item.records.length, 0);
  const csvLines = exports.csv.text.split("\r\n").filter(Boolean).length - 1;
  delete exports.csv.text; delete exports.json.text;
  const tasks = (await page.evaluate(() => window.__bench)).longtasks;
  const trace = traced(JSON.parse(await browser.stopTracing()).traceEvents);
  await context.close();

  // Made once: one run id per row key over every 200/202 submission answer, one key per line,
  // and the workspace charged exactly what those runs used (a run the page never saw would cost
  // on top); nothing left reserved; the workspace's latest runs are all the batch's.
  const seen = await Promise.all(answers);
  const idsByKey = new Map(), keysByLine = new Map();
  for (const { key, id } of seen) {
    idsByKey.set(key, new Set([...(idsByKey.get(key) ?? []), id]));
    keysByLine.set(lineOf(key), new Set([...(keysByLine.get(lineOf(key)) ?? []), key]));
  }
  const runIds = new Set(seen.map((a) => a.id).filter(Boolean));
  const runs = await readRuns(sandbox, runIds);
  const used = runs.reduce((n, r) => n + r.credits_used, 0);
  await sleep(200);
  const after = await api(sandbox, "/v1/workspace");
  const latest = (await api(sandbox, "/v1/runs")).runs;
  const lastAccepted = seen.reduce((m, a) => Math.max(m, a.at), 0);
  const status = statusTotals(reads);
  const resultBytes = runs.reduce((n, r) => n + r.bytes, 0);

  return {
    sandbox: { flags: sandbox.flags, action: ACTION, max_results: 1 },
    rows: ROWS, counts, progress, page_errors: pageErrors,
    ideal_s: IDEAL_S,
    prepare: { paste_to_checked_ms: Math.round(checkedAt - pasteAt), longest_task_ms: Math.round(longest(tasks, pasteAt, checkedAt)) },
    wall_s: (doneAt - clickedAt) / 1000,
    ratio: +((doneAt - clickedAt) / 1000 / IDEAL_S).toFixed(3),
    submissions: { sent: net.submissions, by_status: net.statuses, accepted_answers: seen.length },
    limited_429: net.limited,
    status_requests: { list: net.list, single: net.single, after_done: net.afterDone, per_row: (net.list + net.single) / ROWS },
    // With max_results 1 the results are small: shown for comparison with status-2 and status-50.
    status_bytes: { ...status, by_segment: reads.by, result_bytes: resultBytes, ratio: +(status.bytes / resultBytes).toFixed(3) },
    other_requests: net.other,
    during_batch: { longest_task_ms: Math.round(longest(tasks, clickedAt, doneAt)), tasks_over_100_ms: over(tasks, clickedAt, doneAt, 100), tasks_over_50_ms: over(tasks, clickedAt, doneAt, 50),
      // Each long task: seconds after the click, and its length.
      tasks: tasks.filter((t) => t.start >= clickedAt && t.start <= doneAt).map((t) => ({ at_s: +((t.start - clickedAt) / 1000).toFixed(2), ms: Math.round(t.duration) })) },
    exports: { ...exports, rows: items.length, records, csv_records_lines: csvLines },
    charged_once: {
      distinct_run_ids: runIds.size,
      keys: idsByKey.size,
      keys_with_several_runs: [...idsByKey.values()].filter((s) => s.size > 1).length,
      lines_with_several_keys: [...keysByLine.values()].filter((s) => s.size > 1).length,
      rows_with_a_run: keysByLine.size,
      duplicates: runIds.size - keysByLine.size,
      credits_spent: before.credits_balance - after.credits_balance,
      credits_used_by_runs: used,
      credits_reserved_after: after.credits_reserved,
      credits_used_on_page: counts.credits,
      latest_runs_not_the_batch: latest.filter((r) => !runIds.has(r.id)).length,
      runs_not_final: runs.filter((r) => !["completed", "failed", "cancelled"].includes(r.status)).length,
    },
    trace,
    last_submission_accepted_s: (lastAccepted - clickWall) / 1000,
  };
}

// ---------------------------------------------------------------------------------------------
// Status bytes ÷ result bytes, at a given rate.

/**
 * A batch on a fresh bulk page (openBulk, pasteKeywordRows), started with its status reads and
 * submissions watched from the start, counted in `segment`; `clickWall`: when the start was clicked.
 */
async function startWatchedBatch(browser, sandbox, { label, rows, maxResults, segment }) {
  const { context, page, pageErrors } = await openBulk(browser, sandbox);
  const start = await pasteKeywordRows(context, page, sandbox, { label, rows, maxResults });
  const reads = await watchStatusReads(page, segment);
  const subs = watchSubmissions(page, segment);
  const clickWall = Date.now();
  await start.click();
  return { context, page, pageErrors, reads, subs, clickWall };
}

async function statusScenario(browser, spec) {
  // Up to 100 credits a row: credits enough for every row's worst case, so nothing pauses.
  const sandbox = await startSandbox([...RUN_FLAGS, "--rate-burst", String(spec.burst), "--rate-per-sec", String(spec.rate),
    "--credits", String(Math.max(25_000, spec.rows * 100 * 2))]);
  try {
    const { context, page, pageErrors, reads, subs, clickWall } =
      await startWatchedBatch(browser, sandbox, { label: "bench person", rows: spec.rows, maxResults: 100, segment: "batch" });
    await finished(page, SCENARIO_DEADLINE_MS);
    const wall = (Date.now() - clickWall) / 1000;
    // Reads sent after the end still cost: a second more of them is counted too.
    reads.segment = subs.segment = "after";
    await page.waitForTimeout(1000);
    const counts = await pageCounts(page);
    const pace = await keptPace(page);
    await context.close();

    const seen = await Promise.all(subs.answers);
    const runIds = new Set(seen.map((a) => a.id).filter(Boolean));
    const runs = await readRuns(sandbox, runIds);
    const result = { bytes: runs.reduce((n, r) => n + r.bytes, 0), gzip_bytes: runs.reduce((n, r) => n + r.gzip_bytes, 0), runs: runs.length,
      records: runs.reduce((n, r) => n + (r.output?.length ?? 0), 0), not_final: runs.filter((r) => !["completed", "failed", "cancelled"].includes(r.status)).length };
    const status = statusTotals(reads);
    const limited = Object.values(subs.by).reduce((n, s) => n + s.limited, 0);
    const sent = Object.values(subs.by).reduce((n, s) => n + s.sent, 0);
    return {
      sandbox: { flags: sandbox.flags, action: ACTION, max_results: 100 },
      rows: spec.rows, counts, page_errors: pageErrors,
      wall_s: wall,
      // Submissions at the rate after the burst, then one run's time.
      ideal_s: Math.max(0, spec.rows - spec.burst) / spec.rate + 2.4,
      last_submission_accepted_s: ((subs.lastAcceptedAt.batch ?? clickWall) - clickWall) / 1000,
      submissions: { sent, by_segment: subs.by, rows_accepted: subs.firstAccepted.size, distinct_run_ids: runIds.size },
      limited_429: limited,
      // Each 429: seconds after the click, and the submissions accepted by then (the pace is
      // learned from those between the first two).
      limited_at: subs.limitedAt.map((at) => ({ at_s: (at - clickWall) / 1000, accepted_before: seen.filter((a) => a.at < at).length })),
      kept_pace_ms: pace,
      status: { ...status, after_done: statusTotals(reads, ["after"]).requests, by_segment: reads.by, per_row: status.requests / spec.rows },
      result,
      ratio: +(status.bytes / result.bytes).toFixed(3),
      wire_ratio: +(status.wire_bytes / result.gzip_bytes).toFixed(3),
    };
  } finally {
    sandbox.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// A reload mid-batch: 429s before and after, per 100 rows.

async function reloadScenario(browser, spec) {
  const sandbox = await startSandbox([...RUN_FLAGS, "--rate-burst", String(spec.burst), "--rate-per-sec", String(spec.rate)]);
  try {
    const { context, page, pageErrors, reads, subs, clickWall } =
      await startWatchedBatch(browser, sandbox, { label: "bench reload", rows: spec.rows, maxResults: 1, segment: "before" });
    // Reloaded once enough rows were accepted for the pace to be learned and kept (a save at
    // most every second: a second more).
    const deadline = Date.now() + SCENARIO_DEADLINE_MS;
    while (subs.firstAccepted.size < spec.reloadAfter) {
      if (Date.now() > deadline) throw new Error(`only ${subs.firstAccepted.size} rows accepted in ${SCENARIO_DEADLINE_MS / 60_000} minutes`);
      await sleep(50);
    }
    const paceBefore = await keptPace(page);
    const reloadWall = Date.now();
    reads.segment = subs.segment = "after";
    await page.reload();

    // The credential was in memory only: sign in again, and Bulk lists the unfinished batch.
    await page.waitForURL(/\/sign-in/);
    await page.getByLabel("API key or session token").fill(sandbox.api_key);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/bulk$/);
    const saved = page.locator('[data-field="saved-batches"] li[data-state="unfinished"]');
    await saved.waitFor({ timeout: 30_000 });
    const paceKept = await keptPace(page);
    const resumeWall = Date.now();
    await saved.locator('[data-field="resume-saved"]').click();
    await finished(page, Math.max(1000, deadline - Date.now()));
    const doneWall = Date.now();
    const counts = await pageCounts(page);
    await context.close();
    // One run per row across the reload: a row in flight when the page went is sent again with
    // its key, and must be answered with the run already made.
    const seen = await Promise.all(subs.answers);
    const idsByLine = new Map();
    for (const { key, id } of seen) if (id) idsByLine.set(lineOf(key), new Set([...(idsByLine.get(lineOf(key)) ?? []), id]));
    const acceptedIn = new Map();
    for (const { key, segment } of seen) acceptedIn.set(lineOf(key), new Set([...(acceptedIn.get(lineOf(key)) ?? []), segment]));

    const rowsIn = (segment) => [...subs.firstAccepted.values()].filter((s) => s === segment).length;
    const side = (segment, from) => {
      const rows = rowsIn(segment);
      const s = subs.by[segment] ?? { sent: 0, by_status: {}, limited: 0 };
      const st = statusTotals(reads, [segment]);
      const sending = ((subs.lastAcceptedAt[segment] ?? from) - from) / 1000;
      return { rows, submissions: s.sent, by_status: s.by_status, limited_429: s.limited, per_100_rows: rows ? +(s.limited / rows * 100).toFixed(2) : null,
        sending_s: sending, rows_per_s: sending > 0 ? +(rows / sending).toFixed(2) : null, status_requests: st.requests, status_bytes: st.bytes };
    };
    return {
      sandbox: { flags: sandbox.flags, action: ACTION, max_results: 1 },
      rows: spec.rows, reload_after: spec.reloadAfter, counts, page_errors: pageErrors,
      wall_s: (doneWall - clickWall) / 1000,
      reload_to_resume_s: (resumeWall - reloadWall) / 1000,
      kept_pace: { before_reload_ms: paceBefore, at_resume_ms: paceKept },
      runs: { rows_with_a_run: idsByLine.size, rows_with_several_runs: [...idsByLine.values()].filter((s) => s.size > 1).length,
        rows_accepted_before_and_after: [...acceptedIn.values()].filter((s) => s.size > 1).length },
      before: side("before", clickWall),
      after: side("after", resumeWall),
    };
  } finally {
    sandbox.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// The large batch: 10,000 rows × max_results 100 at 50 per second; time, long tasks, memory,
// exports.

/** Runs fn every ms until the returned stop is awaited (a call late behind a busy page is not made up). */
function every(ms, fn) {
  let stop = false;
  const running = (async () => {
    let next = Date.now();
    while (!stop) {
      if (Date.now() >= next) { next = Math.max(next + ms, Date.now()); await fn().catch(() => {}); }
      await sleep(Math.min(50, Math.max(0, next - Date.now())));
    }
  })();
  return async () => { stop = true; await running; };
}

/** Lines of a file (its \n bytes) without reading it into one string. */
async function countLines(path) {
  let lines = 0;
  for await (const chunk of createReadStream(path)) for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
  return lines;
}

/** A JSON Lines export's items and the records in them, a line at a time. */
async function jsonLinesRecords(path) {
  let items = 0, records = 0;
  for await (const line of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
    if (!line) continue;
    items++;
    records += JSON.parse(line).records?.length ?? 0;
  }
  return { items, records };
}

const MB = (b) => +(b / 1e6).toFixed(1);

async function largeScenario(browser, spec) {
  const deadline = Date.now() + spec.deadlineMs;
  const left = () => Math.max(1000, deadline - Date.now());
  const sandbox = await startSandbox(["--queue-ms", "200", "--process-ms", "600",
    "--rate-burst", String(spec.burst), "--rate-per-sec", String(spec.rate), "--credits", "2000000"]);
  try {
    const { context, page, pageErrors } = await openBulk(browser, sandbox);
    const consoleErrors = [];
    page.on("console", (m) => { if (m.type() === "error" && !/status of 429/.test(m.text()) && consoleErrors.length < 20) consoleErrors.push(m.text().slice(0, 300)); });
    const start = await pasteKeywordRows(context, page, sandbox, { label: "bench person", rows: spec.rows, maxResults: spec.maxResults });
    const checkedAt = await page.evaluate(() => performance.now());
    const pasteAt = await page.evaluate(() => window.__bench.pastes.at(-1));

    // Memory: the page's JS heap and DOM nodes (DevTools protocol), its wasm memory, the browser's
    // processes; at the checkpoints also after a forced garbage collection (what is kept).
    const cdp = await context.newCDPSession(page);
    await cdp.send("Performance.enable");
    const sample = async (label) => {
      const t0 = Date.now();
      const onPage = await page.evaluate(() => ({ wasm: window.__benchWasmMemory?.buffer.byteLength ?? null,
        finished: Number(document.querySelector('[data-field="batch-progress"]')?.value ?? 0) }));
      const evaluateMs = Date.now() - t0;
      const m = Object.fromEntries((await cdp.send("Performance.getMetrics")).metrics.map((x) => [x.name, x.value]));
      return { label, at_s: null, wall: Date.now(), js_heap_used: m.JSHeapUsedSize, js_heap_total: m.JSHeapTotalSize, dom_nodes: m.Nodes,
        wasm: onPage.wasm, finished: onPage.finished, evaluate_ms: evaluateMs, browser: browserMemory() };
    };
    const checkpoint = async (label) => {
      const raw = await sample(label);
      await cdp.send("HeapProfiler.collectGarbage");
      await sleep(200);
      return { raw, gc: await sample(`${label} (after GC)`) };
    };
    const points = { before: await checkpoint("before") };

    // Status reads counted from Playwright's events: a DevTools session of the bench's own with
    // the Network domain on (watchStatusReads) would keep up to about 250 MB of their bodies in
    // the renderer, measured as the page's memory (Playwright's own session keeps as much; see
    // the table's note).
    const reads = { batch: { list: 0, single: 0 }, after: { list: 0, single: 0 } };
    let readsSegment = "batch";
    page.on("request", (r) => {
      if (r.method() !== "GET") return;
      const path = new URL(r.url()).pathname;
      if (path === "/v1/runs") reads[readsSegment].list++;
      else if (/^\/v1\/runs\/[^/]+$/.test(path)) reads[readsSegment].single++;
    });
    const subs = watchSubmissions(page, "batch");
    const samples = [];
    const clickWall = Date.now();
    await start.click();
    const stopSampling = every(10_000, async () => samples.push(await sample("batch")));
    try {
      await finished(page, left());
    } finally {
      await stopSampling();
    }
    const doneWall = Date.now();
    for (const s of samples) s.at_s = +((s.wall - clickWall) / 1000).toFixed(1);
    // Reads sent after the end still cost: a second more of them is counted too.
    readsSegment = subs.segment = "after";
    await page.waitForTimeout(1000);
    const counts = await pageCounts(page);
    const marks = await page.evaluate(() => window.__bench);
    const clickedAt = marks.clicks.find((c) => c.field === "start-batch")?.at;
    const doneAt = marks.phases.find((p) => p.phase === "done")?.at;
    if (clickedAt === undefined || doneAt === undefined) throw new Error("the start click or the end of the batch was not seen on the page");
    points.after_batch = await checkpoint("after the batch");

    // The exports, one after the other, each from its click until its file is saved; meanwhile
    // a trivial evaluation every 250 ms (its round trip waits for the page's main thread) and
    // the memory every second.
    const exports = {};
    let lastDownload = Date.now();
    for (const kind of ["csv", "json", "jsonl"]) {
      await page.waitForTimeout(500);
      const button = page.locator(`[data-field="export-${kind}"]`);
      const probe = { n: 0, worst_ms: 0, over_100_ms: 0, progress_seen: 0, buttons_disabled_seen: 0 };
      const peak = { js_heap_used: 0, wasm: 0, browser_rss: 0, browser_pss: 0 };
      const stopProbe = every(250, async () => {
        const t0 = Date.now();
        const seen = await page.evaluate(() => [!!document.querySelector('[data-field="export-progress"]'), !!document.querySelector('[data-field="export-csv"]')?.disabled]);
        const ms = Date.now() - t0;
        probe.n++; probe.worst_ms = Math.max(probe.worst_ms, ms); if (ms > 100) probe.over_100_ms++;
        if (seen[0]) probe.progress_seen++;
        if (seen[1]) probe.buttons_disabled_seen++;
      });
      const stopPeak = every(1000, async () => {
        const s = await sample(kind);
        peak.js_heap_used = Math.max(peak.js_heap_used, s.js_heap_used); peak.wasm = Math.max(peak.wasm, s.wasm ?? 0);
        peak.browser_rss = Math.max(peak.browser_rss, s.browser.rss); peak.browser_pss = Math.max(peak.browser_pss, s.browser.pss);
      });
      let download, t0, tEvent, tSaved, path;
      try {
        t0 = Date.now();
        const failed = page.locator('[data-field="export-problem"]').waitFor({ timeout: left() })
          .then(async () => { throw new Error(`the ${kind} export failed: ${await page.locator('[data-field="export-problem"]').textContent()}`); }, () => new Promise(() => {}));
        [download] = await Promise.all([Promise.race([page.waitForEvent("download", { timeout: left() }), failed]), button.click()]);
        tEvent = lastDownload = Date.now();
        path = await download.path();
        tSaved = Date.now();
        await page.locator('[data-field="export-progress"]').waitFor({ state: "detached", timeout: 30_000 }).catch(() => {});
      } finally {
        await stopProbe();
        await stopPeak();
      }
      const problem = await page.locator('[data-field="export-problem"]').textContent({ timeout: 100 }).catch(() => null);
      await page.waitForTimeout(300); // long-task entries are delivered after the task
      const m = await page.evaluate(() => window.__bench);
      const from = m.clicks.filter((c) => c.field === `export-${kind}`).at(-1)?.at;
      const to = await page.evaluate(() => performance.now());
      const tasks = m.longtasks.filter((t) => t.start >= from && t.start <= to);
      const point = await checkpoint(`after the ${kind} export`);
      const file = { bytes: statSync(path).size };
      if (kind === "csv") file.lines = await countLines(path);
      if (kind === "jsonl") Object.assign(file, await jsonLinesRecords(path));
      exports[kind] = { click_to_download_s: (tEvent - t0) / 1000, click_to_saved_s: (tSaved - t0) / 1000, ...file, problem,
        longest_task_ms: Math.round(tasks.reduce((x, t) => Math.max(x, t.duration), 0)), tasks_over_50_ms: tasks.length,
        tasks: tasks.map((t) => ({ at_s: +((t.start - from) / 1000).toFixed(2), ms: Math.round(t.duration) })),
        probe, peak, after: point };
    }
    points.after_exports = exports.jsonl.after;
    // The page frees each export's file (its object URL) 60 s after the click that made it: the
    // memory once the last one is freed too.
    await sleep(Math.min(left() - 30_000, Math.max(0, lastDownload + 65_000 - Date.now())));
    points.settled = await checkpoint("65 s after the last download");
    await cdp.detach().catch(() => {});
    await context.close();

    const seen = await Promise.all(subs.answers);
    const status = { ...reads.batch, requests: reads.batch.list + reads.batch.single };
    const batchTasks = marks.longtasks.filter((t) => t.start >= clickedAt && t.start <= doneAt);
    const wall = (doneAt - clickedAt) / 1000;
    const ideal = Math.max(0, spec.rows - spec.burst) / spec.rate;
    const grow = (a, b) => ({ js_heap_used: b.js_heap_used - a.js_heap_used, wasm: (b.wasm ?? 0) - (a.wasm ?? 0), dom_nodes: b.dom_nodes - a.dom_nodes,
      browser_rss: b.browser.rss - a.browser.rss, browser_pss: b.browser.pss - a.browser.pss, renderer_pss: (b.browser.by_kind.renderer?.pss ?? 0) - (a.browser.by_kind.renderer?.pss ?? 0) });
    return {
      sandbox: { flags: sandbox.flags, action: ACTION, max_results: spec.maxResults },
      rows: spec.rows, counts, page_errors: pageErrors, console_errors: consoleErrors,
      prepare: { paste_to_checked_ms: pasteAt === undefined ? null : Math.round(checkedAt - pasteAt) },
      ideal_s: ideal,
      wall_s: wall,
      wall_s_node: (doneWall - clickWall) / 1000,
      ratio: +(wall / ideal).toFixed(3),
      last_submission_accepted_s: ((subs.lastAcceptedAt.batch ?? clickWall) - clickWall) / 1000,
      submissions: { sent: Object.values(subs.by).reduce((n, s) => n + s.sent, 0), by_segment: subs.by, rows_accepted: subs.firstAccepted.size,
        distinct_run_ids: new Set(seen.map((a) => a.id).filter(Boolean)).size },
      limited_429: Object.values(subs.by).reduce((n, s) => n + s.limited, 0),
      status: { ...status, after_done: reads.after.list + reads.after.single, per_row: status.requests / spec.rows },
      during_batch: { longest_task_ms: Math.round(batchTasks.reduce((x, t) => Math.max(x, t.duration), 0)), tasks_over_50_ms: batchTasks.length,
        tasks_over_100_ms: batchTasks.filter((t) => t.duration > 100).length,
        tasks: batchTasks.map((t) => ({ at_s: +((t.start - clickedAt) / 1000).toFixed(2), ms: Math.round(t.duration) })) },
      memory: {
        points, samples,
        growth: { batch: grow(points.before.raw, points.after_batch.raw), batch_after_gc: grow(points.before.gc, points.after_batch.gc),
          exports: grow(points.before.raw, points.after_exports.raw), exports_after_gc: grow(points.before.gc, points.after_exports.gc),
          settled_after_gc: grow(points.before.gc, points.settled.gc) },
        peak_during_batch: { browser_pss: Math.max(0, ...samples.map((s) => s.browser.pss)), browser_rss: Math.max(0, ...samples.map((s) => s.browser.rss)),
          js_heap_used: Math.max(0, ...samples.map((s) => s.js_heap_used)) },
      },
      exports,
    };
  } finally {
    sandbox.stop();
  }
}

// ---------------------------------------------------------------------------------------------

/**
 * The repeats scenario: keywords `bench repeat {n}`; rows whose number ends in 3, 6 or 9 repeat
 * an earlier row's keywords with other spacing.
 */
async function repeatsScenario(browser, spec) {
  const sandbox = await startSandbox(["--queue-ms", "200", "--process-ms", "600",
    "--rate-burst", String(spec.burst), "--rate-per-sec", String(spec.rate), "--credits", "25000"]);
  try {
    const lines = [csvLine(["keywords", "max_results"])];
    let distinct = 0;
    for (let i = 1; i <= spec.rows; i++) {
      if ([3, 6, 9].includes(i % 10)) lines.push(csvLine([`  bench   repeat ${1 + ((i * 37) % distinct)} `, 1]));
      else lines.push(csvLine([`bench repeat ${++distinct}`, 1]));
    }
    if (spec.rows - distinct !== spec.repeats) throw new Error(`${spec.rows - distinct} repeats made, not ${spec.repeats}`);
    const { context, page, pageErrors } = await openBulk(browser, sandbox);
    const start = await pasteRows(context, page, sandbox, lines, distinct);
    const subs = watchSubmissions(page, "batch");
    const before = await api(sandbox, "/v1/workspace");
    const clickWall = Date.now();
    await start.click();
    await finished(page, SCENARIO_DEADLINE_MS);
    const doneWall = Date.now();
    const counts = await pageCounts(page);
    await context.close();
    const after = await api(sandbox, "/v1/workspace");
    const seen = await Promise.all(subs.answers);
    const runIds = new Set(seen.map((s) => s.id).filter(Boolean));
    const runs = await readRuns(sandbox, [...runIds]);
    const ideal = Math.max(0, distinct - spec.burst) / spec.rate;
    const wall = (doneWall - clickWall) / 1000;
    return {
      sandbox: { flags: sandbox.flags, action: ACTION, max_results: 1 },
      rows: spec.rows, repeats: spec.repeats, distinct, counts, page_errors: pageErrors,
      wall_s: wall, ideal_s: ideal, ratio: +(wall / ideal).toFixed(3),
      keys_sent: subs.firstAccepted.size, distinct_run_ids: runIds.size,
      submissions: subs.by.batch?.sent ?? 0, limited_429: subs.by.batch?.limited ?? 0,
      credits_spent: before.credits_balance - after.credits_balance,
      credits_used_by_runs: runs.reduce((sum, run) => sum + run.credits_used, 0),
      credits_reserved_after: after.credits_reserved,
    };
  } finally {
    sandbox.stop();
  }
}

const SCENARIOS = {
  measure: (browser) => measure(browser),
  [REPEATS.name]: (browser) => repeatsScenario(browser, REPEATS),
  ...Object.fromEntries(STATUS_SCENARIOS.map((spec) => [spec.name, (browser) => statusScenario(browser, { ...spec })])),
  [RELOAD.name]: (browser) => reloadScenario(browser, RELOAD),
  [LARGE.name]: (browser) => largeScenario(browser, LARGE),
};
const unknown = ONLY.filter((name) => !SCENARIOS[name]);
if (unknown.length) {
  console.error(`bench/bulk.mjs: no scenario ${unknown.join(", ")} (there are ${Object.keys(SCENARIOS).join(", ")})`);
  process.exit(2);
}

const results = {};
const failures = {};
let browser;
try {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", headless: true, args: FLAGS });
  for (const [name, run] of Object.entries(SCENARIOS)) {
    if (ONLY.length ? !ONLY.includes(name) : OPT_IN.has(name)) continue;
    const startedAt = Date.now();
    try {
      results[name] = { ...(await run(browser)), scenario_wall_s: (Date.now() - startedAt) / 1000 };
    } catch (e) {
      console.error(`bench/bulk.mjs: ${name}: the measure could not be taken: ${e.message}`);
      failures[name] = e.message;
      // Nothing of a failed scenario goes on beside the next: its page, its trace.
      await browser.stopTracing().catch(() => {});
      for (const context of browser.contexts()) await context.close().catch(() => {});
    }
  }
} catch (e) {
  console.error(`bench/bulk.mjs: the browser did not start: ${e.message}`);
  failures.browser = e.message;
} finally {
  await browser?.close();
}

const out = {
  date: new Date().toISOString(),
  machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`,
  dist: DIST,
  aims: AIMS,
  scenarios: results,
  failures,
};
mkdirSync(join(root, "target/bench"), { recursive: true });
writeFileSync(join(root, "target/bench/bulk.json"), JSON.stringify(out, null, 2));

const mark = (ok) => (ok ? "✓" : "✗ missed");
const n = (x) => x.toLocaleString("en-US");
const kb = (b) => `${n(Math.round(b / 1000))} KB`;
console.log(`\nBulk runs ${out.date.slice(0, 10)}, ${out.machine}; console from ${DIST}`);

const m = results.measure;
if (m) {
  const c = m.charged_once;
  const ex = m.exports;
  console.log(`\n**measure**: ${n(ROWS)} rows of ${ACTION} (max_results 1), sandbox burst ${BURST}, ${RATE}/s, runs 0.8 s\n`);
  console.log("| measure | result | aim | |");
  console.log("|---|---|---|---|");
  console.log(`| click on start → every row final | ${m.wall_s.toFixed(1)} s = ${m.ratio}× the rate limit's ${IDEAL_S} s ((${n(ROWS)} − ${BURST}) ÷ ${RATE}/s) | ≤ ${AIMS.ratio}× | ${mark(m.ratio <= AIMS.ratio)} |`);
  console.log(`| … of which sending: click → last submission accepted (approx.) | ${m.last_submission_accepted_s.toFixed(1)} s | | |`);
  console.log(`| rows completed / failed; progress bar | ${n(m.counts.completed)} / ${n(m.counts.failed)}; ${n(m.progress.value)} of ${n(m.progress.max)} | | |`);
  console.log(`| 429 answers (submissions sent: ${n(m.submissions.sent)}) | ${m.limited_429} | < ${AIMS.limited} | ${mark(m.limited_429 < AIMS.limited)} |`);
  console.log(`| duplicate runs (distinct run ids in 200/202 answers − rows; charged: spent vs runs' credits_used) | ${c.duplicates} (${n(c.distinct_run_ids)} run ids for ${n(ROWS)} rows; ${n(c.credits_spent)} credits spent, ${n(c.credits_used_by_runs)} used by the runs, ${c.credits_reserved_after} reserved after) | ${AIMS.duplicates} | ${mark(c.duplicates === 0 && c.keys_with_several_runs === 0 && c.lines_with_several_keys === 0 && c.credits_spent === c.credits_used_by_runs && c.credits_reserved_after === 0 && c.latest_runs_not_the_batch === 0)} |`);
  console.log(`| status requests per row (GET /v1/runs + GET /v1/runs/{id}) | ${m.status_requests.per_row.toFixed(3)} (${m.status_requests.list} + ${m.status_requests.single}; ${m.status_requests.after_done} after the end) | < ${AIMS.statusPerRow} | ${mark(m.status_requests.per_row < AIMS.statusPerRow)} |`);
  console.log(`| status bytes ÷ result bytes (1 record a run; for comparison) | ${m.status_bytes.ratio} (${kb(m.status_bytes.bytes)} ÷ ${kb(m.status_bytes.result_bytes)}) | | |`);
  console.log(`| longest main-thread task while the batch runs | ${m.during_batch.longest_task_ms || "none over 50"} ms (${m.during_batch.tasks_over_100_ms} over 100 ms, ${m.during_batch.tasks_over_50_ms} over 50 ms) | none over ${AIMS.longTaskMs} ms | ${mark(m.during_batch.tasks_over_100_ms === 0)} |`);
  const tb = m.trace?.batch;
  if (tb) console.log(`| … the same from a trace: longest task, wall (its CPU time); longest CPU time; main thread's CPU time in all | ${tb.longest_wall_ms} ms (${tb.its_cpu_ms} ms); ${tb.longest_cpu_ms} ms; ${tb.busy_cpu_s} s of ${m.wall_s.toFixed(1)} s | | |`);
  const tr = (t) => (t ? ` (trace: ${t.longest_wall_ms} ms wall, ${t.its_cpu_ms} ms CPU)` : "");
  console.log(`| longest task, CSV export of ${n(ex.records)} records (${n(ex.rows)} rows, ${(ex.csv.bytes / 1000).toFixed(0)} KB) | ${ex.csv.longest_task_ms || "none over 50"} ms${tr(m.trace?.export_csv)} | ≤ ${AIMS.longTaskMs} ms | ${mark(ex.csv.longest_task_ms <= AIMS.longTaskMs)} |`);
  console.log(`| longest task, JSON export of ${n(ex.records)} records (${(ex.json.bytes / 1000).toFixed(0)} KB) | ${ex.json.longest_task_ms || "none over 50"} ms${tr(m.trace?.export_json)} | ≤ ${AIMS.longTaskMs} ms | ${mark(ex.json.longest_task_ms <= AIMS.longTaskMs)} |`);
  console.log(`| paste ${n(ROWS)} rows (Ctrl+V) → every row checked (longest task) | ${m.prepare.paste_to_checked_ms} ms (${m.prepare.longest_task_ms || "none over 50"} ms) | | |`);
  if (m.page_errors.length) console.log(`\nPage errors: ${m.page_errors.join("; ")}`);
}

for (const spec of STATUS_SCENARIOS) {
  const s = results[spec.name];
  if (!s) continue;
  console.log(`\n**${spec.name}**: ${n(s.rows)} rows of ${ACTION} (max_results 100), sandbox burst ${spec.burst}, ${spec.rate}/s, runs 2.4 s (0.6 s queued, 1.8 s processing)\n`);
  console.log("| measure | result | aim | |");
  console.log("|---|---|---|---|");
  console.log(`| status bytes ÷ result bytes (decoded bodies) | ${s.ratio} (${kb(s.status.bytes)}: lists ${kb(s.status.list_bytes)}, single runs ${kb(s.status.single_bytes)} ÷ ${kb(s.result.bytes)} of ${n(s.result.runs)} finished runs) | ≤ ${AIMS.statusBytes} | ${mark(s.ratio <= AIMS.statusBytes)} |`);
  console.log(`| status requests per row (GET /v1/runs + GET /v1/runs/{id}) | ${s.status.per_row.toFixed(3)} (${n(s.status.list)} + ${n(s.status.single)}; ${s.status.after_done} after the end; ${s.status.failed} failed) | < ${AIMS.statusPerRow} | ${mark(s.status.per_row < AIMS.statusPerRow)} |`);
  console.log(`| … on the wire: status (gzip, with headers) ÷ results (gzipped here) | ${s.wire_ratio} (${kb(s.status.wire_bytes)} ÷ ${kb(s.result.gzip_bytes)}) | | |`);
  console.log(`| records in the results (average a run) | ${n(s.result.records)} (${(s.result.records / Math.max(1, s.result.runs)).toFixed(1)}) | | |`);
  console.log(`| click on start → every row final (the rate's ideal, one run's time after the last) | ${s.wall_s.toFixed(1)} s (${s.ideal_s.toFixed(1)} s); last submission accepted at ${s.last_submission_accepted_s.toFixed(1)} s (${(s.submissions.rows_accepted / s.last_submission_accepted_s).toFixed(1)} rows/s) | | |`);
  console.log(`| rows completed / failed | ${n(s.counts.completed)} / ${n(s.counts.failed)} | | |`);
  console.log(`| 429 answers (submissions sent: ${n(s.submissions.sent)}); the pace learned (kept with the batch) | ${s.limited_429}; ${s.kept_pace_ms ? `${(1000 / s.kept_pace_ms).toFixed(1)}/s` : "none"} | | |`);
  if (s.page_errors.length) console.log(`\nPage errors: ${s.page_errors.join("; ")}`);
}

const r = results[RELOAD.name];
if (r) {
  const pace = (ms) => (ms ? `${(1000 / ms).toFixed(2)}/s` : "none");
  const ok = (side) => side.per_100_rows !== null && side.per_100_rows < AIMS.limitedPer100;
  // The aim is the reload's: before it, the first 429s are how the pace is learned at all.
  console.log(`\n**${RELOAD.name}**: ${n(r.rows)} rows of ${ACTION} (max_results 1), sandbox burst ${RELOAD.burst}, ${RELOAD.rate}/s; reloaded after ${r.reload_after} rows accepted, signed in again and resumed (${r.reload_to_resume_s.toFixed(1)} s later)\n`);
  console.log("| measure | before the reload | after | aim |");
  console.log("|---|---|---|---|");
  console.log(`| 429 answers per 100 rows | ${r.before.per_100_rows ?? "–"} (learning the pace) | ${r.after.per_100_rows ?? "–"} ${mark(ok(r.after))} | < ${AIMS.limitedPer100} after |`);
  console.log(`| 429 answers; rows first accepted; submissions sent | ${r.before.limited_429}; ${r.before.rows}; ${r.before.submissions} | ${r.after.limited_429}; ${r.after.rows}; ${r.after.submissions} | |`);
  console.log(`| sending: rows per second (click or resume → last accepted) | ${r.before.rows_per_s ?? "–"} (${r.before.sending_s.toFixed(1)} s) | ${r.after.rows_per_s ?? "–"} (${r.after.sending_s.toFixed(1)} s) | ${RELOAD.rate}/s |`);
  console.log(`| the pace kept with the batch (IndexedDB) | ${pace(r.kept_pace.before_reload_ms)} | ${pace(r.kept_pace.at_resume_ms)} at the resume | |`);
  console.log(`| status requests | ${r.before.status_requests} | ${r.after.status_requests} | |`);
  console.log(`| rows completed / failed at the end; rows with more than one run (sent again after the reload) | | ${n(r.counts.completed)} / ${n(r.counts.failed)}; ${r.runs.rows_with_several_runs} (${r.runs.rows_accepted_before_and_after}) | 0 |`);
  if (r.page_errors.length) console.log(`\nPage errors: ${r.page_errors.join("; ")}`);
}

const rp = results[REPEATS.name];
if (rp) {
  console.log(`\n**${REPEATS.name}**: ${n(rp.rows)} rows of ${ACTION} (max_results 1), ${n(rp.repeats)} of them repeating an earlier row's keywords spaced otherwise; sandbox burst ${REPEATS.burst}, ${REPEATS.rate}/s, runs 0.8 s\n`);
  console.log("| measure | result | aim | |");
  console.log("|---|---|---|---|");
  console.log(`| runs made (distinct run ids; rows sent with a key) | ${n(rp.distinct_run_ids)} (${n(rp.keys_sent)} rows) | ${n(rp.distinct)} | ${mark(rp.distinct_run_ids === rp.distinct && rp.keys_sent === rp.distinct)} |`);
  console.log(`| credits spent (balance) = the runs' credits_used; reserved after | ${n(rp.credits_spent)} = ${n(rp.credits_used_by_runs)}; ${rp.credits_reserved_after} | equal, 0 | ${mark(rp.credits_spent === rp.credits_used_by_runs && rp.credits_reserved_after === 0)} |`);
  console.log(`| click on start → every row final | ${rp.wall_s.toFixed(1)} s = ${rp.ratio}× the rate limit's ${rp.ideal_s} s for the ${n(rp.distinct)} distinct rows ((${n(rp.distinct)} − ${REPEATS.burst}) ÷ ${REPEATS.rate}/s) | ≤ ${AIMS.ratio}× | ${mark(rp.ratio <= AIMS.ratio)} |`);
  console.log(`| rows completed / repeats / failed; 429 answers (submissions sent) | ${n(rp.counts.completed)} / ${n(rp.counts.repeat)} / ${n(rp.counts.failed)}; ${rp.limited_429} (${n(rp.submissions)}) | | |`);
  if (rp.page_errors.length) console.log(`\nPage errors: ${rp.page_errors.join("; ")}`);
}

const L = results[LARGE.name];
if (L) {
  const a = LARGE.aims;
  const mb = (b) => `${(b / 1e6).toFixed(0)} MB`;
  const signed = (b) => `${b >= 0 ? "+" : "−"}${mb(Math.abs(b))}`;
  const p = L.memory.points, g = L.memory.growth;
  const tasks = (list) => list.length ? ` at ${list.slice().sort((x, y) => y.ms - x.ms).slice(0, 5).map((t) => `${t.at_s} s (${t.ms} ms)`).join(", ")}${list.length > 5 ? ", …" : ""}` : "";
  const mem = (f) => [p.before, p.after_batch, p.after_exports, p.settled].map((x) => f(x.gc)).join(" → ");
  const exportPeak = (k) => Math.max(...Object.values(L.exports).map((e) => e.peak[k]));
  const grewOk = g.batch_after_gc.browser_pss <= a.memoryMB * 1e6 && g.settled_after_gc.browser_pss <= a.memoryMB * 1e6;
  console.log(`\n**${LARGE.name}**: ${n(L.rows)} rows of ${ACTION} (max_results ${LARGE.maxResults}), sandbox burst ${LARGE.burst}, ${LARGE.rate}/s, runs 0.8 s\n`);
  console.log("| measure | result | aim | |");
  console.log("|---|---|---|---|");
  console.log(`| click on start → every row final | ${L.wall_s.toFixed(1)} s = ${L.ratio}× the rate limit's ${L.ideal_s} s ((${n(L.rows)} − ${LARGE.burst}) ÷ ${LARGE.rate}/s); last submission accepted at ${L.last_submission_accepted_s.toFixed(1)} s | ≤ ${a.ratio}× | ${mark(L.ratio <= a.ratio)} |`);
  console.log(`| rows completed / failed; records shown | ${n(L.counts.completed)} / ${n(L.counts.failed)}; ${n(L.counts.records)} | | |`);
  console.log(`| 429 answers (submissions sent: ${n(L.submissions.sent)}; distinct runs: ${n(L.submissions.distinct_run_ids)}) | ${L.limited_429} | | |`);
  console.log(`| status requests per row (GET /v1/runs + GET /v1/runs/{id}) | ${L.status.per_row.toFixed(3)} (${n(L.status.list)} + ${n(L.status.single)}; ${L.status.after_done} after the end) | < ${AIMS.statusPerRow} | ${mark(L.status.per_row < AIMS.statusPerRow)} |`);
  console.log(`| main-thread tasks over 50 ms while the batch runs (longest) | ${L.during_batch.tasks_over_50_ms} (${L.during_batch.longest_task_ms || "none over 50"} ms)${tasks(L.during_batch.tasks)} | none | ${mark(L.during_batch.tasks_over_50_ms === 0)} |`);
  console.log(`| browser's memory: PSS (RSS) of all ${p.before.gc.browser.processes} Chromium processes, after GC: before → after the batch → after the exports → 65 s later (files freed) | ${mem((x) => `${mb(x.browser.pss)} (${mb(x.browser.rss)})`)} | | |`);
  console.log(`| … growth: after the batch; after the exports; 65 s later. Peak in the batch; in the exports | ${signed(g.batch_after_gc.browser_pss)} (${signed(g.batch_after_gc.browser_rss)}); ${signed(g.exports_after_gc.browser_pss)} (${signed(g.exports_after_gc.browser_rss)}); ${signed(g.settled_after_gc.browser_pss)} (${signed(g.settled_after_gc.browser_rss)}). ${mb(L.memory.peak_during_batch.browser_pss)} (${mb(L.memory.peak_during_batch.browser_rss)}); ${mb(exportPeak("browser_pss"))} (${mb(exportPeak("browser_rss"))}) | grows ≤ ${a.memoryMB} MB¹ | ${mark(grewOk)} |`);
  const kinds = [...new Set([p.before, p.after_batch, p.after_exports, p.settled].flatMap((x) => Object.keys(x.gc.browser.by_kind)))];
  console.log(`| … PSS by process: ${kinds.join(", ")} | ${[p.before, p.after_batch, p.after_exports, p.settled].map((x) => kinds.map((k) => mb(x.gc.browser.by_kind[k]?.pss ?? 0).replace(" MB", "")).join("/")).join(" → ")} MB | | |`);
  console.log(`| page's JS heap used (after GC; without GC after the batch: ${mb(p.after_batch.raw.js_heap_used)}); peak in the batch | ${mem((x) => mb(x.js_heap_used))}; ${mb(L.memory.peak_during_batch.js_heap_used)} | | |`);
  console.log(`| page's wasm memory; DOM nodes | ${mem((x) => (x.wasm == null ? "?" : mb(x.wasm)))}; ${mem((x) => n(x.dom_nodes))} | | |`);
  for (const [kind, e] of Object.entries(L.exports)) {
    const what = kind === "csv" ? `${n(e.lines - 1)} records (lines − header; page: ${n(L.counts.records)})` : kind === "jsonl" ? `${n(e.items)} rows, ${n(e.records)} records` : "";
    console.log(`| export ${kind.toUpperCase()}: click → download (→ saved); size${what ? "; records" : ""} | ${e.click_to_download_s.toFixed(1)} s (${e.click_to_saved_s.toFixed(1)} s); ${mb(e.bytes)}${what ? "; " + what : ""} | ≤ ${a.exportS} s | ${mark(e.click_to_saved_s <= a.exportS)} |`);
    console.log(`| … tasks over 50 ms (longest 5, s after the click); worst round trip of ${e.probe.n} evaluations every 250 ms (over 100 ms); progress shown / buttons disabled in | ${e.tasks_over_50_ms} (${e.longest_task_ms || "none over 50"} ms)${tasks(e.tasks)}; ${e.probe.worst_ms} ms (${e.probe.over_100_ms}); ${e.probe.progress_seen} / ${e.probe.buttons_disabled_seen} of them | none over ${a.longTaskMs} ms | ${mark(e.tasks_over_50_ms === 0)} |`);
  }
  console.log(`| paste ${n(L.rows)} rows (Ctrl+V) → every row checked | ${L.prepare.paste_to_checked_ms} ms | | |`);
  console.log(`\n¹ PSS after the batch and 65 s after the exports. Playwright's own DevTools session (Network domain on) keeps up to about 250 MB of response bodies in the renderer, which counts here: without it the renderer grew 6 MB over 267 MB of status bodies.`);
  if (L.page_errors.length) console.log(`\nPage errors: ${L.page_errors.join("; ")}`);
  if (L.console_errors.length) console.log(`\nConsole errors: ${L.console_errors.join("; ")}`);
}

if (Object.keys(failures).length) {
  console.log(`\nNot measured: ${Object.entries(failures).map(([k, v]) => `${k} (${v})`).join("; ")}`);
  process.exitCode = 1;
}
