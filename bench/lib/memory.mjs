// The memory of the Chromium a benchmark started, read from /proc: shared by bench/bulk.mjs
// (Playwright's Chromium), bench/bulk-memory.mjs and bench/chain.mjs (one started by hand), so
// all count it the same way; and the wasm memories of a page and its workers.
import { readdirSync, readFileSync } from "node:fs";

/**
 * The whole browser's memory: every Chromium process under this Node process, the sum of their
 * resident sets (`rss`: shared pages counted in each, as a process list shows them), of their
 * proportional sets (`pss`: shared pages divided among their sharers: what they take together),
 * and of the latter without file pages (`anon`: Pss_Anon + Pss_Shmem, what the processes
 * allocated: the heaps, and the memory shared between them); all by kind of process too (its
 * --type=, with its --utility-sub-type= for utilities); bytes. File pages (the binary,
 * libraries, fonts) are divided among every process that maps them, this browser's or not:
 * their part of PSS drops when another Chromium starts on the machine, so aims are read on
 * `anon`.
 */
export function browserMemory() {
  const parent = new Map();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch { /* gone */ }
  }
  const mine = new Set([process.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of parent) if (mine.has(ppid) && !mine.has(pid)) { mine.add(pid); grew = true; }
  }
  const m = { processes: 0, rss: 0, pss: 0, anon: 0, by_kind: {} };
  for (const pid of mine) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (!/chrom/.test(cmd.split("\0")[0])) continue;
      const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
      const bytes = (field) => Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(rollup)?.[1] ?? 0) * 1024;
      const pss = bytes("Pss");
      const anon = bytes("Pss_Anon") + bytes("Pss_Shmem");
      m.processes++; m.rss += rss; m.pss += pss; m.anon += anon;
      const args = cmd.split(/[\0 ]/); // Chromium rewrites its command line with spaces
      const kind = [args.find((a) => a.startsWith("--type="))?.slice(7) ?? "browser", args.find((a) => a.startsWith("--utility-sub-type="))?.slice(19).split(".")[0]].filter(Boolean).join(":");
      const k = (m.by_kind[kind] ??= { processes: 0, pss: 0, rss: 0, anon: 0 });
      k.processes++; k.pss += pss; k.rss += rss; k.anon += anon;
    } catch { /* gone */ }
  }
  return m;
}

// The wasm memories of a page or worker: installed before its first script runs, it keeps every
// WebAssembly instance's exported memory (whatever the glue instantiates with); WASM_BYTES sums
// their current buffers (the console's split chunks share the main module's memory).
// Runtime.queryObjects would find them without this, but on the console's page it never
// answers and the page stops answering anything after it.
export const WASM_HOOK = `(() => {
  if (globalThis.__benchWasm) return;
  const memories = globalThis.__benchWasm = new Set();
  const keep = (instance) => { for (const v of Object.values(instance?.exports ?? {})) if (v instanceof WebAssembly.Memory) memories.add(v); return instance; };
  const W = WebAssembly;
  const instantiate = W.instantiate, streaming = W.instantiateStreaming, Instance = W.Instance;
  W.instantiate = function (...args) { return instantiate.apply(this, args).then((r) => (keep(r instanceof Instance ? r : r.instance), r)); };
  if (streaming) W.instantiateStreaming = function (...args) { return streaming.apply(this, args).then((r) => (keep(r.instance), r)); };
  W.Instance = new Proxy(Instance, { construct: (target, args, newTarget) => keep(Reflect.construct(target, args, newTarget)) });
})()`;
export const WASM_BYTES = `globalThis.__benchWasm ? [...new Set([...globalThis.__benchWasm].map((m) => m.buffer))].reduce((n, b) => n + b.byteLength, 0) : null`;

/** A target's (page or worker) wasm memory, bytes; null when it cannot be read. */
export async function wasmMemory(cdp, sessionId) {
  const r = await cdp.send("Runtime.evaluate", { expression: WASM_BYTES, returnByValue: true }, sessionId).catch(() => null);
  return r?.result?.value ?? null;
}
