// The memory of the Chromium a benchmark started, read from /proc: shared by bench/bulk.mjs
// (Playwright's Chromium) and bench/bulk-memory.mjs (one started by hand), so both count it the
// same way.
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
