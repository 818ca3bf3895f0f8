// Benchmark: how much the browser's memory grows while the console runs a large bulk batch
// (issue 24; aim: grows ≤ 250 MB). 10,000 rows of premium-search-people with max_results 100
// (about 880,000 records) against the sandbox at burst 50, 50 per second, 0.8 s runs, as
// bench/bulk.mjs's large scenario: the memory of every Chromium process (PSS, PSS without file
// pages, RSS, from /proc, by kind: browser, renderer, gpu-process, utility:network,
// utility:storage, …; the aim is read without file pages, see bench/lib/memory.mjs) after a forced
// garbage collection, before the click on start, when the batch is done and 30 s later; the
// page's JS heap, wasm memory and DOM nodes; the bulk worker's JS heap and wasm memory (the batch
// runs in a dedicated Web Worker of the page, attached to as it starts); the batch's time against
// the rate limit's ideal ((10,000 − 50) ÷ 50 s).
//
// Not Playwright: Playwright's own DevTools session enables the Network domain, and the renderer
// then keeps up to about 250 MB of response bodies for it (the status reads' bodies), counted as
// the page's memory: bench/bulk.mjs's large scenario measures that too. This script starts
// /usr/bin/chromium itself and talks the DevTools protocol over a WebSocket (Node 20's, behind
// --experimental-websocket; no dependency added), with no Network domain on any session: only
// Runtime.evaluate / getHeapUsage, HeapProfiler.collectGarbage, Page and Target. The helpers it
// shares with bench/background-tab.mjs are in bench/lib/cdp.mjs.
// The exports are left to bench/bulk.mjs.
//
// It runs twice, each with its own sandbox and Chromium: as this machine runs it, and with
// Chromium's CPU throttling (Emulation.setCPUThrottlingRate, 4×, on the page and on the bulk
// worker's target, from the click on start), the usual stand-in for an ordinary laptop (issue 35:
// on a machine six times slower than this one the batch grew the browser by 3.9 GB). Memory must
// not depend on the computer's speed. Both runs are printed side by side, with a short CPU figure
// of the machine (bench/lib/cpu.mjs) so that results from different machines can be compared.
// Also measured: the page's long tasks (PerformanceObserver "longtask") during the batch, what the
// page said paced the batch (data-paced-by, each second), and the store's measured throughput
// (the engine's counters: finished rows whose records were saved ÷ the time the store spent on
// the batch's saves), so the throttled run's time is compared with the slower of the rate limit
// and the store.
// BENCH_THROTTLE: the CPU throttling rates to run at (default "1,4").
//
// Not part of the test suite's pass/fail: the aims are printed, not asserted. The script exits
// non-zero only when the measure could not be taken (the sandbox or Chromium did not start, the
// batch did not start or did not end as done within 8 minutes).
// Usage (after a release build of the console and of the sandbox, about 5 minutes):
//   node --experimental-websocket bench/bulk-memory.mjs
// BENCH_DIST: the built console to serve (default dist/; relative to the repository), e.g. a copy
// kept aside while dist/ is rebuilt. CHROMIUM: the browser (default /usr/bin/chromium).
// SANDBOX_BIN: the sandbox (default target/release/sandbox). Writes target/bench/bulk-memory.json
// and prints a Markdown table.
import { cpuFigure } from "./lib/cpu.mjs";
import { WASM_HOOK, browserMemory, wasmMemory } from "./lib/memory.mjs";
import { Cdp, DIST, measure, openBulk, openTab, pasteRows, resultsHeader, signIn, sleep, startChromium, startSandbox, writeResults } from "./lib/cdp.mjs";

const ACTION = "premium-search-people";
const ROWS = 10_000;
const MAX_RESULTS = 100;
const BURST = 50;
const RATE = 50;
// bench/bulk.mjs's large scenario: runs of 0.8 s (0.2 s queued, 0.6 s processing), and credits
// enough for every record.
const SANDBOX_FLAGS = ["--queue-ms", "200", "--process-ms", "600",
  "--rate-burst", String(BURST), "--rate-per-sec", String(RATE), "--credits", "2000000"];
