// Benchmark: a bulk batch whose tab is behind another tab, as a real person's Chromium treats it
// (issue 24). 700 rows of premium-search-people (max_results 1) against the sandbox at burst 5,
// 2 per second: in front the batch sends about 2 rows a second; with another tab in front of it
// in the same window the page is hidden, Chrome aligns its timers to 1 s at once, and about a
// minute later intensive wake-up throttling wakes chained timers once a minute. Aim: the rate
// behind the tab at least 0.9× the rate in front, over the whole hidden span and in its last
// minute.
//
// Not Playwright: it launches Chromium with background throttling switched off
// (--disable-background-timer-throttling, --disable-renderer-backgrounding,
// --disable-backgrounding-occluded-windows, IntensiveWakeUpThrottling disabled) and emulates
// every page as visible, so a hidden tab there behaves like one in front. This script starts
// /usr/bin/chromium itself with none of those switches and talks the DevTools protocol over a
// WebSocket (Node 20's, behind --experimental-websocket; no dependency added), with the helpers
// it shares with bench/bulk-memory.mjs in bench/lib/cdp.mjs.
//
// The run (about 6 minutes): sign in, paste the rows, start; 60 s in front; a second tab opened
// in the same window (Target.createTarget newWindow:false) puts the batch's tab behind it, for
// 3 minutes; then, still hidden, the tab is frozen for 30 s (Page.setWebLifecycleState) and
// thawed (15 s); then the batch's tab is brought back (Target.activateTarget) for 30 s more. The
// submissions are the page's POST …/run/async requests as the DevTools protocol sees them
// (Network.requestWillBeSent, with their wall time; their answers from Network.responseReceived):
// a row is submitted when the request later answered 200/202 was sent. Every 5 s the page is also
// read (Runtime.evaluate runs on a hidden tab): document.visibilityState and the batch's counts.
// A probe in the page, a chain of 100 ms setTimeouts recording when each ran, shows what the
// browser did to timers in each span whatever the console does (its wake-ups are printed beside).
//
// Not part of the test suite's pass/fail: the aims are printed, not asserted. The script exits
// non-zero only when the measure could not be taken (the sandbox or Chromium did not start, the
// batch did not start, the tab did not become hidden or visible again, nothing was sent in front).
// Usage (after a release build of the console and of the sandbox):
//   node --experimental-websocket bench/background-tab.mjs [front_s hidden_s back_s]
// (defaults 60 180 30). BENCH_DIST: the built console to serve (default dist/; relative to the
// repository), e.g. a copy kept aside while dist/ is rebuilt. CHROMIUM: the browser (default
// /usr/bin/chromium). Writes target/bench/background-tab.json and prints a Markdown table.
import { Cdp, DIST, measure, openBulk, openTab, pasteRows, resultsHeader, signIn, sleep, startChromium, startSandbox, writeResults } from "./lib/cdp.mjs";

const [FRONT_S, HIDDEN_S, BACK_S] = [60, 180, 30].map((d, i) => Number(process.argv[2 + i] ?? d));
// After the hidden span, the hidden tab is frozen this long (Page.setWebLifecycleState, as Chrome
// freezes a background tab to save power), then thawed: the batch must lose nothing and come
// back at its pace, not in a burst: in any second, at most the pacer's full bucket (one
// second's worth and one more) and a second's refill, never what the frozen span did not send.
const FROZEN_S = 30;
// After the thaw, still hidden, before the tab comes to the front.
const THAWED_S = 15;
const ROWS = 700;
const ACTION = "premium-search-people";
const BURST = 5;
const RATE = 2;
// The front rate is read from this many seconds after the click on, past the burst and the
// 429s through which the page learns the pace.
const SETTLE_S = 10;
// The last stretch of the hidden span, where intensive throttling (after about a minute) shows.
const LAST_S = Math.min(60, HIDDEN_S);
const SAMPLE_MS = 5_000;
const PROBE_MS = 100;
const AIMS = { ratio: 0.9 };
// Everything, start to finish, or the run is abandoned (and Chromium and the sandbox killed).
const WATCHDOG_MS = (FRONT_S + HIDDEN_S + FROZEN_S + THAWED_S + BACK_S + 150) * 1000;

