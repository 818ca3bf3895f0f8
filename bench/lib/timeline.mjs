// Chrome's trace of a page over the DevTools protocol (the Tracing domain, the events the
// Performance panel records), and what each of the page's long tasks was made of: where a task
// over 100 ms goes (our script, the browser's style and layout, paint, garbage collection, a
// compile), read on the release build, whose functions have no names. Used by bench/chain.mjs
// with BENCH_TIMELINE=1.
import { writeFileSync } from "node:fs";

// The Performance panel's own categories, and V8's execution and garbage collection.
const CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8.execute", "v8", "blink.user_timing"];

/** Starts recording the trace of the tab attached as `sessionId`. */
export async function startTimeline(cdp, sessionId) {
  await cdp.send("Tracing.start", { transferMode: "ReturnAsStream", traceConfig: { includedCategories: CATEGORIES } }, sessionId);
}

/** Ends the recording and returns its events (read from the stream Chromium hands back). */
export async function endTimeline(cdp, sessionId) {
  const complete = new Promise((resolve) => cdp.on("Tracing.tracingComplete", (p, s) => s === sessionId && resolve(p)));
  await cdp.send("Tracing.end", {}, sessionId);
  const { stream } = await complete;
  let text = "";
  for (;;) {
    const chunk = await cdp.send("IO.read", { handle: stream, size: 1 << 20 }, sessionId, 120_000);
    text += chunk.base64Encoded ? Buffer.from(chunk.data, "base64").toString("utf8") : chunk.data;
    if (chunk.eof) break;
  }
  await cdp.send("IO.close", { handle: stream }, sessionId).catch(() => {});
  const parsed = JSON.parse(text);
  return Array.isArray(parsed) ? parsed : parsed.traceEvents;
}

/** Writes the events as a file the Performance panel opens (`Load profile…`). */
export function writeTimeline(path, events) {
  writeFileSync(path, JSON.stringify({ traceEvents: events }));
}

// The names under which a task's time is summed: what the Performance panel calls them.
const KIND = {
  FunctionCall: "script", TimerFire: "script", EventDispatch: "script", FireAnimationFrame: "script",
  "v8.callFunction": "script", RunMicrotasks: "script", "V8.Execute": "script", EvaluateScript: "script",
  "v8.compile": "compile", "v8.compileModule": "compile", "v8.wasm.compiledModule": "compile", "wasm.CompileLazy": "compile",
  UpdateLayoutTree: "style", RecalculateStyles: "style", Layout: "layout", Paint: "paint", Layerize: "paint",
  PrePaint: "paint", UpdateLayer: "paint", Commit: "paint", "MinorGC": "gc", "MajorGC": "gc", "V8.GC_SCAVENGER": "gc",
  "V8.GC_MARK_COMPACTOR": "gc", BlinkGC: "gc", "BlinkGC.AtomicPhase": "gc", ParseHTML: "parse",
};

/**
 * Each task over `overMs` on the page's main thread (CrRendererMain of the renderer that ran
 * `mainThreadPid`, or the first one), between `fromUs` and `toUs` (trace time), with its time by
 * kind (self time: what its events took less what the events inside them took) and its five
 * longest events by name.
 */
export function longTasks(events, { overMs = 100, fromUs = 0, toUs = Infinity } = {}) {
  const thread = mainThread(events);
  const tasks = thread.filter((e) => e.name === "RunTask" && e.dur > overMs * 1000 && e.ts >= fromUs && e.ts <= toUs);
  return tasks.map((task) => {
    const end = task.ts + task.dur;
    const inside = thread.filter((e) => e !== task && e.ts >= task.ts && e.ts + e.dur <= end);
    const selfTime = selfTimes(inside);
    const byKind = {};
    const byName = {};
    let covered = 0;
    for (const e of inside) {
      const ms = Math.max(0, selfTime.get(e)) / 1000;
      const kind = KIND[e.name] ?? "other";
      byKind[kind] = (byKind[kind] ?? 0) + ms;
      byName[e.name] = (byName[e.name] ?? 0) + ms;
      covered += ms;
    }
    byKind.untraced = Math.max(0, task.dur / 1000 - covered);
    const round = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v >= 1).sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, Math.round(v)]));
    const top = inside.filter((e) => e.dur > 5000).sort((a, b) => b.dur - a.dur).slice(0, 5)
      .map((e) => ({ name: e.name, ms: Math.round(e.dur / 1000), what: e.args?.data?.type ?? e.args?.data?.functionName ?? e.args?.data?.url?.split("/").pop() ?? undefined }));
    return { ts: task.ts, ms: Math.round(task.dur / 1000), by_kind: round(byKind), by_name: round(byName), longest: top };
  });
}

/**
 * Each event's self time: its duration less its direct children's (events nest by time on one
 * thread, sorted by start, the longer first).
 */
function selfTimes(thread) {
  const selfTime = new Map(thread.map((e) => [e, e.dur]));
  const stack = [];
  for (const e of thread) {
    while (stack.length && stack.at(-1).ts + stack.at(-1).dur <= e.ts) stack.pop();
    const parent = stack.at(-1);
    if (parent) selfTime.set(parent, selfTime.get(parent) - e.dur);
    stack.push(e);
  }
  return selfTime;
}

/** The page's main thread (the renderer's CrRendererMain with the most events) and its complete events, by start. */
function mainThread(events) {
  const mains = events.filter((e) => e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain");
  const count = new Map();
  for (const e of events) {
    const main = mains.find((m) => m.pid === e.pid && m.tid === e.tid);
    if (main) count.set(main, (count.get(main) ?? 0) + 1);
  }
  const main = [...count.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  if (!main) return [];
  return events
    .filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === "X" && typeof e.dur === "number")
    .sort((a, b) => a.ts - b.ts || b.dur - a.dur);
}

/** The trace time (µs) of the first `performance.mark(name)` in the events, if any. */
export function markAt(events, name) {
  return events.find((e) => e.name === name && e.cat?.includes("blink.user_timing"))?.ts;
}

/**
 * Where the page's main thread spent the time from `fromUs` to `toUs` (trace time): the self
 * time of its events that start inside, by kind (as `longTasks`) and the names that took the
 * most, and the time it was busy at all (its tasks) against the span.
 */
export function busyByKind(events, fromUs, toUs) {
  const thread = mainThread(events).filter((e) => e.ts >= fromUs && e.ts < toUs);
  const selfTime = selfTimes(thread);
  const byKind = {};
  const byName = {};
  let busy = 0;
  for (const e of thread) {
    if (e.name === "RunTask") busy += Math.min(e.dur, toUs - e.ts);
    const ms = Math.max(0, selfTime.get(e)) / 1000;
    if (e.name === "RunTask" || e.name === "ThreadControllerImpl::RunTask") continue;
    const kind = KIND[e.name] ?? "other";
    byKind[kind] = (byKind[kind] ?? 0) + ms;
    byName[e.name] = (byName[e.name] ?? 0) + ms;
  }
  const round = (o, n) => Object.fromEntries(Object.entries(o).filter(([, v]) => v >= 1).sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => [k, Math.round(v)]));
  return { span_ms: Math.round((toUs - fromUs) / 1000), busy_ms: Math.round(busy / 1000), by_kind: round(byKind, 20), by_name: round(byName, 12) };
}