// The ideal: the burst goes at once, every other submission waits for its token.
const IDEAL_S = Math.max(0, ROWS - BURST) / RATE;
// Throttled, a computer-bound batch takes longer than the rate limit's 199 s.
const BATCH_DEADLINE_MS = 15 * 60_000;
// After the batch, the memory once more this much later (what the page lets go of by itself).
const SETTLE_S = 30;
// While the batch runs, the memory (no GC) this often, for its peak.
const SAMPLE_MS = 10_000;
// longTaskMs: no main-thread task of the page longer than this while the batch runs.
const AIMS = { memoryMB: 250, ratio: 1.15, longTaskMs: 100 };
const THROTTLES = (process.env.BENCH_THROTTLE ?? "1,4").split(",").map(Number).filter((r) => r >= 1);
// Everything, start to finish, or the run is abandoned (and Chromium and the sandbox killed).
const WATCHDOG_MS = BATCH_DEADLINE_MS + (SETTLE_S + 240) * 1000;

// Installed before the console loads (no Runtime domain on, so the page keeps its own errors):
// uncaught errors and rejections, and when start was clicked and the batch's phase changed, on
// the wall clock.
const INSTRUMENT = `(() => {
  window.__bench = { errors: [], clicks: [], phases: [], longTasks: [] };
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (window.__bench.longTasks.length < 10000) window.__bench.longTasks.push({ at: performance.timeOrigin + e.startTime, ms: e.duration });
    }).observe({ type: "longtask", buffered: true });
  } catch { window.__bench.longTasks = null; }
  addEventListener("error", (e) => window.__bench.errors.length < 20 && window.__bench.errors.push(String(e.message)));
  addEventListener("unhandledrejection", (e) => window.__bench.errors.length < 20 && window.__bench.errors.push(String(e.reason?.message ?? e.reason)));
  document.addEventListener("click", (e) => {
    const field = e.target.closest?.("[data-field]")?.dataset.field;
    if (field) window.__bench.clicks.push({ field, at: Date.now() });
  }, true);
  const seen = () => {
    const phase = document.querySelector('[data-field="batch"]')?.dataset.phase;
    if (phase && phase !== window.__bench.phases.at(-1)?.phase) window.__bench.phases.push({ phase, at: Date.now() });
  };
  new MutationObserver(seen).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-phase"] });
})()`;

const COUNTS = `Object.fromEntries([...document.querySelectorAll("[data-count]")].map((e) => [e.dataset.count, Number(e.querySelector("dd").textContent.replaceAll(",", ""))]))`;
// The engine's store counters, as the batch's element carries them.
const STORE = `(() => { const b = document.querySelector('[data-field="batch"]'); return { outputs_saved: Number(b?.dataset.outputsSaved ?? 0), store_busy_ms: Number(b?.dataset.storeBusyMs ?? 0) }; })()`;
const PACED_BY = `document.querySelector('[data-field="paced-by"]')?.dataset.pacedBy ?? "none"`;

// ---------------------------------------------------------------------------------------------
// Measuring (as bench/bulk.mjs's large scenario).

// Where the run is, for the message when it stops short.
let step = "starting the sandbox";