// Every 5 s: what the page shows of the batch, and the pace it learned (kept with the batch in
// IndexedDB, values JSON text; ms between submissions). Rows submitted are those the API has
// (queued, processing and final); "submitting" are on their way, "waiting" not sent yet.
const SAMPLE = `(async () => {
  const counts = Object.fromEntries([...document.querySelectorAll("[data-count]")].map((e) => [e.dataset.count, Number(e.querySelector("dd").textContent.replaceAll(",", ""))]));
  // Never opened before the app made it: an open here would create it without its stores.
  const made = (await indexedDB.databases()).some((d) => d.name === "console");
  const pace = !made ? null : await new Promise((resolve) => {
    const open = indexedDB.open("console");
    open.onerror = () => resolve(null);
    open.onsuccess = () => {
      try {
        const req = open.result.transaction("batches").objectStore("batches").getAll();
        req.onsuccess = () => { open.result.close(); resolve(req.result.map((v) => { try { return JSON.parse(v)?.pace?.interval_ms ?? null; } catch { return null; } }).find((p) => p != null) ?? null); };
        req.onerror = () => { open.result.close(); resolve(null); };
      } catch { open.result.close(); resolve(null); }
    };
  });
  return { visibility: document.visibilityState, phase: document.querySelector('[data-field="batch"]')?.dataset.phase ?? null, counts,
    kept_pace_ms: pace === null ? null : Math.round(pace), probe_wakes: window.__probe?.wakes.length ?? 0 };
})()`;

// ---------------------------------------------------------------------------------------------

