// Benchmark: the run history this browser keeps (IndexedDB, database "console", store "runs") at
// 100,000 runs, as issue 25 measures it: /runs with 100,000 archived runs, the first screenful
// after an in-app navigation (aim ≤ 100 ms), a filter or a search (aim ≤ 100 ms), the page's
// memory; and importing 100,000 runs (aim ≤ 10 s).
//
// One sandbox, one headless Chromium (Playwright). The runs are written straight into the
// console's IndexedDB from a page of the sandbox's origin (/sign-in), as the console keeps them
// (`model::archive::KeptRun`: the run as the API answers it with its output left out, its record
// count, when it was seen, for some the input sent), in transactions of 5,000: several actions,
// mostly completed, some failed (with an error), a few cancelled, created over the last 90 days,
// two in five with an input whose keywords a search can find; and 100 runs made through the API
// just before (newer than every kept run: the API's latest 100, as a workspace with a history
// has). Then, signed in as a person would:
// - /runs from /workspace inside the app (history.pushState and popstate, as the router follows
//   a link), three times (back to /workspace in between): from the navigation until the first
//   row is in the table (the first screenful: the API's newest 100 under the default order), and
//   until the count line says every kept run is listed, and the frame after it
//   (requestAnimationFrame);
// - the Status filter set to "failed" and back to "All", a search (Search, a keyword, Enter) and
//   its clearing, the sort by "Credits used" (its heading's link; descending, ascending, …),
//   three times each: from the change (the select's change, the Enter key, the click, on the
//   page's clock) until the count line (the sorted heading for the sort) says the new view;
// - the longest main-thread long task (PerformanceObserver "longtask") in each of those steps;
// - for comparison, the floor under the first screenful: the same runs read from IndexedDB by
//   JavaScript (one getAll over the workspace's key range, as the console reads them), and
//   parsed with JSON.parse;
// - memory after a forced garbage collection: the page's JS heap and DOM nodes (DevTools
//   Performance.getMetrics), the console's wasm memory, the renderer's and the whole browser's
//   memory without file pages (bench/lib/memory.mjs), at /workspace before /runs, on /runs after
//   its first screenful, after the filters, and after the import;
// - /storage: "Export the history", from the click until the download (Playwright's download
//   event; and until the page made the file's object URL, on its clock), the file's size; then the
//   same file imported through the page's file input ([data-field="import-file"]), from its change
//   until the report says "Imported …". The file holds the runs already kept: every run is read,
//   merged and found as kept (nothing is written back); then, after "Forget", the same file into
//   an empty history, which writes every run.
//
// Not part of the test suite's pass/fail: an aim missed is printed, not fatal. A step that does
// not finish within its time limit is recorded as timed out and the next steps go on. The script
// exits non-zero only when a measure could not be taken (the sandbox or the page did not come up,
// the runs could not be written, the export did not download and so nothing could be imported).
// Usage (after a release build of the console and of the sandbox; a few minutes at 100,000):
//   node bench/history.mjs [runs]
// runs: the kept runs to write (default 100,000). BENCH_DIST: the built console to serve (default
// dist/; relative to the repository), e.g. a copy kept aside while dist/ is rebuilt. SANDBOX_BIN:
// the sandbox (default target/release/sandbox, else target/debug/sandbox). CHROMIUM: the browser
// (default /usr/bin/chromium). Writes target/bench/history.json and prints a Markdown table.
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import os from "node:os";
import { chromium } from "playwright-core";
import { browserMemory } from "./lib/memory.mjs";
import { CHROMIUM, DIST, measure, resultsHeader, root, sleep, startSandbox, writeResults } from "./lib/cdp.mjs";

const SCRIPT = "bench/history.mjs";
const RUNS = Number(process.argv[2] ?? 100_000);
const FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const AIMS = { screenfulMs: 100, filterMs: 100, importS: 10 };
/** Runs made through the API before the measures: the list's latest 100. */
const API_RUNS = 100;
const REPEATS = 3;
/** Runs written per IndexedDB transaction. */
const PER_TRANSACTION = 5_000;
/** What a search looks for: one of the seeded keywords. */
const SEARCH = "rust developer";
// Time limits: each timed step, the export's download, the import's report.
const STEP_TIMEOUT_MS = 60_000;
const EXPORT_TIMEOUT_MS = 120_000;
const IMPORT_TIMEOUT_MS = 180_000;
const WATCHDOG_MS = 20 * 60_000;