async function run(throttle) {
  const sandbox = await startSandbox(SANDBOX_FLAGS);
  step = "starting Chromium";
  const chromium = await startChromium("bench-bulk-memory-");
  const cdp = await Cdp.connect(chromium.url);
  const browserVersion = (await cdp.send("Browser.getVersion")).product;

  const { sessionId, page } = await openTab(cdp);
  // The page's workers, attached as they start (paused until WASM_HOOK is in; no domain enabled
  // on them): the bulk worker's heap is read with Runtime.getHeapUsage and collected with the
  // page's.
  const workers = new Map();
  const workersSeen = new Map();
  // CPU throttling, once on (from the click on start): on the page and on each worker as it
  // attaches. Whether each target took it is kept, so a browser that refuses it on workers says so.
  const throttling = { on: false, page: null, workers: [] };
  const throttleTarget = (s) => cdp.send("Emulation.setCPUThrottlingRate", { rate: throttle }, s).then(() => true, (e) => e.message);
  cdp.on("Target.attachedToTarget", (p, parent) => {
    if (parent !== sessionId || p.targetInfo.type !== "worker") return;
    workers.set(p.sessionId, p.targetInfo.url);
    workersSeen.set(p.sessionId, { url: p.targetInfo.url, at: Date.now() });
    (async () => {
      await cdp.send("Runtime.evaluate", { expression: WASM_HOOK }, p.sessionId).catch(() => {});
      if (throttling.on) throttling.workers.push({ url: p.targetInfo.url, took: await throttleTarget(p.sessionId) });
      await cdp.send("Runtime.runIfWaitingForDebugger", {}, p.sessionId);
    })().catch((e) => console.error(`attaching the worker: ${e.message}`));
  });
  cdp.on("Target.detachedFromTarget", (p) => {
    const w = workersSeen.get(p.sessionId);
    if (w) w.ended = Date.now();
    workers.delete(p.sessionId);
  });
  await cdp.send("Page.enable", {}, sessionId);
  await cdp.send("Page.addScriptToEvaluateOnNewDocument", { source: `${WASM_HOOK};\n${INSTRUMENT}` }, sessionId);
  await cdp.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }, sessionId);

  // Signed in as a person would be, then at /bulk inside the app, the rows pasted.
  step = "signing in";
  await signIn(page, sandbox);
  step = "opening /bulk";
  await openBulk(page, ACTION);
  step = `pasting ${ROWS} rows`;
  const rows = Array.from({ length: ROWS }, (_, i) => [`bench person ${i + 1}`, MAX_RESULTS]);
  await pasteRows(page, { action: ACTION, header: ["keywords", "max_results"], rows, timeoutMs: 120_000 });

  // The memory now: every process, the page's heap, wasm and DOM, the workers' heaps and wasm.
  const sample = async (label, { wasm = false } = {}) => {
    const heap = await cdp.send("Runtime.getHeapUsage", {}, sessionId);
    const dom = await page.evaluate(`document.getElementsByTagName("*").length`).catch(() => null);
    const ws = [];
    for (const [s, url] of workers) {
      const h = await cdp.send("Runtime.getHeapUsage", {}, s).catch(() => null);
      if (h) ws.push({ url, js_heap_used: h.usedSize, js_heap_total: h.totalSize, wasm: wasm ? await wasmMemory(cdp, s) : undefined });
    }
    return { label, wall: Date.now(),
      page: { js_heap_used: heap.usedSize, js_heap_total: heap.totalSize, wasm: wasm ? await wasmMemory(cdp, sessionId) : undefined, dom_nodes: dom },
      worker: ws.length ? { count: ws.length, js_heap_used: ws.reduce((n, w) => n + w.js_heap_used, 0),
        js_heap_total: ws.reduce((n, w) => n + w.js_heap_total, 0), wasm: wasm ? ws.reduce((n, w) => (n === null || w.wasm === null ? null : n + w.wasm), 0) : undefined } : null,
      browser: browserMemory() };
  };
  // After a forced garbage collection (twice, so what waits for a finaliser goes too) of the page
  // and its workers: what they keep.
  const checkpoint = async (label) => {
    for (let i = 0; i < 2; i++) {
      for (const s of [sessionId, ...workers.keys()]) await cdp.send("HeapProfiler.collectGarbage", {}, s, 60_000).catch(() => {});
      await sleep(500);
    }
    return sample(label, { wasm: true });
  };
  step = "measuring before the click on start";
  await sleep(2_000);
  const points = { before: await checkpoint("before the click on start") };

  if (throttle > 1) {
    step = `throttling the CPU ${throttle}×`;
    throttling.on = true;
    throttling.page = await throttleTarget(sessionId);
    for (const [s, url] of workers) throttling.workers.push({ url, took: await throttleTarget(s) });
  }
  step = "starting the batch";
  const clickWall = Date.now();
  await page.evaluate(`document.querySelector('[data-field="start-batch"]').click(); true`);
  await page.waitFor(`["running", "done"].includes(document.querySelector('[data-field="batch"]')?.dataset.phase)`, 15_000, "the batch running");

  // Until the batch ends: its phase every second, the memory (no GC) every 10 s.
  step = "running the batch";
  const samples = [];
  let nextSample = Date.now() + SAMPLE_MS;
  let phase;
  // Seconds the page said each pace held the batch back.
  const pacedBy = {};
  for (;;) {
    phase = await page.evaluate(`document.querySelector('[data-field="batch"]')?.dataset.phase ?? null`).catch(() => undefined);
    if (["done", "paused", "cancelled"].includes(phase)) break;
    const by = await page.evaluate(PACED_BY).catch(() => "unread");
    pacedBy[by] = (pacedBy[by] ?? 0) + 1;
    if (Date.now() > clickWall + BATCH_DEADLINE_MS) throw new Error(`the batch did not finish within ${BATCH_DEADLINE_MS / 60_000} minutes (phase ${phase})`);
    if (Date.now() >= nextSample) {
      nextSample += SAMPLE_MS;
      samples.push(await sample("during the batch").catch((e) => ({ label: "during the batch", wall: Date.now(), error: e.message })));
    }
    await sleep(1_000);
  }
  if (phase !== "done") throw new Error(`the batch stopped as "${phase}": ${await page.evaluate(`document.querySelector('[data-field="paused-reason"]')?.textContent ?? ""`).catch(() => "")}`);
  step = "measuring after the batch";
  const doneWall = Date.now();
  const counts = await page.evaluate(COUNTS);
  const store = await page.evaluate(STORE);
  const marks = await page.evaluate(`window.__bench`);
  points.after_batch = await checkpoint("the batch done");
  await sleep(Math.max(0, points.after_batch.wall + SETTLE_S * 1000 - Date.now()));
  points.settled = await checkpoint(`${SETTLE_S} s later`);
  const errors = (await page.evaluate(`window.__bench.errors`).catch(() => null)) ?? marks.errors;
  cdp.close();
  return { throttle, throttling, sandbox, browserVersion, clickWall, doneWall, counts, store, pacedBy, marks, errors, points, samples, workersSeen };
}

