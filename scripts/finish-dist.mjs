// Finishes a release dist/ after trunk: minifies the wasm-bindgen JavaScript glue and gives the
// wasm a second binaryen pass, then updates both files' subresource-integrity hashes in
// index.html. Both steps are size work for the 180 KB gzip budget (README, "Speed and size"):
// - trunk 0.21's own JS minifier cannot parse this glue ("Failed to minify JS") and ships it
//   as is: esbuild takes it from 7.8 to 6.2 KB gzip.
// - `--flatten --rereloop -Oz -Oz` after trunk's `-Oz` restructures control flow that a single
//   -Oz leaves: about 0.8 KB gzip less wasm.
// Usage: node scripts/finish-dist.mjs [dist-dir]
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { transformSync } from "esbuild";

const dist = process.argv[2] ?? "dist";
const indexPath = join(dist, "index.html");
let index = readFileSync(indexPath, "utf8");
const sri = (bytes) => "sha384-" + createHash("sha384").update(bytes).digest("base64");

function rewrite(name, transform) {
  const path = join(dist, name);
  const before = readFileSync(path);
  const oldHash = sri(before);
  if (!index.includes(oldHash)) {
    console.error(`finish-dist: index.html has no integrity ${oldHash} for ${name}`);
    process.exit(1);
  }
  const after = transform(path, before);
  writeFileSync(path, after);
  index = index.replaceAll(oldHash, sri(after));
  console.log(`finish-dist: ${name} ${before.length} -> ${after.length} bytes`);
}

for (const name of readdirSync(dist)) {
  if (name.endsWith(".js")) {
    rewrite(name, (_, source) => Buffer.from(
      transformSync(source.toString("utf8"), { minify: true, format: "esm", target: "es2022" }).code));
  } else if (name.endsWith(".wasm")) {
    rewrite(name, (path) => {
      const out = `${path}.opt`;
      execFileSync("wasm-opt", [
        "--enable-bulk-memory", "--enable-nontrapping-float-to-int", "--enable-reference-types",
        "--enable-sign-ext", "--enable-mutable-globals",
        "--flatten", "--rereloop", "-Oz", "-Oz", path, "-o", out,
      ]);
      const bytes = readFileSync(out);
      execFileSync("rm", [out]);
      return bytes;
    });
  }
}
writeFileSync(indexPath, index);