if (!process.env.SANDBOX_BIN && !existsSync(join(root, "target/release/sandbox")) && existsSync(join(root, "target/debug/sandbox"))) {
  process.env.SANDBOX_BIN = join(root, "target/debug/sandbox");
}

/** A step that did not finish within its time limit: recorded as such, the next steps go on. */
class TimedOut extends Error {}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const group = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
const mb = (bytes) => (bytes == null ? "–" : `${(bytes / 2 ** 20).toFixed(1)} MB`);

/**
 * Installed before the console loads. The page's state as the benchmark reads it (the count line,
 * the first row, the sorted heading, the export's note and the import's report, the path), kept
 * each time it changes with when (on the page's clock) and the frame after; the events that start
 * a step (click, change, Enter); long tasks; when an object URL is made (the export's file).
 */
function instrument() {
  const bench = (window.__bench = { states: [], events: [], longtasks: [], objectUrls: [] });
  addEventListener("TrunkApplicationStarted", (e) => { window.__benchWasmMemory = e.detail?.wasm?.memory; });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) bench.longtasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: "longtask", buffered: true });
  for (const type of ["click", "change", "keydown"]) {
    addEventListener(type, (e) => {
      if (type === "keydown" && e.key !== "Enter") return;
      const t = e.target;
      bench.events.push({ type, at: performance.now(), id: t?.id ?? "", field: t?.closest?.("[data-field]")?.dataset.field ?? "", text: (t?.textContent ?? "").trim().slice(0, 40) });
    }, true);
  }
  const createObjectURL = URL.createObjectURL;
  URL.createObjectURL = function (blob) {
    bench.objectUrls.push({ at: performance.now(), size: blob?.size ?? null });
    return createObjectURL.call(URL, blob);
  };
  const q = (s) => document.querySelector(s);
  const snapshot = () => {
    const th = q('[data-field="runs-table"] th[aria-sort]');
    return {
      path: location.pathname + location.search,
      count: q('[data-field="runs-count"]')?.textContent ?? null,
      first: q('[data-field="runs-table"] tbody tr')?.dataset.run ?? null,
      sort: th ? `${th.querySelector("a")?.textContent.trim()} ${th.getAttribute("aria-sort")}` : null,
      exportNote: q('[data-field="export-note"]')?.textContent || null,
      report: q('[data-field="import-report"]')?.textContent ?? null,
    };
  };
  let last = {};
  const seen = () => {
    const s = snapshot();
    if (Object.keys(s).some((k) => s[k] !== last[k])) {
      const entry = { at: performance.now(), frame: null, ...s };
      bench.states.push(entry);
      requestAnimationFrame(() => { entry.frame = performance.now(); });
    }
    last = s;
  };
  const watch = () => new MutationObserver(seen).observe(document, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ["aria-sort", "data-run"] });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", watch); else watch();
  addEventListener("popstate", () => queueMicrotask(seen));
}

/**
 * Writes `n` kept runs of workspace `ws` into the console's IndexedDB, in the page (a page of the
 * sandbox's origin), opening it at version 3 as the console does (its five stores created if
 * missing: out-of-line string keys, no indexes). Deterministic (a seeded generator). Resolves
 * with what it wrote: the count read back, the keyword runs, the failed runs, the time taken.
 */
