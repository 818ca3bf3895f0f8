// Minifies the wasm-bindgen JavaScript glue in a release dist/ and updates its subresource
// integrity hash in index.html. trunk 0.21's own JS minifier cannot parse this glue (it logs
// "Failed to minify JS" and ships it as is), and the glue is ~8 KB of the 180 KB gzip budget.
// Usage: node scripts/minify-glue.mjs [dist-dir]
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { transformSync } from "esbuild";

const dist = process.argv[2] ?? "dist";
const indexPath = join(dist, "index.html");
let index = readFileSync(indexPath, "utf8");
const sri = (bytes) => "sha384-" + createHash("sha384").update(bytes).digest("base64");
for (const name of readdirSync(dist).filter((n) => n.endsWith(".js"))) {
  const path = join(dist, name);
  const source = readFileSync(path);
  const { code } = transformSync(source.toString("utf8"), { minify: true, format: "esm", target: "es2022" });
  const before = sri(source);
  if (!index.includes(before)) {
    console.error(`minify-glue: ${name} has no integrity ${before} in index.html; left as is`);
    process.exit(1);
  }
  writeFileSync(path, code);
  index = index.replaceAll(before, sri(Buffer.from(code)));
  console.log(`minify-glue: ${name} ${source.length} -> ${code.length} bytes`);
}
writeFileSync(indexPath, index);
