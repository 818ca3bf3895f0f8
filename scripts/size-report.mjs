// Prints the built console's transfer sizes (raw, gzip level 9, brotli quality 11: what a server
// sends from the precompressed siblings `cargo xtask finish-dist` writes) and fails when a size is
// over the budget in size-budget.json: the first load in brotli (what a slow link carries before
// the first data: everything but the pages' chunk, src/pages/lazy.rs, and the bulk worker) and the total in gzip
// (everything the browser downloads, as any server can send it). It also fails when a limit is
// far above its measure (the budget's rule, below).
// Usage: node scripts/size-report.mjs [dist-dir]
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, gzipSync, constants } from "node:zlib";
import { distFileKind, LOADED_AFTER_FIRST_SCREEN } from "./dist-files.mjs";

const dist = process.argv[2] ?? "dist";
const budgetFile = join(dirname(fileURLToPath(import.meta.url)), "..", "size-budget.json");
const { first_load_brotli_bytes: firstLoadBudget, total_gzip_bytes: totalBudget } = JSON.parse(readFileSync(budgetFile, "utf8"));
if (!Number.isFinite(firstLoadBudget) || !Number.isFinite(totalBudget)) {
  console.error(`size-report: ${budgetFile} must give first_load_brotli_bytes and total_gzip_bytes`);
  process.exit(1);
}
const rows = {};
for (const name of readdirSync(dist)) {
  const path = join(dist, name);
  const kind = distFileKind(name);
  if (!kind || !statSync(path).isFile()) continue;
  const bytes = readFileSync(path);
  const gzip = gzipSync(bytes, { level: constants.Z_BEST_COMPRESSION }).length;
  const brotli = brotliCompressSync(bytes, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
  }).length;
  rows[kind] ??= { raw: 0, gzip: 0, brotli: 0 };
  rows[kind].raw += bytes.length;
  rows[kind].gzip += gzip;
  rows[kind].brotli += Math.min(brotli, bytes.length);
}
if (!rows.wasm || !rows.js) {
  console.error(`size-report: no wasm/js in ${dist}; build the console first`);
  process.exit(1);
}
const kb = (n) => (n / 1000).toFixed(1).padStart(8) + " KB";
const total = { raw: 0, gzip: 0, brotli: 0 };
console.log("console size   raw            gzip           brotli");
const first = { raw: 0, gzip: 0, brotli: 0 };
for (const kind of ["wasm", "js", "css", "html", "chunks", "worker"]) {
  const r = rows[kind] ?? { raw: 0, gzip: 0, brotli: 0 };
  for (const k of Object.keys(total)) {
    total[k] += r[k];
    if (!LOADED_AFTER_FIRST_SCREEN.has(kind)) first[k] += r[k];
  }
  console.log(`  ${kind.padEnd(6)} ${kb(r.raw)}  ${kb(r.gzip)}  ${kb(r.brotli)}`);
}
console.log(`  ${"total".padEnd(6)} ${kb(total.raw)}  ${kb(total.gzip)}  ${kb(total.brotli)}   (budget ${kb(totalBudget).trim()} gzip)`);
console.log(`  first load (all but the chunks and the worker) ${kb(first.gzip).trim()} gzip, ${kb(first.brotli).trim()} brotli   (budget ${kb(firstLoadBudget).trim()} brotli)`);
// The budget's rule (size-budget.json): each limit is set HEADROOM above its measure, and
// lowered with the size it guards. A limit more than SLACK above its measure means a size went
// down without its limit: the report fails and says what to set, so the room that a smaller
// build freed never goes to the next feature unnoticed.
const HEADROOM = 0.03;
const SLACK = 0.05;
const limits = [
  { name: "first load brotli", key: "first_load_brotli_bytes", measured: first.brotli, limit: firstLoadBudget },
  { name: "total gzip", key: "total_gzip_bytes", measured: total.gzip, limit: totalBudget },
];
let failed = false;
for (const { name, key, measured, limit } of limits) {
  const suggested = Math.ceil((measured * (1 + HEADROOM)) / 10) * 10;
  if (measured > limit) {
    console.error(`size-report: ${name} ${measured} B exceeds the budget of ${limit} B (size-budget.json ${key}). A feature that needs it raises the limit in its own commit, to ${suggested} (its measure + ${HEADROOM * 100}%), and says so.`);
    failed = true;
  } else if (limit > measured * (1 + SLACK)) {
    console.error(`size-report: ${name} ${measured} B is more than ${SLACK * 100}% under its limit of ${limit} B: lower size-budget.json's ${key} to ${suggested} (the measure + ${HEADROOM * 100}%) in the commit that made it smaller.`);
    failed = true;
  }
}
if (failed) process.exit(1);