async function run() {
  const sandbox = await startSandbox(["--rate-burst", String(BURST), "--rate-per-sec", String(RATE)]);
  const chromium = await startChromium("bench-background-tab-");
  const cdp = await Cdp.connect(chromium.url);
  const browserVersion = (await cdp.send("Browser.getVersion")).product;

  // The batch's tab: a page target of its own, in the window Chromium opened, in front.
  const { targetId, sessionId, page } = await openTab(cdp);
  // The page and its workers: the batch's requests are sent by its bulk worker, a target of its
  // own, attached as it starts (paused until its network is watched, so no request is missed).
  const sessions = new Set([sessionId]);
  cdp.on("Target.attachedToTarget", (p, parent) => {
    if (parent !== sessionId) return;
    sessions.add(p.sessionId);
    (async () => {
      if (p.targetInfo.type === "worker") {
        await cdp.send("Network.enable", {}, p.sessionId);
        await cdp.send("Runtime.enable", {}, p.sessionId);
      }
      await cdp.send("Runtime.runIfWaitingForDebugger", {}, p.sessionId);
    })().catch((e) => console.error(`attaching ${p.targetInfo.type}: ${e.message}`));
  });
  const pageErrors = [];
  cdp.on("Runtime.exceptionThrown", (p, s) => { if (sessions.has(s)) pageErrors.push(p.exceptionDetails.exception?.description ?? p.exceptionDetails.text); });

  // Every submission the page (its worker) sends: when (wall clock, ms), and its answer's status.
  const subs = [];
  const byRequest = new Map();
  let counting = false;
  cdp.on("Network.requestWillBeSent", (p, s) => {
    if (!sessions.has(s) || !counting || p.request.method !== "POST" || !new URL(p.request.url).pathname.endsWith("/run/async")) return;
    const headers = Object.fromEntries(Object.entries(p.request.headers).map(([k, v]) => [k.toLowerCase(), v]));
    const sub = { at: p.wallTime * 1000, status: null, key: headers["idempotency-key"] ?? null, run_id: null };
    subs.push(sub);
    byRequest.set(p.requestId, sub);
  });
  // An accepted submission's run id, from its answer's body.
  const bodies = [];
  cdp.on("Network.loadingFinished", (p, s) => {
    const sub = sessions.has(s) && byRequest.get(p.requestId);
    if (!sub || (sub.status !== 200 && sub.status !== 202)) return;
    bodies.push(cdp.send("Network.getResponseBody", { requestId: p.requestId }, s)
      .then((r) => { sub.run_id = JSON.parse(r.body).id ?? null; }, () => {}));
  });
  cdp.on("Network.responseReceived", (p, s) => {
    const sub = sessions.has(s) && byRequest.get(p.requestId);
    if (sub) sub.status = p.response.status;
  });
  cdp.on("Network.loadingFailed", (p, s) => {
    const sub = sessions.has(s) && byRequest.get(p.requestId);
    if (sub && sub.status === null) sub.status = "failed";
  });
  await cdp.send("Network.enable", {}, sessionId);
  await cdp.send("Runtime.enable", {}, sessionId);
  await cdp.send("Page.enable", {}, sessionId);
  await cdp.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }, sessionId);

  // Signed in as a person would be, then at /bulk inside the app, the rows pasted.
  await signIn(page, sandbox);
  await openBulk(page, ACTION);
  const rows = Array.from({ length: ROWS }, (_, i) => [`bench background ${i + 1}`, 1]);
  await pasteRows(page, { action: ACTION, header: ["keywords", "max_results"], rows, timeoutMs: 60_000 });

  // The probe: a chain of timers as any page's, its wake-ups kept (wall clock, ms).
  await page.evaluate(`window.__probe = { wakes: [] }; (function tick() { window.__probe.wakes.push(Date.now()); setTimeout(tick, ${PROBE_MS}); })(); true`);
  await page.evaluate(`window.__visibility = []; document.addEventListener("visibilitychange", () => window.__visibility.push({ at: Date.now(), state: document.visibilityState })); true`);

  counting = true;
  const clickAt = Date.now();
  await page.evaluate(`document.querySelector('[data-field="start-batch"]').click(); true`);
  await page.waitFor(`document.querySelector('[data-field="batch"]')?.dataset.phase === "running"`, 15_000, "the batch running");

  const samples = [];
  const sample = async (span) => {
    const s = await page.evaluate(SAMPLE).catch((e) => ({ error: e.message }));
    samples.push({ at_s: +((Date.now() - clickAt) / 1000).toFixed(1), span, ...s,
      sent: subs.length, accepted: subs.filter((x) => x.status === 200 || x.status === 202).length });
  };
  /** Samples every 5 s until `until` (wall clock, ms). */
  const hold = async (span, until) => {
    while (Date.now() < until) {
      await sleep(Math.min(SAMPLE_MS, until - Date.now()));
      await sample(span);
    }
  };

  await sample("front");
  await hold("front", clickAt + FRONT_S * 1000);

  // Another tab in front of the batch's, in the same window, as a person opening one would.
  const hideAt = Date.now();
  const other = await cdp.send("Target.createTarget", { url: "about:blank", newWindow: false });
  const hiddenSeen = await page.waitFor(`document.visibilityState === "hidden"`, 10_000, "the batch's tab hidden behind the other").catch(() => false);
  if (!hiddenSeen) throw new Error(`the batch's tab stayed "${await page.evaluate("document.visibilityState").catch(() => "?")}" with another tab in front of it`);
  await hold("hidden", hideAt + HIDDEN_S * 1000);

  // Frozen, still hidden: nothing of the page runs (no sample is read meanwhile), then thawed.
  const freezeAt = Date.now();
  const frozen = await cdp.send("Page.setWebLifecycleState", { state: "frozen" }, sessionId).then(() => true, (e) => e.message);
  await sleep(FROZEN_S * 1000);
  const thawAt = Date.now();
  await cdp.send("Page.setWebLifecycleState", { state: "active" }, sessionId).catch(() => {});
  await hold("thawed", thawAt + THAWED_S * 1000);

  // The batch's tab in front again.
  const showAt = Date.now();
  await cdp.send("Target.activateTarget", { targetId });
  const visibleSeen = await page.waitFor(`document.visibilityState === "visible"`, 10_000, "the batch's tab visible again").catch(() => false);
  if (!visibleSeen) throw new Error("the batch's tab did not become visible again on Target.activateTarget");
  await hold("back", showAt + BACK_S * 1000);
  const endAt = Date.now();

  await Promise.all(bodies);
  const probe = await page.evaluate(`window.__probe.wakes`);
  const visibilityEvents = await page.evaluate(`window.__visibility`);
  const phase = await page.evaluate(`document.querySelector('[data-field="batch"]')?.dataset.phase ?? null`);
  await cdp.send("Target.closeTarget", { targetId: other.targetId }).catch(() => {});
  cdp.close();
  return { sandbox, browserVersion, clickAt, hideAt, freezeAt, frozen, thawAt, showAt, endAt, subs, samples, probe, visibilityEvents, pageErrors, phase };
}

