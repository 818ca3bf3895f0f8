// Finishes a release dist/ after trunk, then updates the subresource-integrity hashes of the
// files it changed in index.html. Three steps, each measured (README, "Speed and size"):
// - esbuild minifies the wasm-bindgen JavaScript glue: trunk 0.21's own minifier cannot parse
//   it ("Failed to minify JS") and ships it as is.
// - a second binaryen pass, `--flatten --rereloop -Oz -Oz` after trunk's `-Oz`, restructures
//   control flow that a single -Oz leaves.
// - wasm-bindgen names each of the ~190 functions the wasm imports from its glue like
//   `__wbg_appendChild_dbf7ad2f48413560`, once in the wasm's import section and once as a key of
//   the glue's import object; the hashes do not compress. Both are renamed to short names
//   (`a`, `b`, …) and the import module to `m`: 6.4 KB gzip less. The step checks that every
//   name occurs exactly once in the glue, and fails the build otherwise.
// Last, every text asset (wasm included) gets precompressed siblings, `name.br` (brotli quality
// 11) and `name.gz` (gzip level 9), for servers that send them by Accept-Encoding (the sandbox's
// --dist, nginx's brotli_static/gzip_static): the best ratio at no cost per request.
// Usage: node scripts/finish-dist.mjs [dist-dir]
import { readdirSync, readFileSync, writeFileSync, rmSync, existsSync } from "node:fs";
import { join, extname } from "node:path";
import { brotliCompressSync, gzipSync, constants } from "node:zlib";
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { transformSync } from "esbuild";

const dist = process.argv[2] ?? "dist";
const fail = (message) => {
  console.error(`finish-dist: ${message}`);
  process.exit(1);
};
const only = (suffix) => {
  const names = readdirSync(dist).filter((n) => n.endsWith(suffix));
  if (names.length !== 1) fail(`expected one *${suffix} in ${dist}, found ${names.length}`);
  return join(dist, names[0]);
};
const jsPath = only(".js");
const wasmPath = only(".wasm");
const indexPath = join(dist, "index.html");
const sri = (bytes) => "sha384-" + createHash("sha384").update(bytes).digest("base64");
const before = { js: readFileSync(jsPath), wasm: readFileSync(wasmPath) };

// 1. The glue, minified.
let js = transformSync(before.js.toString("utf8"), { minify: true, format: "esm", target: "es2022" }).code;

// 2. The second binaryen pass.
const optimized = `${wasmPath}.opt`;
execFileSync("wasm-opt", [
  "--enable-bulk-memory", "--enable-nontrapping-float-to-int", "--enable-reference-types",
  "--enable-sign-ext", "--enable-mutable-globals",
  "--flatten", "--rereloop", "-Oz", "-Oz", wasmPath, "-o", optimized,
]);
let wasm = readFileSync(optimized);
rmSync(optimized);

// 3. Short import names.
({ wasm, js } = shortenImportNames(wasm, js));

// Index.html's integrity hashes follow the files.
let index = readFileSync(indexPath, "utf8");
for (const [kind, path, after] of [["js", jsPath, Buffer.from(js)], ["wasm", wasmPath, wasm]]) {
  const oldHash = sri(before[kind]);
  if (!index.includes(oldHash)) fail(`index.html has no integrity ${oldHash} for ${path}`);
  index = index.replaceAll(oldHash, sri(after));
  writeFileSync(path, after);
  console.log(`finish-dist: ${path} ${before[kind].length} -> ${after.length} bytes`);
}
writeFileSync(indexPath, index);

// 4. Precompressed siblings, made from the final files.
precompress(dist);

/**
 * Writes `name.br` and `name.gz` beside every text asset under `dir`, and removes siblings whose
 * asset is gone. A sibling is written only when smaller than the asset, since a server sends it
 * whenever it exists. Compressed files are never compressed again, so a rerun is harmless.
 */
