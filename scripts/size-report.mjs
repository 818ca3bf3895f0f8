// Prints the built console's transfer sizes (raw, gzip level 9, brotli quality 11: what a server
// sends from the precompressed siblings `cargo xtask finish-dist` writes) and fails when a size is
// over the budget in size-budget.json: the first load in brotli (what a slow link carries before
// the first data: everything but the pages' chunk, src/pages/lazy.rs, and the bulk worker) and the total in gzip
// (everything the browser downloads, as any server can send it).
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
let over = false;
if (first.brotli > firstLoadBudget) {
  console.error(`size-report: first load brotli ${first.brotli} B exceeds the budget of ${firstLoadBudget} B (size-budget.json)`);
  over = true;
}
if (total.gzip > totalBudget) {
  console.error(`size-report: total gzip ${total.gzip} B exceeds the budget of ${totalBudget} B (size-budget.json)`);
  over = true;
}
if (over) process.exit(1);