// ---------------------------------------------------------------------------------------------

/** Submissions, 429s and the probe's wake-ups between two times (ms), and the accepted rows' rate. */
function span(m, from, to) {
  const inside = m.subs.filter((s) => s.at >= from && s.at < to);
  const accepted = inside.filter((s) => s.status === 200 || s.status === 202).length;
  const seconds = (to - from) / 1000;
  const wakes = m.probe.filter((t) => t >= from && t < to);
  const gaps = wakes.slice(1).map((t, i) => t - wakes[i]);
  return {
    from_s: +((from - m.clickAt) / 1000).toFixed(1), to_s: +((to - m.clickAt) / 1000).toFixed(1), seconds: +seconds.toFixed(1),
    sent: inside.length, accepted, limited_429: inside.filter((s) => s.status === 429).length,
    per_s: +(accepted / seconds).toFixed(3),
    probe: { wakes: wakes.length, per_s: +(wakes.length / seconds).toFixed(2), longest_gap_ms: gaps.length ? Math.round(Math.max(...gaps)) : null },
  };
}

/** The longest time between two submissions (any answer) over the hidden span: from the last one before it to the first one after it. */
function longestGap(m) {
  const times = m.subs.map((s) => s.at).sort((a, b) => a - b);
  const first = Math.max(0, times.findLastIndex((t) => t < m.hideAt));
  let last = times.findIndex((t) => t >= m.freezeAt);
  if (last < 0) last = times.length - 1;
  let best = null;
  for (let i = first + 1; i <= last; i++) {
    const gap = times[i] - times[i - 1];
    if (!best || gap > best.ms) best = { ms: Math.round(gap), from_s: +((times[i - 1] - m.clickAt) / 1000).toFixed(1), to_s: +((times[i] - m.clickAt) / 1000).toFixed(1) };
  }
  return best;
}

let { m, failure } = await measure("bench/background-tab.mjs", run, WATCHDOG_MS);

