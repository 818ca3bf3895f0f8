// Benchmark: a chain through the console's /chains page against the sandbox (issue 59):
// 100 profile URLs → their posts (20 each) → the comments of every post (5 each), about 2,100
// runs, at 1× and at 4× CPU (Chromium's throttling, on the page and on each step's worker as it
// starts), each with a sandbox and a Chromium of its own:
// - time: from the start's click to "every step is done", against the rate limit's ideal for the
//   chain's submissions ((runs − burst) / rate; aim ≤ 1.15×);
// - memory: the whole browser's (bench/lib/memory.mjs, `anon`), sampled every second through the
//   chain; its growth over the signed-in page before the chain, after a forced garbage collection
//   (aim ≤ 250 MB at any fan-out), with the page's and the step workers' wasm memories at their
//   largest, so a growth can be told apart;
// - the page's main-thread tasks over 100 ms from the click to the end (aim 0 at 4×);
// - runs per action against the distinct inputs the chain fed each step (each input once);
// - beside it, the direct path: one plain bulk batch of as many runs at the same limit, its time
//   against its own ideal, and the chain's time over the batch's.
// The rate limit is 20 a second with a burst of 20, as bench/bulk.mjs's measure (BENCH_RATE to
// change it; BENCH_THROTTLES=1,4 and BENCH_PEER=0 to choose what runs). The first argument sets
// the number of profiles, so the fan-out can be raised: `node … bench/chain.mjs 500` is about
// 9,300 runs (with BENCH_RATE=200, under two minutes), for the memory's slope per run.
//
// BENCH_PLACES=front,behind also runs the chain with its tab behind another from the start's click
// on (Target.createTarget in the same window, as bench/background-tab.mjs does): Chromium then
// holds the page's timers back a second, and a minute after five minutes hidden; its time against
// the ideal is read beside the chain's in front (aim: behind ≥ 0.9× as fast). With BENCH_RATE=5
// the chain takes about six minutes, past the five after which the minute-long wake-ups begin.
//
// BENCH_ROWS_PER_BATCH=10000,2000 runs the chain once per plan's "rows per batch" (a later step
// with more rows runs as parts of that many: docs/chains.md), side by side: the memory a step
// takes should follow the batch's size, not the step's. Without it, the plan's default.
//
// Not Playwright, for the same reason as bench/bulk-memory.mjs: Playwright's DevTools sessions
// enable the Network domain on the page and on every worker, and the renderer then keeps the
// response bodies of every status read for it, counted as the console's memory (about 5 KB per
// run of a chain: +139 MB at 9,300 runs, where the page's and the worker's wasm memories stayed
// flat). This script starts /usr/bin/chromium itself and uses Runtime, Page, Target, Emulation
// and HeapProfiler only. The chain's submissions are counted by a `fetch` wrapper installed in
// the page and in each worker before their first script (Target auto-attach), which posts each
// one (action, key, input) on a BroadcastChannel the page's instrument keeps as hashes.
//
// Not part of the test suite's pass/fail: an aim missed is printed, not fatal; the script exits
// non-zero only when a measure could not be taken. Usage (after a release build of the console
// and a build of the sandbox; the suite's debug sandbox by default, SANDBOX_BIN to choose):
//   node --experimental-websocket bench/chain.mjs [profiles]
// BENCH_TIMELINE=1 records Chrome's trace of the page from the click to the end (as the Performance
// panel does), writes it as target/bench/chain-timeline-<CPU>x.json and adds to the results what
// each task over 100 ms was made of (bench/lib/timeline.mjs): the release build's functions have
// no names, but script, style, layout, paint, compile and garbage collection tell where it went.
// BENCH_TRACE=1 prints, every 5 s, the renderer's and the browser process's memory, the page's JS
// heap and each live step worker's wasm and JS heap at their largest so far.
// Writes target/bench/chain.json and prints a Markdown table.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { WASM_HOOK, browserMemory, wasmMemory } from "./lib/memory.mjs";
import { endTimeline, longTasks, startTimeline, writeTimeline } from "./lib/timeline.mjs";
import { Cdp, csvLine, measure, openBulk, openTab, pasteRows, resultsHeader, root, setField, signIn, sleep, startChromium, startSandbox, writeResults } from "./lib/cdp.mjs";