// ---------------------------------------------------------------------------------------------

/** One run's results from its measures. */
function resultsOf(m) {
  const { before, after_batch, settled } = m.points;
  const kinds = [...new Set([before, after_batch, settled].flatMap((p) => Object.keys(p.browser.by_kind)))]
    .sort((a, b) => (settled.browser.by_kind[b]?.anon ?? 0) - (settled.browser.by_kind[a]?.anon ?? 0));
  const grow = (a, b) => ({
    anon: b.browser.anon - a.browser.anon, pss: b.browser.pss - a.browser.pss, rss: b.browser.rss - a.browser.rss,
    anon_by_kind: Object.fromEntries(kinds.map((k) => [k, (b.browser.by_kind[k]?.anon ?? 0) - (a.browser.by_kind[k]?.anon ?? 0)])),
    pss_by_kind: Object.fromEntries(kinds.map((k) => [k, (b.browser.by_kind[k]?.pss ?? 0) - (a.browser.by_kind[k]?.pss ?? 0)])),
    rss_by_kind: Object.fromEntries(kinds.map((k) => [k, (b.browser.by_kind[k]?.rss ?? 0) - (a.browser.by_kind[k]?.rss ?? 0)])),
    page_js_heap_used: b.page.js_heap_used - a.page.js_heap_used,
    page_wasm: b.page.wasm == null || a.page.wasm == null ? null : b.page.wasm - a.page.wasm,
    page_dom_nodes: b.page.dom_nodes - a.page.dom_nodes,
  });
  const clicked = m.marks.clicks.find((c) => c.field === "start-batch")?.at ?? m.clickWall;
  const done = m.marks.phases.find((p) => p.phase === "done" && p.at >= clicked)?.at ?? m.doneWall;
  const wall = (done - clicked) / 1000;
  const ok = m.samples.filter((s) => !s.error);
  const growth = { after_batch: grow(before, after_batch), settled: grow(before, settled) };
  // The store's pace: rows whose records it saved per second it spent saving; the time the batch
  // would take at that pace alone.
  const storeRowsPerS = m.store.store_busy_ms > 0 ? m.store.outputs_saved / (m.store.store_busy_ms / 1000) : null;
  const storeS = storeRowsPerS ? ROWS / storeRowsPerS : 0;
  const slowerS = Math.max(IDEAL_S, storeS);
  const tasks = (m.marks.longTasks ?? []).filter((t) => t.at >= clicked && t.at <= done);
  return {
    throttle: m.throttle, throttling: m.throttling, browser: m.browserVersion,
    sandbox: { bin: m.sandbox.bin, flags: m.sandbox.flags, action: ACTION, max_results: MAX_RESULTS },
    wall_s: wall, ideal_s: IDEAL_S, ratio: +(wall / IDEAL_S).toFixed(3),
    store: { ...m.store, rows_per_s: storeRowsPerS && +storeRowsPerS.toFixed(1), alone_s: +storeS.toFixed(1) },
    ratio_to_slower: +(wall / slowerS).toFixed(3),
    paced_by_s: m.pacedBy,
    long_tasks: m.marks.longTasks === null ? null : { count_over_aim: tasks.filter((t) => t.ms > AIMS.longTaskMs).length, longest_ms: Math.round(Math.max(0, ...tasks.map((t) => t.ms))), count: tasks.length },
    counts: m.counts,
    memory: {
      kinds,
      points: m.points,
      growth,
      peak_during_batch: {
        anon: Math.max(0, ...ok.map((s) => s.browser.anon)), pss: Math.max(0, ...ok.map((s) => s.browser.pss)), rss: Math.max(0, ...ok.map((s) => s.browser.rss)),
        renderer_anon: Math.max(0, ...ok.map((s) => s.browser.by_kind.renderer?.anon ?? 0)),
        page_js_heap_used: Math.max(0, ...ok.map((s) => s.page.js_heap_used)),
        worker_js_heap_used: Math.max(0, ...ok.map((s) => s.worker?.js_heap_used ?? 0)),
      },
      samples: m.samples.map((s) => ({ ...s, at_s: +((s.wall - m.clickWall) / 1000).toFixed(1) })),
    },
    aim_met: growth.after_batch.anon <= AIMS.memoryMB * 1e6 && growth.settled.anon <= AIMS.memoryMB * 1e6,
    workers: [...m.workersSeen.values()].map((w) => ({ url: w.url, started_s: +((w.at - m.clickWall) / 1000).toFixed(1), ended_s: w.ended === undefined ? null : +((w.ended - m.clickWall) / 1000).toFixed(1) })),
    page_errors: m.errors ?? [],
  };
}