let results = null;
if (m) {
  const front = span(m, m.clickAt + SETTLE_S * 1000, m.hideAt);
  const frontAll = span(m, m.clickAt, m.hideAt);
  const hidden = span(m, m.hideAt, m.freezeAt);
  const last = span(m, m.freezeAt - LAST_S * 1000, m.freezeAt);
  const firstHidden = span(m, m.hideAt, Math.min(m.freezeAt, m.hideAt + 60_000));
  const frozen = span(m, m.freezeAt, m.thawAt);
  const thawed = span(m, m.thawAt, m.showAt);
  const back = span(m, m.showAt, m.endAt);
  // The most submissions sent in any one second of the first five after the thaw: a burst
  // would send what the frozen span did not.
  const afterThaw = m.subs.map((x) => x.at).filter((t) => t >= m.thawAt && t < m.thawAt + 5_000).sort((a, b) => a - b);
  const busiestSecond = afterThaw.reduce((most, t, i) => Math.max(most, afterThaw.filter((u) => u >= t && u < t + 1_000).length), 0);
  // Nothing lost: no row accepted with two different runs, no accepted key sent again after the thaw.
  const runsByKey = new Map();
  for (const x of m.subs) if (x.run_id) runsByKey.set(x.key, new Set([...(runsByKey.get(x.key) ?? []), x.run_id]));
  // Per 30 s from the click: how the rate moved.
  const timeline = [];
  for (let t = m.clickAt; t < m.endAt - 1000; t += 30_000) timeline.push(span(m, t, Math.min(t + 30_000, m.endAt)));
  const seenBy = (name) => m.samples.filter((s) => s.span === name).reduce((o, s) => ({ ...o, [s.visibility ?? "?"]: (o[s.visibility ?? "?"] ?? 0) + 1 }), {});
  if (!front.accepted) failure ??= "nothing was submitted in front";
  results = {
    front, front_from_click: frontAll, hidden, hidden_first_minute: firstHidden, hidden_last_minute: last, back,
    ratios: {
      hidden: front.per_s ? +(hidden.per_s / front.per_s).toFixed(3) : null,
      hidden_first_minute: front.per_s ? +(firstHidden.per_s / front.per_s).toFixed(3) : null,
      hidden_last_minute: front.per_s ? +(last.per_s / front.per_s).toFixed(3) : null,
      back: front.per_s ? +(back.per_s / front.per_s).toFixed(3) : null,
    },
    longest_gap_hidden: longestGap(m),
    freeze: {
      frozen: m.frozen === true ? true : `not frozen: ${m.frozen}`, during: frozen, thawed,
      // At most the full bucket (a second's worth and one more) and a second's refill.
      busiest_second_after_thaw: busiestSecond, bucket_capacity: RATE + 1, at_most_in_a_second: 2 * RATE + 1,
      keys_with_several_runs: [...runsByKey.values()].filter((ids) => ids.size > 1).length,
    },
    visibility_sampled: { front: seenBy("front"), hidden: seenBy("hidden"), back: seenBy("back") },
    visibility_events: m.visibilityEvents.map((e) => ({ at_s: +((e.at - m.clickAt) / 1000).toFixed(1), state: e.state })),
    timeline,
    // Every submission: seconds after the click, and its answer.
    submissions: m.subs.map((x) => ({ at_s: +((x.at - m.clickAt) / 1000).toFixed(3), status: x.status })),
    phase_at_end: m.phase,
    counts_at_end: m.samples.at(-1)?.counts ?? null,
    page_errors: m.pageErrors,
  };
}

const out = {
  ...resultsHeader(m?.browserVersion ?? null),
  sandbox: m ? { flags: m.sandbox.flags, action: ACTION, max_results: 1 } : null,
  rows: ROWS,
  spans_s: { front: FRONT_S, hidden: HIDDEN_S, back: BACK_S, front_rate_from: SETTLE_S, last: LAST_S },
  aims: AIMS,
  results,
  samples: m?.samples ?? [],
  failure,
};
writeResults("background-tab", out);

