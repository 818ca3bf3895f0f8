// Finishes a release dist/ after trunk, then updates the subresource-integrity hashes of the
// files it changed in index.html. Three steps, each measured (docs/performance.md):
// - esbuild minifies the wasm-bindgen JavaScript glue: trunk 0.21's own minifier cannot parse
//   it ("Failed to minify JS") and ships it as is.
// - a second binaryen pass, `--flatten --rereloop -Oz -Oz` after trunk's `-Oz`, restructures
//   control flow that a single -Oz leaves.
// - wasm-bindgen names each of the ~190 functions the wasm imports from its glue like
//   `__wbg_appendChild_dbf7ad2f48413560`, once in the wasm's import section and once as a key of
//   the glue's import object; the hashes do not compress. Both are renamed to short names
//   (`a`, `b`, …) and the import module to `m`: 6.4 KB gzip less. The step checks that every
//   name occurs exactly once in the glue, and fails the build otherwise.
// With `--split DIR --linked FILE` (release builds, scripts/build-console.sh), the pages' chunk
// that crates/wasm-split-link cut out of the main module joins dist/: each chunk gets the same
// binaryen passes and a content-hashed name, its loader (`__wasm_split.js`) is pointed at the
// glue and the chunks' names, minified and preloaded from index.html, and the glue imports it.
// The glue and the loader are renamed by one hash over both and the main wasm (see addSplit).
// The chunks must belong to the module trunk bound (FILE, the linked console.wasm): finish-dist
// refuses them otherwise.
// The bulk worker (trunk's `data-type="worker"` asset, named without a hash: the page starts it
// by name) gets the same minifier and binaryen pass; its names stay.
// Last, every text asset (wasm included) gets precompressed siblings, `name.br` (brotli quality
// 11) and `name.gz` (gzip level 9), for servers that send them by Accept-Encoding (the sandbox's
// --dist, nginx's brotli_static/gzip_static): the best ratio at no cost per request.
// Usage: node scripts/finish-dist.mjs [dist-dir] [--split DIR --linked FILE]
import { readdirSync, readFileSync, writeFileSync, rmSync, existsSync } from "node:fs";
import { join, extname, basename } from "node:path";
import { brotliCompressSync, gzipSync, constants } from "node:zlib";
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { transformSync } from "esbuild";