const runs = [];
const failures = [];
for (const throttle of THROTTLES) {
  const { m, failure } = await measure(`bench/bulk-memory.mjs (CPU ${throttle}×)`, () => run(throttle), WATCHDOG_MS, (e) => `${step}: ${e.message}`);
  if (m) runs.push(resultsOf(m));
  if (failure) failures.push(`CPU ${throttle}×: ${failure}`);
}
// The machine's speed, measured after the runs (not beside them).
const cpu = cpuFigure();

const out = {
  ...resultsHeader(runs[0]?.browser ?? null),
  cpu,
  rows: ROWS,
  aims: AIMS,
  runs,
  failures,
};
writeResults("bulk-memory", out);

const n = (x) => x.toLocaleString("en-US");
const mb = (b) => (b == null ? "?" : `${(b / 1e6).toFixed(0)} MB`);
const signed = (b) => (b == null ? "?" : Math.abs(b) < 0.5e6 ? "±0 MB" : `${b >= 0 ? "+" : "−"}${mb(Math.abs(b))}`);
const mark = (ok) => (ok ? "✓" : "✗ missed");
const cpuLabel = (r) => (r.throttle > 1 ? `CPU throttled ${r.throttle}×` : "CPU as is");

console.log(`\nBulk memory ${out.date.slice(0, 10)}, ${out.machine}; ${out.browser}, headless=new; console from ${DIST}`);
console.log(`\nThis machine's CPU figure (bench/lib/cpu.mjs): ${cpu.summary}.`);
console.log(`\n**bulk-memory**: ${n(ROWS)} rows of ${ACTION} (max_results ${MAX_RESULTS}), sandbox burst ${BURST}, ${RATE}/s, runs 0.8 s; no Network domain on any DevTools session; memory after GC (page and worker)`);