process.env.SANDBOX_BIN ??= join(root, "target/debug/sandbox");
const PROFILES = Number(process.argv[2] ?? 100);
const POSTS = 20;
const COMMENTS = 5;
const BURST = 20;
const RATE = Number(process.env.BENCH_RATE ?? 20);
const CREDITS = 100_000_000;
const SANDBOX_FLAGS = ["--queue-ms", "200", "--process-ms", "600", "--rate-burst", String(BURST),
  "--rate-per-sec", String(RATE), "--credits", String(CREDITS)];
// The chain's worst case in runs, at the rate limit's pace, three times over, and ten minutes more.
const DEADLINE_MS = 10 * 60_000 + (3 * 1000 * PROFILES * (2 + POSTS)) / RATE;
const AIMS = { ratio: 1.15, memoryGrowthMb: 250, longTasksAt4x: 0 };
const ACTIONS = {
  people: "network-extract-people",
  posts: "network-extract-people-post-activity",
  comments: "network-extract-post-commenters",
};
const SUBMISSION = String.raw`^\/v1\/actions\/([^/]+)\/run\/async$`;

// In the page and in each worker, before its first script: every submission the console sends
// (the URL, the Idempotency-Key and the body's input) is posted on the "bench-sent" channel.
// gloo-net hands `fetch` a Request, whose body is read from a clone.
const SENT_HOOK = `(() => {
  if (globalThis.__benchSentHook) return;
  globalThis.__benchSentHook = true;
  // Made at the first submission: made while a worker waits for the debugger, it holds the
  // worker's start up.
  let channel = null;
  const fetch = globalThis.fetch;
  globalThis.fetch = function (input, init) {
    try {
      const request = input instanceof Request ? input : null;
      const url = new URL(request ? request.url : String(input), location.href);
      const method = String(init?.method ?? request?.method ?? "GET").toUpperCase();
      const match = url.pathname.match(new RegExp(${JSON.stringify(SUBMISSION)}));
      if (method === "POST" && match) {
        const key = new Headers(init?.headers ?? request?.headers).get("idempotency-key");
        const body = request ? request.clone().text() : Promise.resolve(String(init?.body ?? ""));
        body.then((text) => (channel ??= new BroadcastChannel("bench-sent")).postMessage({ action: match[1], key, body: text, at: Date.now() }));
      }
    } catch { /* a submission the wrapper cannot read is not counted */ }
    return fetch.apply(this, arguments);
  };
})()`;

// The page's own measures: long tasks, when each step began (data-standing), and the submissions
// heard on "bench-sent", per action: how many, their distinct keys and inputs (as 52-bit hashes,
// so that counting 100,000 of them adds little to the memory measured), the first and the last.
const INSTRUMENT = `(() => {
  const hash = (text) => {
    let a = 0x811c9dc5, b = 0x01000193;
    for (let i = 0; i < text.length; i++) { const c = text.charCodeAt(i); a = Math.imul(a ^ c, 0x01000193); b = Math.imul(b ^ c, 0x5bd1e995); }
    return (a >>> 0) * 0x100000 + ((b >>> 0) & 0xfffff);
  };
  const bench = window.__bench = { longtasks: [], standings: [], sent: {}, errors: [] };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (bench.longtasks.length < 10000) bench.longtasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: "longtask", buffered: true });
  const seen = () => {
    const standing = document.querySelector('[data-field="chain"]')?.dataset.standing;
    if (standing && standing !== bench.standings.at(-1)?.standing) bench.standings.push({ standing, at: performance.now() });
  };
  new MutationObserver(seen).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-standing"] });
  addEventListener("error", (e) => bench.errors.length < 20 && bench.errors.push(String(e.message)));
  addEventListener("unhandledrejection", (e) => bench.errors.length < 20 && bench.errors.push(String(e.reason?.message ?? e.reason)));
  const keys = {}, inputs = {};
  new BroadcastChannel("bench-sent").onmessage = ({ data }) => {
    let input = "";
    try { input = JSON.stringify(JSON.parse(data.body).input); } catch { input = data.body; }
    const s = (bench.sent[data.action] ??= { submissions: 0, keys: 0, inputs: 0, first: data.at, last: data.at });
    const k = (keys[data.action] ??= new Set()), i = (inputs[data.action] ??= new Set());
    s.submissions++;
    k.add(hash(String(data.key))); s.keys = k.size;
    i.add(hash(input)); s.inputs = i.size;
    s.first = Math.min(s.first, data.at); s.last = Math.max(s.last, data.at);
  };
})()`;