if (results) {
  const r = results;
  const mark = (ratio) => (ratio !== null && ratio >= AIMS.ratio ? "✓" : "✗ missed");
  const rate = (s) => `${s.per_s.toFixed(2)}/s (${s.accepted} rows in ${s.seconds.toFixed(0)} s; ${s.limited_429} × 429)`;
  const probe = (s) => `${s.probe.per_s}/s, longest gap ${s.probe.longest_gap_ms ?? "–"} ms`;
  const vis = (o) => Object.entries(o).map(([k, v]) => `${k} ×${v}`).join(", ") || "–";
  console.log(`\nBackground tab ${out.date.slice(0, 10)}, ${out.machine}; ${out.browser}, headless=new, no throttling switch; console from ${DIST}`);
  console.log(`\n**background-tab**: ${ROWS} rows of ${ACTION} (max_results 1), sandbox burst ${BURST}, ${RATE}/s; ${FRONT_S} s in front, ${HIDDEN_S} s behind another tab of the same window, ${BACK_S} s in front again\n`);
  console.log("| measure | rows submitted (accepted submissions) per second | ÷ in front | aim | the page's timers (probe: chained 100 ms setTimeout) | visibilityState sampled |");
  console.log("|---|---|---|---|---|---|");
  console.log(`| in front (${SETTLE_S} s after the click → hidden) | ${rate(r.front)} | 1 | | ${probe(r.front)} | ${vis(r.visibility_sampled.front)} |`);
  console.log(`| … from the click (burst and learning the pace included) | ${rate(r.front_from_click)} | | | | |`);
  console.log(`| behind the tab, the whole span | ${rate(r.hidden)} | ${r.ratios.hidden} | ≥ ${AIMS.ratio} ${mark(r.ratios.hidden)} | ${probe(r.hidden)} | ${vis(r.visibility_sampled.hidden)} |`);
  console.log(`| … its first minute | ${rate(r.hidden_first_minute)} | ${r.ratios.hidden_first_minute} | | ${probe(r.hidden_first_minute)} | |`);
  console.log(`| … its last minute | ${rate(r.hidden_last_minute)} | ${r.ratios.hidden_last_minute} | ≥ ${AIMS.ratio} ${mark(r.ratios.hidden_last_minute)} | ${probe(r.hidden_last_minute)} | |`);
  console.log(`| in front again | ${rate(r.back)} | ${r.ratios.back} | | ${probe(r.back)} | ${vis(r.visibility_sampled.back)} |`);
  const f = r.freeze;
  console.log(`| frozen ${FROZEN_S} s, hidden (${f.frozen === true ? "Page.setWebLifecycleState" : f.frozen}) | ${rate(f.during)} | | | ${probe(f.during)} | |`);
  console.log(`| … thawed, still hidden | ${rate(f.thawed)} | ${r.front.per_s ? +(f.thawed.per_s / r.front.per_s).toFixed(3) : "–"} | | | |`);
  console.log(`| … the busiest second of the first 5 after the thaw: submissions sent | ${f.busiest_second_after_thaw} (a full bucket holds ${f.bucket_capacity}, and refills ${RATE} a second) | | ≤ ${f.at_most_in_a_second} ${f.busiest_second_after_thaw <= f.at_most_in_a_second ? "✓" : "✗ missed"} | | |`);
  console.log(`| rows accepted with two different runs (whole run) | ${f.keys_with_several_runs} | | 0 ${f.keys_with_several_runs === 0 ? "✓" : "✗ missed"} | | |`);
  const g = r.longest_gap_hidden;
  console.log(`| longest gap between two submissions while hidden | ${g ? `${(g.ms / 1000).toFixed(1)} s (${g.from_s} s → ${g.to_s} s after the click)` : "no submission"} | | | | |`);
  const paceAt = (name) => {
    const p = m.samples.filter((x) => x.span === name && x.kept_pace_ms).at(-1)?.kept_pace_ms;
    return p ? `${(1000 / p).toFixed(2)}/s (${p} ms)` : "none";
  };
  console.log(`| the pace the page learned and keeps (IndexedDB), last sampled: in front / hidden / in front again | ${paceAt("front")} / ${paceAt("hidden")} / ${paceAt("back")} | | | | |`);
  console.log(`\nPer 30 s from the click (rows submitted; the probe's wake-ups): ${r.timeline.map((s) => `${s.from_s}–${s.to_s} s ${s.accepted} (${s.probe.wakes})`).join(" · ")}`);
  console.log(`visibilitychange: ${r.visibility_events.map((e) => `${e.state} at ${e.at_s} s`).join(", ") || "none"}; batch ${r.phase_at_end} at the end, counts ${JSON.stringify(r.counts_at_end)}`);
  if (r.page_errors.length) console.log(`\nPage errors: ${r.page_errors.join("; ")}`);
}
if (failure) {
  console.log(`\nNot measured: ${failure}`);
  process.exitCode = 1;
}
