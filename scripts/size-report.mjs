// Prints the built console's transfer sizes (raw and gzip) and fails over the budget.
// Usage: node scripts/size-report.mjs [dist-dir] [budget-gzip-bytes]
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, extname } from "node:path";
import { gzipSync, constants } from "node:zlib";

const dist = process.argv[2] ?? "dist";
const budget = Number(process.argv[3] ?? 392_000);
const kinds = { ".wasm": "wasm", ".js": "js", ".css": "css", ".html": "html" };
const rows = {};
for (const name of readdirSync(dist)) {
  const path = join(dist, name);
  const kind = kinds[extname(name)];
  if (!kind || !statSync(path).isFile()) continue;
  const bytes = readFileSync(path);
  const gzip = gzipSync(bytes, { level: constants.Z_BEST_COMPRESSION }).length;
  rows[kind] ??= { raw: 0, gzip: 0 };
  rows[kind].raw += bytes.length;
  rows[kind].gzip += gzip;
}
if (!rows.wasm || !rows.js) {
  console.error(`size-report: no wasm/js in ${dist}; build the console first`);
  process.exit(1);
}
const kb = (n) => (n / 1000).toFixed(1).padStart(8) + " KB";
let total = { raw: 0, gzip: 0 };
console.log("console size   raw            gzip");
for (const kind of ["wasm", "js", "css", "html"]) {
  const r = rows[kind] ?? { raw: 0, gzip: 0 };
  total.raw += r.raw;
  total.gzip += r.gzip;
  console.log(`  ${kind.padEnd(6)} ${kb(r.raw)}  ${kb(r.gzip)}`);
}
console.log(`  ${"total".padEnd(6)} ${kb(total.raw)}  ${kb(total.gzip)}   (budget ${kb(budget).trim()} gzip)`);
if (total.gzip > budget) {
  console.error(`size-report: total gzip ${total.gzip} B exceeds the budget of ${budget} B`);
  process.exit(1);
}