if (runs.length) {
  // Side by side: what the aims are read on.
  const cell = (f) => runs.map((r) => f(r)).join(" | ");
  console.log(`\n| measure | ${cell(cpuLabel)} | aim |`);
  console.log(`|---|${runs.map(() => "---|").join("")}---|`);
  const line = (what, f, aim = "") => console.log(`| ${what} | ${cell(f)} | ${aim} |`);
  line("growth of all Chromium processes without file pages: batch done; 30 s later", (r) => `${signed(r.memory.growth.after_batch.anon)}; ${signed(r.memory.growth.settled.anon)} ${mark(r.aim_met)}`, `≤ ${AIMS.memoryMB} MB`);
  line("bulk worker's wasm memory: batch done; 30 s later", (r) => `${mb(r.memory.points.after_batch.worker?.wasm)}; ${mb(r.memory.points.settled.worker?.wasm)}`);
  line("page's wasm memory growth: batch done; 30 s later", (r) => `${signed(r.memory.growth.after_batch.page_wasm)}; ${signed(r.memory.growth.settled.page_wasm)}`);
  line("click on start → done (the rate limit's ideal)", (r) => `${r.wall_s.toFixed(1)} s = ${r.ratio}× ${IDEAL_S} s${r.throttle > 1 ? "" : ` ${mark(r.ratio <= AIMS.ratio)}`}`, `≤ ${AIMS.ratio}× (as is)`);
  line("the store's pace (rows saved per second of saving); the batch at that pace alone", (r) => (r.store.rows_per_s === null ? "?" : `${r.store.rows_per_s}/s; ${r.store.alone_s} s`));
  line("done ÷ the slower of the rate limit and the store", (r) => `${r.ratio_to_slower}× ${mark(r.ratio_to_slower <= AIMS.ratio)}`, `≤ ${AIMS.ratio}×`);
  line("what the page said paced the batch (seconds)", (r) => Object.entries(r.paced_by_s).map(([k, v]) => `${k} ${v}`).join(", "));
  line(`page's main-thread tasks over ${AIMS.longTaskMs} ms during the batch; the longest`, (r) => (r.long_tasks === null ? "not observable" : `${r.long_tasks.count_over_aim}; ${r.long_tasks.longest_ms} ms ${mark(r.long_tasks.count_over_aim === 0)}`), "none");
  line("rows completed / failed; records", (r) => `${n(r.counts.completed ?? 0)} / ${n(r.counts.failed ?? 0)}; ${n(r.counts.records ?? 0)}`);
  line("CPU throttling taken by the page; by the bulk worker", (r) => (r.throttle > 1 ? `${r.throttling.page === true ? "yes" : r.throttling.page}; ${r.throttling.workers.map((w) => (w.took === true ? "yes" : w.took)).join(", ") || "no worker attached"}` : "–"));
}