function precompress(dir) {
  const text = new Set([".wasm", ".js", ".mjs", ".css", ".html", ".svg", ".json", ".txt", ".xml", ".map", ".webmanifest"]);
  let count = 0;
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        walk(path);
        continue;
      }
      if (entry.name.endsWith(".br") || entry.name.endsWith(".gz")) {
        if (!existsSync(path.slice(0, -3))) rmSync(path);
        continue;
      }
      if (!text.has(extname(entry.name))) continue;
      const bytes = readFileSync(path);
      const variants = {
        br: brotliCompressSync(bytes, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: 11,
            [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
            [constants.BROTLI_PARAM_MODE]: extname(entry.name) === ".wasm" ? constants.BROTLI_MODE_GENERIC : constants.BROTLI_MODE_TEXT,
          },
        }),
        gz: gzipSync(bytes, { level: 9 }),
      };
      for (const [suffix, packed] of Object.entries(variants)) {
        if (packed.length < bytes.length) {
          writeFileSync(`${path}.${suffix}`, packed);
          count++;
        } else {
          rmSync(`${path}.${suffix}`, { force: true });
        }
      }
    }
  };
  walk(dir);
  console.log(`finish-dist: ${count} precompressed files (.br quality 11, .gz level 9)`);
}

/**
 * Renames every function import of `wasm` whose name occurs exactly once in `js`, as the key
 * `name:` of the glue's import object, to a short name, in both. Fails if any import does not.
 */
function shortenImportNames(wasm, js) {
  const readU32 = (pos) => {
    let value = 0, shift = 0, byte;
    do {
      byte = wasm[pos++];
      value |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    return [value >>> 0, pos];
  };
  const leb = (n) => {
    const out = [];
    do {
      let byte = n & 0x7f;
      n >>>= 7;
      if (n) byte |= 0x80;
      out.push(byte);
    } while (n);
    return out;
  };
  const readName = (pos) => {
    const [length, start] = readU32(pos);
    return [wasm.subarray(start, start + length).toString("utf8"), start + length];
  };
  const writeName = (text) => {
    const bytes = Buffer.from(text, "utf8");
    return [...leb(bytes.length), ...bytes];
  };
  const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  const shortName = (i) => (i < letters.length ? "" : letters[Math.floor(i / letters.length) - 1]) + letters[i % letters.length];

  const parts = [wasm.subarray(0, 8)];
  const renames = [];
  const modules = new Set();
  let pos = 8;
  while (pos < wasm.length) {
    const id = wasm[pos];
    const [size, start] = readU32(pos + 1);
    const end = start + size;
    if (id !== 2) {
      parts.push(wasm.subarray(pos, end));
      pos = end;
      continue;
    }
    let [count, at] = readU32(start);
    const section = [...leb(count)];
    for (let i = 0; i < count; i++) {
      let module, field;
      [module, at] = readName(at);
      [field, at] = readName(at);
      const describedFrom = at;
      const kind = wasm[at++];
      if (kind !== 0) fail(`import ${module}.${field} is not a function (kind ${kind})`);
      [, at] = readU32(at); // its type index
      if (js.split(field).length !== 2 || !js.includes(`${field}:`)) {
        fail(`import ${field} is not exactly one key of the glue's import object`);
      }
      const renamed = shortName(renames.length);
      renames.push([field, renamed]);
      modules.add(module);
      section.push(...writeName("m"), ...writeName(renamed), ...wasm.subarray(describedFrom, at));
    }
    parts.push(Buffer.from([2, ...leb(section.length), ...section]));
    pos = end;
  }
  if (modules.size !== 1) fail(`expected one import module, found ${[...modules].join(", ")}`);
  const [module] = modules;
  if (js.split(JSON.stringify(module)).length !== 2) fail(`the module name ${module} is not once in the glue`);
  for (const [field, renamed] of renames) js = js.replace(`${field}:`, `${renamed}:`);
  js = js.replace(JSON.stringify(module), '"m"');
  console.log(`finish-dist: ${renames.length} imports renamed`);
  return { wasm: Buffer.concat(parts), js };
}