const MB = (b) => (b == null ? null : +(b / 1e6).toFixed(1));
const CHAIN = `document.querySelector('[data-field="chain"]')?.dataset.standing ?? null`;

/**
 * Chromium with a tab attached to and its workers attached to as they start (paused until the
 * hooks are in, throttled once `throttling.rate` is set); the page's hooks installed.
 */
async function browserWithTab(profilePrefix) {
  const chromium = await startChromium(profilePrefix);
  const cdp = await Cdp.connect(chromium.url);
  const { sessionId, page } = await openTab(cdp);
  const workers = new Map();
  const throttling = { rate: 1 };
  const throttle = (s) => cdp.send("Emulation.setCPUThrottlingRate", { rate: throttling.rate }, s).catch(() => {});
  cdp.on("Target.attachedToTarget", (p, parent) => {
    if (parent !== sessionId || p.targetInfo.type !== "worker") return;
    workers.set(p.sessionId, { wasm_peak: 0 });
    (async () => {
      await cdp.send("Runtime.evaluate", { expression: `${WASM_HOOK};\n${SENT_HOOK}` }, p.sessionId).catch(() => {});
      if (throttling.rate > 1) await throttle(p.sessionId);
      await cdp.send("Runtime.runIfWaitingForDebugger", {}, p.sessionId);
    })().catch((e) => console.error(`attaching the worker: ${e.message}`));
  });
  cdp.on("Target.detachedFromTarget", (p) => { const w = workers.get(p.sessionId); if (w) w.ended = true; });
  await cdp.send("Page.enable", {}, sessionId);
  await cdp.send("Page.addScriptToEvaluateOnNewDocument", { source: `${WASM_HOOK};\n${SENT_HOOK};\n${INSTRUMENT}` }, sessionId);
  await cdp.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }, sessionId);
  const setThrottle = async (rate) => { throttling.rate = rate; await throttle(sessionId); for (const [s, w] of workers) if (!w.ended) await throttle(s); };
  return { cdp, sessionId, page, workers, setThrottle };
}

/** Sets a field once it is there (a step's fields appear once the step before has its action). */
async function fill(page, selector, value) {
  await page.waitFor(`!!document.querySelector(${JSON.stringify(selector)})`, 30_000, selector);
  if (!(await page.evaluate(setField(selector, value, ["input", "change"])))) throw new Error(`${selector} could not be set to ${value}`);
}

/** Clicks the spend question's yes if it is asked within 5 s (a chain above the threshold). */
async function answerSpendQuestion(page) {
  await page.waitFor(`(() => { const yes = document.querySelector('[data-field="confirm-spend-yes"]'); if (yes) yes.click(); return !!yes; })()`, 5_000, "").catch(() => {});
}

/**
 * `behind`: the chain's tab is put behind another tab once the chain is started;
 * `rowsPerBatch`: the plan's rows per batch (`null`: its default).
 */