for (const r of runs) {
  const { before, after_batch, settled } = r.memory.points;
  const g = r.memory.growth;
  const row = (what, f, growth, aim = "", met = "") =>
    console.log(`| ${what} | ${[before, after_batch, settled].map(f).join(" | ")} | ${growth} | ${aim} | ${met} |`);
  console.log(`\n**${cpuLabel(r)}**, in detail\n`);
  console.log(`| measure | before the click on start | the batch done | ${SETTLE_S} s later | growth: done; ${SETTLE_S} s later | aim | |`);
  console.log("|---|---|---|---|---|---|---|");
  row(`PSS without file pages (Pss_Anon + Pss_Shmem), all Chromium processes (${before.browser.processes} → ${after_batch.browser.processes} → ${settled.browser.processes})`, (p) => mb(p.browser.anon),
    `${signed(g.after_batch.anon)}; ${signed(g.settled.anon)}`, `grows ≤ ${AIMS.memoryMB} MB`, mark(r.aim_met));
  row("… PSS with file pages (binary, libraries: shared with any other Chromium on the machine)", (p) => mb(p.browser.pss), `${signed(g.after_batch.pss)}; ${signed(g.settled.pss)}`);
  row("… RSS (shared pages counted in each process)", (p) => mb(p.browser.rss), `${signed(g.after_batch.rss)}; ${signed(g.settled.rss)}`);
  for (const k of r.memory.kinds) {
    const count = (p) => p.browser.by_kind[k]?.processes ?? 0;
    row(`… without file pages (PSS) ${k}${Math.max(count(before), count(settled)) > 1 ? ` (${count(before)} → ${count(settled)} processes)` : ""}`,
      (p) => `${mb(p.browser.by_kind[k]?.anon ?? 0)} (${mb(p.browser.by_kind[k]?.pss ?? 0)})`,
      `${signed(g.after_batch.anon_by_kind[k])} (${signed(g.after_batch.pss_by_kind[k])}); ${signed(g.settled.anon_by_kind[k])} (${signed(g.settled.pss_by_kind[k])})`);
  }
  row("page's JS heap used (of total)", (p) => `${mb(p.page.js_heap_used)} (${mb(p.page.js_heap_total)})`, `${signed(g.after_batch.page_js_heap_used)}; ${signed(g.settled.page_js_heap_used)}`);
  row("page's wasm memory", (p) => mb(p.page.wasm), `${signed(g.after_batch.page_wasm)}; ${signed(g.settled.page_wasm)}`);
  row("page's DOM nodes", (p) => n(p.page.dom_nodes ?? 0), `${g.after_batch.page_dom_nodes >= 0 ? "+" : ""}${n(g.after_batch.page_dom_nodes)}; ${g.settled.page_dom_nodes >= 0 ? "+" : ""}${n(g.settled.page_dom_nodes)}`);
  row("bulk worker's JS heap used (of total); its wasm memory", (p) => (p.worker ? `${mb(p.worker.js_heap_used)} (${mb(p.worker.js_heap_total)}); ${mb(p.worker.wasm)}` : "no worker"), "");
  const pk = r.memory.peak_during_batch;
  console.log(`| peak while the batch ran (every ${SAMPLE_MS / 1000} s, no GC): without file pages, all; renderer; page's JS heap; worker's JS heap | ${mb(pk.anon)}; ${mb(pk.renderer_anon)}; ${mb(pk.page_js_heap_used)}; ${mb(pk.worker_js_heap_used)} | | | ${signed(pk.anon - before.browser.anon)} (all) | | |`);
  console.log(`| click on start → done | ${r.wall_s.toFixed(1)} s = ${r.ratio}× the rate limit's ${IDEAL_S} s ((${n(ROWS)} − ${BURST}) ÷ ${RATE}/s) | | | | ≤ ${AIMS.ratio}× | ${mark(r.ratio <= AIMS.ratio)} |`);
  console.log(`| rows completed / failed; records shown | ${n(r.counts.completed ?? 0)} / ${n(r.counts.failed ?? 0)}; ${n(r.counts.records ?? 0)} | | | | | |`);
  console.log(`\nWorkers attached: ${r.workers.map((w) => `${w.url.replace(/^.*\//, "")} from ${w.started_s} s${w.ended_s === null ? "" : ` to ${w.ended_s} s`}`).join(", ") || "none"} (s after the click).`);
  if (r.page_errors.length) console.log(`\nPage errors: ${r.page_errors.join("; ")}`);
}
if (failures.length) {
  console.log(`\nNot measured: ${failures.join("; ")}`);
  process.exitCode = 1;
}