async function seedRuns(page, ws, n, perTransaction) {
  return page.evaluate(async ({ ws, n, perTransaction }) => {
    const started = performance.now();
    let seed = 0x2545f491;
    const random = () => { seed ^= seed << 13; seed >>>= 0; seed ^= seed >>> 17; seed ^= seed << 5; seed >>>= 0; return seed / 2 ** 32; };
    const pick = (xs) => xs[Math.floor(random() * xs.length)];
    const hex = (k) => Array.from({ length: k }, () => Math.floor(random() * 16).toString(16)).join("");
    const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-${pick(["8", "9", "a", "b"])}${hex(3)}-${hex(12)}`;
    const ACTIONS = ["premium-search-people", "premium-search-person", "premium-search-companies", "premium-search-company-employees",
      "network-search-companies", "network-extract-people", "network-extract-company", "network-search-content"];
    const KEYWORDS = ["data engineer", "product manager", "sales director", "rust developer", "nurse", "marketing lead",
      "site reliability engineer", "recruiter", "chief financial officer", "ux designer", "account executive", "biologist"];
    const PLACES = ["paris", "berlin", "london", "new york", "lisbon", "toronto", "remote"];
    const ERRORS = [["provider_error", "The provider could not complete the run."],
      ["provider_timeout", "The provider did not answer in time."],
      ["invalid_input", "The input was refused by the provider."]];
    const now = Date.now();
    const span = 90 * 86_400_000;
    const iso = (ms) => new Date(ms).toISOString();
    let keywordRuns = 0, failed = 0, searchHits = 0, oldest = now;
    const make = () => {
      const id = uuid();
      const action = pick(ACTIONS);
      const r = random();
      const status = r < 0.9 ? "completed" : r < 0.98 ? "failed" : "cancelled";
      const created = now - Math.floor(random() * span);
      oldest = Math.min(oldest, created);
      const records = status === "completed" ? Math.floor(random() * 101) : 0;
      const run = {
        id, action, status, output: [],
        credits_used: status === "completed" ? records * (action.startsWith("premium") ? 2 : 1) : 0,
        credits_reserved: 0,
        created_at: iso(created),
        completed_at: iso(created + 500 + Math.floor(random() * 60_000)),
        completeness: { has_more: random() < 0.3, scope: "single_page" },
      };
      if (status === "failed") { const [code, message] = pick(ERRORS); run.error = { code, message }; failed++; }
      const kept = { workspace: ws, run, records, seen_at: created + 60_000 + Math.floor(random() * 3_600_000) };
      if (random() < 0.4) {
        const keywords = `${pick(KEYWORDS)} ${pick(PLACES)}`;
        kept.input = action.startsWith("premium-search") || action === "network-search-companies" || action === "network-search-content"
          ? { keywords, max_results: pick([10, 25, 50, 100]) }
          : { profile_url: `https://www.network.com/in/${hex(10)}`, note: keywords };
        keywordRuns++;
        if (keywords.includes("rust developer")) searchHits++;
      }
      return [`${ws}/${id}`, JSON.stringify(kept)];
    };
    const db = await new Promise((resolve, reject) => {
      const request = indexedDB.open("console", 3);
      request.onupgradeneeded = () => {
        for (const name of ["batches", "rows", "submissions", "runs", "meta"]) {
          if (!request.result.objectStoreNames.contains(name)) request.result.createObjectStore(name);
        }
      };
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
      request.onblocked = () => reject(new Error("opening the console's database was blocked"));
    });
    const done = (tx) => new Promise((resolve, reject) => {
      tx.oncomplete = resolve;
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error ?? new Error("transaction aborted"));
    });
    try {
      for (let written = 0; written < n;) {
        const tx = db.transaction(["runs"], "readwrite");
        const store = tx.objectStore("runs");
        const k = Math.min(perTransaction, n - written);
        for (let i = 0; i < k; i++) { const [key, value] = make(); store.put(value, key); }
        await done(tx);
        written += k;
      }
      const tx = db.transaction(["meta", "runs"], "readwrite");
      tx.objectStore("meta").put(JSON.stringify(oldest), `${ws}/since`);
      const counted = tx.objectStore("runs").count(IDBKeyRange.bound(`${ws}/`, `${ws}0`));
      await done(tx);
      return { kept: counted.result, keyword_runs: keywordRuns, failed, search_hits: searchHits, seconds: +((performance.now() - started) / 1000).toFixed(2) };
    } finally {
      db.close();
    }
  }, { ws, n, perTransaction });
}

/** What the count line says: matching and listed runs. */
function countOf(text) {
  const m = /^([\d,]+) matching runs?; ([\d,]+) listed/.exec(text ?? "");
  return m ? { matching: Number(m[1].replaceAll(",", "")), listed: Number(m[2].replaceAll(",", "")) } : null;
}