async function chainRun(throttle, behind = false, rowsPerBatch = null) {
  const sandbox = await startSandbox(SANDBOX_FLAGS);
  const { cdp, sessionId, page, workers, setThrottle } = await browserWithTab("bench-chain-");
  await signIn(page, sandbox);
  await page.evaluate(`history.pushState({}, "", "/chains"); dispatchEvent(new PopStateEvent("popstate")); true`);
  await page.waitFor(`!!document.querySelector('#chain-first-action option[value="${ACTIONS.people}"]')`, 30_000, "the chains page");
  await fill(page, "#chain-first-action", ACTIONS.people);
  await fill(page, "#chain-action-1", ACTIONS.posts);
  await fill(page, "#chain-max-1", String(POSTS));
  await fill(page, "#chain-action-2", ACTIONS.comments);
  await fill(page, "#chain-first-2", String(POSTS));
  await fill(page, "#chain-max-2", String(COMMENTS));
  if (rowsPerBatch) await fill(page, "#chain-rows-per-batch", String(rowsPerBatch));
  const rowsPerBatchSet = Number(await page.evaluate(`document.querySelector("#chain-rows-per-batch")?.value`));
  const urls = Array.from({ length: PROFILES }, (_, i) => `https://www.network.com/in/bench-person-${i}`);
  await fill(page, "#bulk-text", [csvLine(["identifier"]), ...urls.map((u) => csvLine([u]))].join("\n") + "\n");
  const worstCase = Number(await page.waitFor(`document.querySelector('[data-field="chain-worst-case"]')?.dataset.credits`, 60_000, "the chain's worst case"));

  // The memory before: the signed-in page with the plan, after a garbage collection.
  for (let i = 0; i < 2; i++) { await cdp.send("HeapProfiler.collectGarbage", {}, sessionId, 60_000); await sleep(500); }
  const before = browserMemory();
  if (throttle > 1) await setThrottle(throttle);

  if (process.env.BENCH_TIMELINE) await startTimeline(cdp, sessionId);
  const clickedAt = await page.evaluate(`performance.now()`);
  const startedAt = Date.now();
  await page.evaluate(`document.querySelector('[data-field="start-chain"]').click(); true`);
  await answerSpendQuestion(page);
  if (behind) {
    await cdp.send("Target.createTarget", { url: "about:blank", newWindow: false });
    const hidden = await page.waitFor(`document.visibilityState === "hidden"`, 10_000, "the chain's tab hidden behind the other").catch(() => false);
    if (!hidden) throw new Error("the chain's tab stayed visible with another tab in front of it");
  }
  // Until every step is done: the whole browser's memory every second, the wasm memories every 5.
  let peak = before;
  let pageWasmPeak = 0;
  let pageHeapPeak = 0;
  for (let tick = 0; ; tick++) {
    const standing = await page.evaluate(CHAIN).catch(() => undefined);
    if (standing === "done") break;
    if (Date.now() - startedAt > DEADLINE_MS) throw new Error(`the chain was not done within ${Math.round(DEADLINE_MS / 60_000)} minutes (${standing})`);
    const now = browserMemory();
    if (now.anon > peak.anon) peak = now;
    if (tick % 5 === 0) {
      pageWasmPeak = Math.max(pageWasmPeak, (await wasmMemory(cdp, sessionId)) ?? 0);
      for (const [s, w] of workers) {
        if (w.ended) continue;
        w.wasm_peak = Math.max(w.wasm_peak, (await wasmMemory(cdp, s)) ?? 0);
        const heap = await cdp.send("Runtime.getHeapUsage", {}, s).catch(() => null);
        if (heap) w.js_heap_peak = Math.max(w.js_heap_peak ?? 0, heap.totalSize);
      }
      const heap = await cdp.send("Runtime.getHeapUsage", {}, sessionId).catch(() => null);
      if (heap) pageHeapPeak = Math.max(pageHeapPeak, heap.totalSize);
      if (process.env.BENCH_TRACE) console.error(JSON.stringify({ t: Math.round((Date.now() - startedAt) / 1000), renderer: MB(now.by_kind.renderer?.anon), browser: MB(now.by_kind.browser?.anon), page_heap: MB(heap?.usedSize), page_heap_total: MB(heap?.totalSize), workers: [...workers.values()].filter((w) => !w.ended).map((w) => [MB(w.wasm_peak), MB(w.js_heap_peak)]) }));
    }
    await sleep(1_000);
  }
  const seconds = (Date.now() - startedAt) / 1000;
  const endedAt = await page.evaluate(`performance.now()`);
  const bench = await page.evaluate(`(() => { const b = window.__bench; return { longtasks: b.longtasks, standings: b.standings, sent: b.sent, errors: b.errors }; })()`);
  const tasks = bench.longtasks.filter((t) => t.start >= clickedAt && t.start <= endedAt);
  const after = browserMemory();
  const visibility = await page.evaluate(`document.visibilityState`).catch(() => null);
  let timeline;
  if (process.env.BENCH_TIMELINE) {
    const events = await endTimeline(cdp, sessionId);
    mkdirSync(join(root, "target/bench"), { recursive: true });
    writeTimeline(join(root, `target/bench/chain-timeline-${throttle}x.json`), events);
    const first = events.reduce((m, e) => (e.ts > 0 && e.ts < m ? e.ts : m), Infinity);
    timeline = longTasks(events).map(({ ts, ...task }) => ({ at_s: +((ts - first) / 1e6).toFixed(2), ...task }));
    console.error(`${throttle}×: the trace's tasks over 100 ms: ${JSON.stringify(timeline, null, 1)}`);
  }
  cdp.close();
  const workspace = await (await fetch(`${sandbox.url}/v1/workspace`, { headers: { authorization: `Bearer ${sandbox.api_key}` } })).json();
  const runs = Object.values(bench.sent).reduce((n, s) => n + s.keys, 0);
  const ideal = Math.max(0, runs - BURST) / RATE;
  const kinds = (m) => Object.fromEntries(Object.entries(m.by_kind).map(([k, v]) => [k, MB(v.anon)]));
  return {
    throttle,
    place: behind ? "behind" : "front",
    rows_per_batch: rowsPerBatchSet,
    // Read at the end: "hidden" for the whole of a run behind.
    visibility_at_end: visibility,
    runs,
    // Per action: submissions sent (a key sent again after a 429 counts again), distinct keys and distinct inputs.
    sent: Object.fromEntries(Object.entries(bench.sent).map(([action, s]) => [action, {
      submissions: s.submissions, keys: s.keys, inputs: s.inputs,
      first_s: +((s.first - startedAt) / 1000).toFixed(2), last_s: +((s.last - startedAt) / 1000).toFixed(2) }])),
    worst_case_credits: worstCase,
    credits_spent: CREDITS - workspace.credits_balance,
    seconds: +seconds.toFixed(1),
    ideal_seconds: +ideal.toFixed(1),
    ratio: +(seconds / ideal).toFixed(3),
    memory_before_mb: MB(before.anon),
    memory_peak_mb: MB(peak.anon),
    memory_growth_mb: MB(peak.anon - before.anon),
    memory_after_mb: MB(after.anon),
    memory_by_kind_mb: { before: kinds(before), peak: kinds(peak) },
    page_wasm_peak_mb: MB(pageWasmPeak),
    page_js_heap_peak_mb: MB(pageHeapPeak),
    // Each step's worker, in the order they started (a step that ended within 5 s may read 0).
    worker_wasm_peak_mb: [...workers.values()].map((w) => MB(w.wasm_peak)),
    worker_js_heap_peak_mb: [...workers.values()].map((w) => MB(w.js_heap_peak ?? 0)),
    long_tasks_over_100_ms: tasks.filter((t) => t.duration > 100).length,
    longest_task_ms: Math.round(tasks.reduce((m, t) => Math.max(m, t.duration), 0)),
    // When each long task began (s from the click), to be read beside the standings.
    long_tasks: tasks.filter((t) => t.duration > 100).map((t) => ({ at_s: +((t.start - clickedAt) / 1000).toFixed(2), ms: Math.round(t.duration) })),
    standings: bench.standings.map((s) => ({ standing: s.standing, at_s: +((s.at - clickedAt) / 1000).toFixed(1) })),
    page_errors: bench.errors,
    ...(timeline ? { timeline_long_tasks: timeline } : {}),
  };
}