const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(name);
  if (at < 0) return undefined;
  const [value] = args.splice(at, 2).slice(1);
  if (!value) fail(`${name} needs a value`);
  return value;
};
const splitDir = option("--split");
const linked = option("--linked");
const dist = args[0] ?? "dist";
const fail = (message) => {
  console.error(`finish-dist: ${message}`);
  process.exit(1);
};
if (!!splitDir !== !!linked) fail("--split and --linked go together");
// The bulk worker's files (src/bin/bulk-worker.rs, its loader); everything else is the app's.
const WORKER_PREFIX = "bulk-worker";
const only = (suffix) => {
  const names = readdirSync(dist).filter((n) => n.endsWith(suffix) && !n.startsWith(WORKER_PREFIX));
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
const FEATURES = [
  "--enable-bulk-memory", "--enable-nontrapping-float-to-int", "--enable-reference-types",
  "--enable-sign-ext", "--enable-mutable-globals",
];
const SECOND_PASS = ["--flatten", "--rereloop", "-Oz", "-Oz"];
execFileSync("wasm-opt", [...FEATURES, ...SECOND_PASS, wasmPath, "-o", optimized]);
let wasm = readFileSync(optimized);
rmSync(optimized);

// 3. Short import names.
({ wasm, js } = shortenImportNames(wasm, js));

let index = readFileSync(indexPath, "utf8");
// 4. The pages' chunk and its loader; the glue may get a new name.
let jsOut = jsPath;
if (splitDir) ({ js, index, jsOut } = addSplit(js, wasm, index));

// Index.html's integrity hashes follow the files.
for (const [kind, path, out, after] of [["js", jsPath, jsOut, Buffer.from(js)], ["wasm", wasmPath, wasmPath, wasm]]) {
  const oldHash = sri(before[kind]);
  if (!index.includes(oldHash)) fail(`index.html has no integrity ${oldHash} for ${path}`);
  index = index.replaceAll(oldHash, sri(after));
  if (out !== path) rmSync(path);
  writeFileSync(out, after);
  console.log(`finish-dist: ${out} ${before[kind].length} -> ${after.length} bytes`);
}
writeFileSync(indexPath, index);

// 5. The bulk worker.
finishWorker();

// 6. Precompressed siblings, made from the final files.
precompress(dist);

/**
 * Puts the chunks of `splitDir` and their loader into dist (see the header). The glue and the
 * loader import each other, so neither name can be a hash of its own final text: both are
 * named by one hash over the glue, the loader (which names the chunks by their own hashes) and
 * the main wasm, so a change to any of them renames both, as the immutable cache rule needs
 * (trunk's name for the glue would not change with the chunk alone). Returns the glue, now
 * importing the loader, index.html, now loading the glue by its new name and preloading the
 * loader, and the glue's new path.
 */
function addSplit(js, wasm, index) {
  const mainModule = join(splitDir, "main.wasm");
  if (!existsSync(mainModule)) fail(`${splitDir} has no main.wasm: was the console linked by wasm-split-link?`);
  if (!readFileSync(mainModule).equals(readFileSync(linked))) {
    fail(`the chunks in ${splitDir} belong to another build than ${linked}; rebuild (touch src/main.rs)`);
  }
  const hashed = (bytes) => createHash("sha256").update(bytes).digest("hex").slice(0, 16);
  const replaceOnce = (text, from, to, what) => {
    if (text.split(from).length !== 2) fail(`${what}: expected ${from} once`);
    return text.replace(from, to);
  };
  let loader = readFileSync(join(splitDir, "__wasm_split.js"), "utf8");
  const chunks = readdirSync(splitDir).filter((n) => n.endsWith(".wasm") && n !== "main.wasm");
  if (chunks.length === 0) fail(`${splitDir} has no chunks`);
  for (const chunk of chunks) {
    const optimized = join(dist, `${chunk}.opt`);
    execFileSync("wasm-opt", [...FEATURES, "-Oz", ...SECOND_PASS, join(splitDir, chunk), "-o", optimized]);
    const bytes = readFileSync(optimized);
    rmSync(optimized);
    const name = `console-${chunk.replace(/^split_/, "").replace(/\.wasm$/, "")}-${hashed(bytes)}.wasm`;
    writeFileSync(join(dist, name), bytes);
    loader = replaceOnce(loader, `"./${chunk}"`, `"./${name}"`, "the loader");
    console.log(`finish-dist: chunk ${name} ${bytes.length} bytes`);
  }
  // The main module exports its table under the name wasm-bindgen keeps (crates/wasm-split-link).
  loader = replaceOnce(loader, "const { __indirect_function_table,", "const { __wasm_split_table: __indirect_function_table,", "the loader");
  const together = hashed(Buffer.concat([Buffer.from(js), Buffer.from(loader), wasm]));
  const glueName = `console-${together}.js`;
  const loaderName = `console-split-${together}.js`;
  loader = replaceOnce(loader, `from "./console.js"`, `from "./${glueName}"`, "the loader");
  loader = transformSync(loader, { minify: true, format: "esm", target: "es2022" }).code;
  writeFileSync(join(dist, loaderName), loader);
  js = replaceOnce(js, `from"./__wasm_split.js"`, `from"./${loaderName}"`, "the glue");
  // index.html names the glue twice: trunk's inline loader imports it, a modulepreload fetches it.
  const trunkName = `/${basename(jsPath)}`;
  if (index.split(trunkName).length !== 3) fail(`index.html: expected ${trunkName} twice`);
  index = index.replaceAll(trunkName, `/${glueName}`);
  // Fetched with the glue rather than after it: one round trip less before the app starts.
  const preload = `<link crossorigin href=/${loaderName} integrity=${sri(Buffer.from(loader))} rel=modulepreload>`;
  index = replaceOnce(index, "</head>", `${preload}</head>`, "index.html");
  console.log(`finish-dist: loader ${loaderName} ${loader.length} bytes, ${chunks.length} chunk(s)`);
  return { js, index, jsOut: join(dist, glueName) };
}

/**
 * Minifies the bulk worker's glue and loader (classic scripts: the worker imports them with
 * importScripts) and gives its module the second binaryen pass, in place.
 */
function finishWorker() {
  const glue = join(dist, `${WORKER_PREFIX}.js`);
  const module = join(dist, `${WORKER_PREFIX}_bg.wasm`);
  const loader = join(dist, `${WORKER_PREFIX}-loader.js`);
  for (const path of [glue, module, loader]) if (!existsSync(path)) fail(`no ${path}: the bulk worker was not built`);
  for (const path of [glue, loader]) {
    const before = readFileSync(path, "utf8");
    const after = transformSync(before, { minify: true, target: "es2022" }).code;
    writeFileSync(path, after);
    console.log(`finish-dist: ${path} ${before.length} -> ${after.length} bytes`);
  }
  const size = readFileSync(module).length;
  execFileSync("wasm-opt", [...FEATURES, ...SECOND_PASS, module, "-o", `${module}.opt`]);
  writeFileSync(module, readFileSync(`${module}.opt`));
  rmSync(`${module}.opt`);
  console.log(`finish-dist: ${module} ${size} -> ${readFileSync(module).length} bytes`);
}

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
  // The module the split chunks' loader is imported as (wasm_split_cli_support's default).
  const SPLIT_LOADER = "./__wasm_split.js";
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
      if (module === SPLIT_LOADER) {
        // The loader's exports keep their names: the loader module is not the glue.
        section.push(...writeName("s"), ...writeName(field), ...wasm.subarray(describedFrom, at));
        continue;
      }
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
  const loaderKey = `${JSON.stringify(SPLIT_LOADER)}:`;
  if (js.includes(loaderKey)) {
    if (js.split(loaderKey).length !== 2) fail(`the module name ${SPLIT_LOADER} is not once a key in the glue`);
    js = js.replace(loaderKey, "s:");
  }
  console.log(`finish-dist: ${renames.length} imports renamed`);
  return { wasm: Buffer.concat(parts), js };
}