/**
 * The first state recorded at or after `since` (page clock) that `want` describes, waited for up
 * to `timeoutMs` (then TimedOut). `want`: data, not code (the console's CSP forbids eval):
 * listed (the count line lists that many runs, and a row is shown), matching (as many match, and
 * a row is shown), countNot (the count line is
 * there and says something else), sort (the sorted heading), path, exportNote / report (prefix).
 */
async function stateAfter(page, since, want, timeoutMs, what) {
  try {
    const handle = await page.waitForFunction(({ since, want }) => {
      const listed = (t) => Number(/([\d,]+) listed/.exec(t ?? "")?.[1].replaceAll(",", "") ?? NaN);
      const matching = (t) => Number(/^([\d,]+) matching/.exec(t ?? "")?.[1].replaceAll(",", "") ?? NaN);
      return window.__bench.states.find((s) => s.at >= since
        && (want.listed === undefined || (listed(s.count) === want.listed && s.first !== null))
        && (want.matching === undefined || (matching(s.count) === want.matching && s.first !== null))
        && (want.countNot === undefined || (s.count !== null && s.first !== null && s.count !== want.countNot))
        && (want.sort === undefined || s.sort === want.sort)
        && (want.path === undefined || s.path === want.path)
        && (want.exportNote === undefined || s.exportNote?.startsWith(want.exportNote))
        && (want.report === undefined || s.report?.startsWith(want.report))) ?? null;
    }, { since, want }, { timeout: timeoutMs, polling: 50 });
    const state = await handle.jsonValue();
    // The frame after it: its requestAnimationFrame may still be to come.
    if (state.frame === null) {
      await sleep(50);
      state.frame = await page.evaluate((at) => window.__bench.states.find((s) => s.at === at)?.frame ?? null, state.at);
    }
    return state;
  } catch (e) {
    if (e.name === "TimeoutError" || /Timeout/.test(e.message)) throw new TimedOut(`${what}: not within ${timeoutMs / 1000} s`);
    throw e;
  }
}

/** The first event of this type (and id, field or text) at or after `since`, on the page's clock. */
async function eventAfter(page, since, match) {
  return page.evaluate(({ since, match }) => window.__bench.events.find((e) => e.at >= since && e.type === match.type
    && (match.id === undefined || e.id === match.id)
    && (match.field === undefined || e.field === match.field)
    && (match.text === undefined || e.text.startsWith(match.text))) ?? null, { since, match });
}

/**
 * The longest long task that overlaps [from, to] (page clock), ms; 0 when none. Overlaps, not
 * starts within: the event that starts a step is handled in a task that began before it.
 */
async function longestTask(page, from, to) {
  await sleep(200); // reported after the task ends
  return page.evaluate(({ from, to }) => Math.round(window.__bench.longtasks
    .filter((t) => t.start <= to && t.start + t.duration >= from).reduce((m, t) => Math.max(m, t.duration), 0)), { from, to });
}

/**
 * The floor under /runs' first screenful: the workspace's kept runs read as the console reads
 * them (one getAll over the key range, in a connection of this script's own), then parsed with
 * JSON.parse, in JavaScript; ms each.
 */