/**
 * The direct path beside it: one plain bulk batch of `rows` rows (premium-search-people, one
 * record each) through /bulk against the same rate limit, its time against its own ideal.
 */
async function bulkPeer(rows) {
  const sandbox = await startSandbox(SANDBOX_FLAGS);
  const { cdp, page } = await browserWithTab("bench-chain-peer-");
  await signIn(page, sandbox);
  const action = "premium-search-people";
  await openBulk(page, action);
  await pasteRows(page, { action, header: ["keywords", "max_results"], rows: Array.from({ length: rows }, (_, i) => [`bench person ${i}`, 1]), timeoutMs: 120_000 });
  const startedAt = Date.now();
  await page.evaluate(`document.querySelector('[data-field="start-batch"]').click(); true`);
  await answerSpendQuestion(page);
  await page.waitFor(`document.querySelector('[data-field="batch"]')?.dataset.phase === "done"`, DEADLINE_MS, "the plain batch done");
  const seconds = (Date.now() - startedAt) / 1000;
  cdp.close();
  const ideal = Math.max(0, rows - BURST) / RATE;
  return { rows, seconds: +seconds.toFixed(1), ideal_seconds: +ideal.toFixed(1), ratio: +(seconds / ideal).toFixed(3) };
}

const results = {};
const failures = {};
const PLACES = (process.env.BENCH_PLACES ?? "front").split(",");
const BATCH_SIZES = (process.env.BENCH_ROWS_PER_BATCH ?? "").split(",").filter(Boolean).map(Number);
for (const throttle of (process.env.BENCH_THROTTLES ?? "1,4").split(",").map(Number)) {
  for (const place of PLACES) {
    for (const rowsPerBatch of BATCH_SIZES.length ? BATCH_SIZES : [null]) {
      const name = (place === "behind" ? `${throttle}x_behind` : `${throttle}x`) + (rowsPerBatch ? `_${rowsPerBatch}_rows_a_batch` : "");
      const { m, failure } = await measure(`bench/chain.mjs (${throttle}×, ${place}${rowsPerBatch ? `, ${rowsPerBatch} rows a batch` : ""})`, () => chainRun(throttle, place === "behind", rowsPerBatch), DEADLINE_MS + 5 * 60_000);
      if (m) results[name] = m; else failures[name] = failure;
    }
  }
}
const runs = Object.values(results).find((r) => r.runs)?.runs;
if (runs && process.env.BENCH_PEER !== "0") {
  const { m, failure } = await measure("bench/chain.mjs (the plain batch beside it)", () => bulkPeer(runs), DEADLINE_MS + 5 * 60_000);
  if (m) results.bulk_peer = m; else failures.bulk_peer = failure;
}