async function readFloor(page, ws) {
  return page.evaluate(async (ws) => {
    // At whatever version the console has upgraded it to by now (src/store.rs VERSION).
    const db = await new Promise((resolve, reject) => {
      const request = indexedDB.open("console");
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    try {
      const t0 = performance.now();
      const values = await new Promise((resolve, reject) => {
        const request = db.transaction("runs").objectStore("runs").getAll(IDBKeyRange.bound(`${ws}/`, `${ws}0`));
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      const t1 = performance.now();
      let parsed = 0;
      for (const v of values) parsed += JSON.parse(v).records >= 0 ? 1 : 0;
      const t2 = performance.now();
      return { runs: values.length, parsed, chars: values.reduce((n, v) => n + v.length, 0), get_all_ms: Math.round(t1 - t0), json_parse_ms: Math.round(t2 - t1) };
    } finally {
      db.close();
    }
  }, ws);
}

const now = (page) => page.evaluate(() => performance.now());

/** The page's memory after a forced garbage collection, and the browser's (bench/lib/memory.mjs). */
async function memoryAt(page, cdp, label) {
  await cdp.send("HeapProfiler.collectGarbage");
  await sleep(300);
  const { metrics } = await cdp.send("Performance.getMetrics");
  const m = Object.fromEntries(metrics.map((x) => [x.name, x.value]));
  const wasm = await page.evaluate(() => window.__benchWasmMemory?.buffer.byteLength ?? null);
  const browser = browserMemory();
  return {
    label,
    js_heap_used: m.JSHeapUsedSize,
    js_heap_total: m.JSHeapTotalSize,
    dom_nodes: m.Nodes,
    wasm_memory: wasm,
    renderer_anon: browser.by_kind.renderer?.anon ?? null,
    browser_anon: browser.anon,
  };
}

/** In the app, as the router follows a link: no load, the session stays. Resolves with the page's clock before it. */
const goInApp = (page, path) => page.evaluate((path) => {
  const at = performance.now();
  history.pushState({}, "", path);
  dispatchEvent(new PopStateEvent("popstate"));
  return at;
}, path);

/** Runs a timed step; a TimedOut is recorded as its result, anything else is thrown. */
async function timed(results, name, step) {
  try {
    const r = await step();
    results.push({ ...r, timed_out: false });
    return r;
  } catch (e) {
    if (!(e instanceof TimedOut)) throw e;
    console.error(`${SCRIPT}: ${name}: ${e.message}`);
    results.push({ timed_out: true, error: e.message });
    return null;
  }
}

async function run() {
  // A burst large enough to make the API's latest 100 runs at once, and quick runs.
  const sandbox = await startSandbox(["--rate-burst", "500", "--queue-ms", "50", "--process-ms", "100"]);
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  try {
    const out = {
      ...resultsHeader(browser.version()),
      chromium_flags: FLAGS,
      sandbox: process.env.SANDBOX_BIN ?? join(root, "target/release/sandbox"),
      runs: RUNS,
      aims: AIMS,
    };
    const res = await fetch(`${sandbox.url}/v1/workspace`, { headers: { authorization: `Bearer ${sandbox.api_key}` } });
    if (!res.ok) throw new Error(`GET /v1/workspace: ${res.status}`);
    const ws = (await res.json()).workspace_id;
    out.workspace = ws;

    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, acceptDownloads: true });
    const page = await context.newPage();
    const pageErrors = [];
    const consoleErrors = [];
    page.on("pageerror", (e) => pageErrors.push(e.message));
    page.on("console", (m) => { if (m.type() === "error") consoleErrors.push(m.text()); });
    await page.addInitScript(instrument);
    const cdp = await context.newCDPSession(page);
    await cdp.send("Performance.enable");

    // The history, written as the console keeps it, from the console's origin.
    await page.goto(`${sandbox.url}/sign-in`);
    await page.getByLabel("API key or session token").waitFor({ timeout: 30_000 });
    out.seed = await seedRuns(page, ws, RUNS, PER_TRANSACTION);
    if (out.seed.kept !== RUNS) throw new Error(`${out.seed.kept} runs kept after writing ${RUNS}`);
    console.error(`${SCRIPT}: ${group(RUNS)} runs written in ${out.seed.seconds} s`);

    // The API's own latest 100 runs, made now (so newer than every kept run), as a workspace
    // with a history has: the first page of /runs, newest first, is theirs.
    for (let i = 0; i < API_RUNS; i++) {
      const made = await fetch(`${sandbox.url}/v1/actions/network-search-groups/run/async`, {
        method: "POST",
        headers: { authorization: `Bearer ${sandbox.api_key}`, "content-type": "application/json", "idempotency-key": `bench-history-${i}` },
        body: JSON.stringify({ input: { query: `bench api ${i}` }, max_results: 1 }),
      });
      if (!made.ok) throw new Error(`POST run ${i}: ${made.status}`);
    }
    await sleep(1_000); // every one of them finished

    // Signed in as a person would, from a fresh load of /sign-in (which now sees the history).
    await page.goto(`${sandbox.url}/sign-in`);
    await page.getByLabel("API key or session token").fill(sandbox.api_key);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/workspace$/, { timeout: 60_000 });
    await page.locator('[data-field="workspace_id"]').waitFor({ timeout: 30_000 });
    await sleep(1_000); // the pages' chunk preloads in the background
    out.memory = [await memoryAt(page, cdp, "/workspace, before /runs")];

    // /runs from /workspace, three times.
    out.screenful = [];
    for (let i = 0; i < REPEATS; i++) {
      if (i > 0) {
        const t = await goInApp(page, "/workspace");
        await stateAfter(page, t, { path: "/workspace" }, STEP_TIMEOUT_MS, "back at /workspace");
        await page.locator('[data-field="workspace_id"]').waitFor({ timeout: 30_000 });
        await sleep(500);
      }
      await timed(out.screenful, "/runs", async () => {
        const t0 = await goInApp(page, "/runs");
        const s = await stateAfter(page, t0, { listed: RUNS + API_RUNS }, STEP_TIMEOUT_MS, `/runs listing ${RUNS + API_RUNS} runs`);
        const firstRow = await page.evaluate((t0) => window.__bench.states.find((x) => x.at >= t0 && x.first !== null)?.at ?? null, t0);
        return {
          ms: Math.round(s.at - t0), frame_ms: s.frame === null ? null : Math.round(s.frame - t0),
          first_row_ms: firstRow === null ? null : Math.round(firstRow - t0),
          longest_task_ms: await longestTask(page, t0, s.frame ?? s.at), count: s.count,
        };
      });
      if (i === 0) out.memory.push(await memoryAt(page, cdp, "/runs, first screenful"));
    }
    await sleep(500);
    out.read_floor = [];
    for (let i = 0; i < REPEATS; i++) out.read_floor.push(await readFloor(page, ws));
    await sleep(500);

    // A filter, a search, a sort: each from its event to the new view.
    const baseline = async () => (await page.evaluate(() => window.__bench.states.at(-1)))?.count ?? null;
    const change = async (name, list, act, match, want) => timed(list, name, async () => {
      const since = await now(page);
      const before = await baseline();
      await act();
      const s = await stateAfter(page, since, want(before), STEP_TIMEOUT_MS, name);
      const e = await eventAfter(page, since, match);
      if (!e) throw new Error(`${name}: the page saw no ${match.type}`);
      const r = { ms: Math.round(s.at - e.at), frame_ms: s.frame === null ? null : Math.round(s.frame - e.at),
        longest_task_ms: await longestTask(page, e.at, s.frame ?? s.at), count: s.count, sort: s.sort };
      await sleep(300);
      return r;
    });
    const status = page.getByLabel("Status");
    const search = page.getByLabel("Search");
    out.filter = { failed: [], all: [], search: [], clear: [], sort: [] };
    for (let i = 0; i < REPEATS; i++) {
      await change("Status: failed", out.filter.failed, () => status.selectOption("failed"), { type: "change", id: "filter-status" }, (c) => ({ countNot: c }));
      await change("Status: All", out.filter.all, () => status.selectOption(""), { type: "change", id: "filter-status" }, () => ({ matching: RUNS + API_RUNS }));
    }
    for (let i = 0; i < REPEATS; i++) {
      await search.fill(SEARCH);
      await change(`Search: ${SEARCH}`, out.filter.search, () => search.press("Enter"), { type: "keydown", id: "filter-text" }, (c) => ({ countNot: c }));
      await search.fill("");
      await change("Search cleared", out.filter.clear, () => search.press("Enter"), { type: "keydown", id: "filter-text" }, (c) => ({ countNot: c }));
    }
    const credits = page.locator('[data-field="runs-table"] th a.sort', { hasText: "Credits used" });
    for (let i = 0; i < REPEATS; i++) {
      const direction = i % 2 === 0 ? "descending" : "ascending";
      await change(`Sort: Credits used ${direction}`, out.filter.sort, () => credits.click(), { type: "click", text: "Credits used" }, () => ({ sort: `Credits used ${direction}` }));
    }
    out.memory.push(await memoryAt(page, cdp, "/runs, after filters"));

    // Export, then the same file imported.
    await goInApp(page, "/storage");
    const exportButton = page.getByRole("button", { name: "Export the history" });
    await exportButton.waitFor({ timeout: 30_000 });
    await page.locator('[data-field="kept-runs"]').waitFor({ timeout: 60_000 });
    await sleep(500);
    out.export = {};
    let file = null;
    let folder = null;
    try {
      const since = await now(page);
      const downloaded = page.waitForEvent("download", { timeout: EXPORT_TIMEOUT_MS });
      const started = Date.now();
      await exportButton.click();
      const download = await downloaded;
      out.export.ms = Date.now() - started;
      out.export.name = download.suggestedFilename();
      // Under its own name, as a person would pick it for the import.
      folder = mkdtempSync(join(os.tmpdir(), "bench-history-"));
      file = join(folder, out.export.name);
      await download.saveAs(file);
      out.export.bytes = statSync(file).size;
      const click = await eventAfter(page, since, { type: "click", text: "Export the history" });
      const url = await page.evaluate((since) => window.__bench.objectUrls.find((u) => u.at >= since) ?? null, since);
      const note = await stateAfter(page, since, { exportNote: "Exported" }, 10_000, "the export's note").catch(() => null);
      out.export.page_ms = click && url ? Math.round(url.at - click.at) : null;
      out.export.note = note?.exportNote ?? null;
      out.export.longest_task_ms = click ? await longestTask(page, click.at, (note ?? url)?.at ?? (await now(page))) : null;
      out.export.timed_out = false;
    } catch (e) {
      if (!/Timeout/.test(e.message) && e.name !== "TimeoutError") throw e;
      out.export = { timed_out: true, error: `no download within ${EXPORT_TIMEOUT_MS / 1000} s` };
      console.error(`${SCRIPT}: export: ${out.export.error}`);
    }
    if (file) {
      // The file chosen, until the report: into the history that holds every run already, then,
      // after "Forget", into an empty one, which writes every run.
      const importOnce = async () => {
        const result = {};
        try {
          const since = await now(page);
          const started = Date.now();
          await page.locator('[data-field="import-file"]').setInputFiles(file);
          const s = await stateAfter(page, since, { report: "Imported" }, IMPORT_TIMEOUT_MS, "the import's report");
          result.node_ms = Date.now() - started;
          const changed = await eventAfter(page, since, { type: "change", field: "import-file" });
          result.ms = changed ? Math.round(s.at - changed.at) : null;
          result.report = s.report;
          result.longest_task_ms = changed ? await longestTask(page, changed.at, s.at) : null;
          result.timed_out = false;
        } catch (e) {
          if (!(e instanceof TimedOut)) throw e;
          console.error(`${SCRIPT}: import: ${e.message}`);
          return { timed_out: true, error: e.message };
        }
        return result;
      };
      out.import = await importOnce();
      await page.getByRole("button", { name: "Forget this workspace's history…" }).click();
      await page.getByRole("button", { name: "Forget the history" }).click();
      await page.locator('[data-field="forget-note"]').getByText("Forgot the").waitFor({ timeout: IMPORT_TIMEOUT_MS });
      out.import_into_empty = await importOnce();
      out.memory.push(await memoryAt(page, cdp, "/storage, after the import"));
      rmSync(folder, { recursive: true, force: true });
    }
    out.page_errors = pageErrors;
    out.console_errors = consoleErrors;
    await context.close();
    return out;
  } finally {
    await browser.close();
  }
}

const { m: out, failure } = await measure(SCRIPT, run, WATCHDOG_MS);
if (out) {
  writeResults("history", out);
  const ms = (r) => (r.timed_out ? "timed out" : `${r.ms}`);
  const summary = (list, aim) => {
    const done = list.filter((r) => !r.timed_out);
    const med = done.length ? median(done.map((r) => r.ms)) : null;
    const frame = done.length && done.every((r) => r.frame_ms !== null) ? median(done.map((r) => r.frame_ms)) : null;
    const missed = med === null || (aim !== null && med > aim) ? " ✗" : aim !== null ? " ✓" : "";
    return `${med === null ? "timed out" : `${med} ms`}${missed} | ${frame === null ? "–" : `${frame} ms`} | ${list.map(ms).join(", ")} | ${Math.max(0, ...done.map((r) => r.longest_task_ms))} ms`;
  };
  const counted = (list) => countOf(list.find((r) => !r.timed_out)?.count)?.matching;
  console.log(`\n### Run history at ${group(RUNS)} kept runs (${out.date})\n`);
  console.log("| Measure | Aim | Median (DOM) | Median (next frame) | All (ms) | Longest task |");
  console.log("|---|---|---|---|---|---|");
  const firstRows = out.screenful.filter((r) => !r.timed_out && r.first_row_ms !== null).map((r) => ({ ms: r.first_row_ms, frame_ms: null, longest_task_ms: 0, timed_out: false }));
  console.log(`| /runs first screenful (the API's newest 100) after in-app navigation | ≤ ${AIMS.screenfulMs} ms | ${summary(firstRows, AIMS.screenfulMs)} |`);
  console.log(`| /runs with every kept run counted | – | ${summary(out.screenful, null)} |`);
  console.log(`| Status → failed (${group(counted(out.filter.failed) ?? 0)} match) | ≤ ${AIMS.filterMs} ms | ${summary(out.filter.failed, AIMS.filterMs)} |`);
  console.log(`| Status → All | ≤ ${AIMS.filterMs} ms | ${summary(out.filter.all, AIMS.filterMs)} |`);
  console.log(`| Search “${SEARCH}” + Enter (${group(counted(out.filter.search) ?? 0)} match) | ≤ ${AIMS.filterMs} ms | ${summary(out.filter.search, AIMS.filterMs)} |`);
  console.log(`| Search cleared + Enter | ≤ ${AIMS.filterMs} ms | ${summary(out.filter.clear, AIMS.filterMs)} |`);
  console.log(`| Sort by Credits used (click) | ≤ ${AIMS.filterMs} ms | ${summary(out.filter.sort, AIMS.filterMs)} |`);
  const ex = out.export ?? {};
  console.log(`| Export the history: click → download (${ex.bytes ? mb(ex.bytes) : "–"}) | – | ${ex.timed_out ? "timed out" : `${ex.ms} ms`} | – | page: click → file ${ex.page_ms ?? "–"} ms | ${ex.longest_task_ms ?? "–"} ms |`);
  const importRow = (label, im) =>
    console.log(`| ${label}: file chosen → “Imported …” | ≤ ${AIMS.importS} s | ${!im ? "not taken" : im.timed_out ? "timed out" : `${(im.ms / 1000).toFixed(2)} s${im.ms / 1000 <= AIMS.importS ? " ✓" : " ✗"}`} | – | – | ${im?.longest_task_ms ?? "–"} ms |`);
  const im = out.import;
  importRow(`Import ${group(RUNS)} runs, all kept already`, im);
  importRow(`Import ${group(RUNS)} runs into an empty history`, out.import_into_empty);
  const floor = out.read_floor ?? [];
  if (floor.length) console.log(`| (floor) the same runs read by JavaScript: getAll · JSON.parse | – | ${median(floor.map((f) => f.get_all_ms))} ms · ${median(floor.map((f) => f.json_parse_ms))} ms | – | ${floor.map((f) => `${f.get_all_ms} · ${f.json_parse_ms}`).join(", ")} | – |`);
  console.log(`\nWritten into IndexedDB in ${out.seed.seconds} s (${out.seed.keyword_runs} with an input, ${out.seed.failed} failed).`);
  if (im?.report) console.log(`Import report: ${im.report}`);
  if (out.import_into_empty?.report) console.log(`Import report, into an empty history: ${out.import_into_empty.report}`);
  console.log("\n| Memory (after GC) | JS heap used | JS heap total | DOM nodes | wasm memory | renderer (anon) | browser (anon) |");
  console.log("|---|---|---|---|---|---|---|");
  for (const m of out.memory) console.log(`| ${m.label} | ${mb(m.js_heap_used)} | ${mb(m.js_heap_total)} | ${group(m.dom_nodes)} | ${mb(m.wasm_memory)} | ${mb(m.renderer_anon)} | ${mb(m.browser_anon)} |`);
  if (out.page_errors.length) console.log(`\nPage errors: ${out.page_errors.join("; ")}`);
  if (out.console_errors.length) console.log(`\nConsole errors: ${out.console_errors.join("; ")}`);
}
// Not taken: a failure, or no export to import (a timed-out step is a result).
if (failure || !out?.import) process.exitCode = 1;