const out = {
  ...resultsHeader("/usr/bin/chromium"),
  chain: { profiles: PROFILES, posts_each: POSTS, comments_each: COMMENTS, burst: BURST, rate_per_s: RATE, sandbox: process.env.SANDBOX_BIN },
  aims: AIMS,
  results,
  failures,
};
writeResults("chain", out);

const mark = (ok) => (ok ? "✓" : "✗ missed");
console.log(`\nA chain of ${PROFILES} profiles × ${POSTS} posts × ${COMMENTS} comments, ${out.date.slice(0, 10)}, ${out.machine}; rate limit ${RATE}/s, burst ${BURST}`);
console.log("\n| CPU | tab | rows a batch | runs | time | ideal | ratio (aim ≤ 1.15) | browser memory growth (aim ≤ 250 MB) | wasm at most: page; step workers | tasks > 100 ms | longest | credits spent / worst case |");
console.log("|---|---|---|---|---|---|---|---|---|---|---|---|");
for (const r of Object.values(results).filter((r) => r.throttle)) {
  console.error(`${r.throttle}× (${r.place}): steps began at ${r.standings.map((s) => `${s.standing} ${s.at_s} s`).join(", ")}; submissions ${Object.entries(r.sent).map(([a, s]) => `${a} ${s.keys} keys for ${s.inputs} inputs, ${s.first_s}–${s.last_s} s`).join("; ")}; tasks over 100 ms at ${r.long_tasks.map((t) => `${t.at_s} s (${t.ms} ms)`).join(", ") || "none"}; memory by process at its peak ${JSON.stringify(r.memory_by_kind_mb.peak)} (before ${JSON.stringify(r.memory_by_kind_mb.before)})${r.page_errors.length ? `; page errors: ${r.page_errors.join(" | ")}` : ""}`);
  console.log(`| ${r.throttle}× | ${r.place === "behind" ? `behind another (${r.visibility_at_end} at the end)` : "in front"} | ${r.rows_per_batch} | ${r.runs} | ${r.seconds} s | ${r.ideal_seconds} s | ${r.ratio} ${mark(r.ratio <= AIMS.ratio)} | ${r.memory_growth_mb} MB ${mark(r.memory_growth_mb <= AIMS.memoryGrowthMb)} | ${r.page_wasm_peak_mb} MB; ${r.worker_wasm_peak_mb.map((w) => `${w}`).join(", ")} MB | ${r.long_tasks_over_100_ms}${r.throttle === 4 ? ` ${mark(r.long_tasks_over_100_ms === 0)}` : ""} | ${r.longest_task_ms} ms | ${r.credits_spent} / ${r.worst_case_credits} |`);
}
for (const throttle of new Set(Object.values(results).map((r) => r.throttle).filter(Boolean))) {
  const [front, behind] = [results[`${throttle}x`], results[`${throttle}x_behind`]];
  if (front && behind) console.log(`\nAt ${throttle}×, behind another tab the chain went ${(front.seconds / behind.seconds).toFixed(2)}× as fast as in front (aim ≥ 0.9).`);
}
const peer = results.bulk_peer;
if (peer) {
  console.log(`\nBeside it, one plain bulk batch of the same ${peer.rows} runs at the same limit: ${peer.seconds} s against its ideal of ${peer.ideal_seconds} s (${peer.ratio}×).`);
  for (const r of Object.values(results).filter((r) => r.throttle)) {
    console.log(`The chain at ${r.throttle}× (${r.place}) took ${(r.seconds / peer.seconds).toFixed(2)}× the plain batch's time.`);
  }
}
process.exitCode = Object.keys(failures).length ? 1 : 0;
