// The first load's size profile: what the main wasm module (the first screen's code, the pages'
// chunk already cut out) is made of, by crate and by the console's own modules, and its largest
// functions. Reads the module `crates/wasm-split-link` leaves after a release build
// (scripts/build-console.sh), which still has its function names (wasm-bindgen and wasm-opt run
// after it), with twiggy (crates.io, installed into target/tools on first use). Writes the tables
// into docs/performance.md between its size-profile markers, so the profile in the docs is always
// one the script made.
// Usage: node scripts/size-profile.mjs [main.wasm] [--print]
//
// Sizes are of that module before wasm-opt: the final module (dist/*_bg.wasm, whose size the
// profile prints beside) is smaller, and what each part weighs in brotli is not known part by part. The shares are what
// count: a module with 10% of the code before wasm-opt is about 10% of the first load's wasm.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { brotliCompressSync, constants } from "node:zlib";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const TWIGGY_VERSION = "0.8.0";
const twiggy = join(root, "target/tools/bin/twiggy");
const args = process.argv.slice(2);
const printOnly = args.includes("--print");
const input = args.find((arg) => !arg.startsWith("--")) ?? join(root, "target/web/wasm-split/main.wasm");
const doc = join(root, "docs/performance.md");
const START = "<!-- size-profile:start (scripts/size-profile.mjs writes this part) -->";
const END = "<!-- size-profile:end -->";

if (!existsSync(input)) {
  console.error(`size-profile: ${input} does not exist: run scripts/build-console.sh first`);
  process.exit(1);
}
if (!existsSync(twiggy)) {
  console.error(`size-profile: installing twiggy ${TWIGGY_VERSION} into target/tools`);
  execFileSync("cargo", ["install", "twiggy", "--version", TWIGGY_VERSION, "--locked", "--root", join(root, "target/tools")], {
    stdio: "inherit",
  });
}

/** Every item of the module (functions, data segments, sections) with its own size. */
const items = JSON.parse(
  execFileSync(twiggy, ["top", "--format", "json", input], { maxBuffer: 1 << 30 }).toString(),
);

// Gone before the browser gets the module: the names, wasm-bindgen's section, and the
// `__wbindgen_describe_*` functions and their exports, which wasm-bindgen runs and removes.
const STRIPPED = /^("function names" subsection|custom section |"local names"|"producers")|__wbindgen_describe/;
const code = items.filter((item) => !STRIPPED.test(item.name));
const codeBytes = code.reduce((sum, item) => sum + item.shallow_size, 0);

/** `crate[hash]::a::b` → `crate::a::b`. */
const unhashed = (name) => name.replace(/\[[0-9a-f]{1,16}\]/g, "");

/**
 * Who an item is for: the first of the console's own paths in its name (a generic function
 * instantiated for a console closure is that closure's cost), as `console::pages::sign_in`; else
 * its crate; data segments and tables apart.
 */
function ownerOf(name) {
  const plain = unhashed(name);
  const own = plain.match(/\bconsole::([A-Za-z_0-9:]+)/);
  if (own) {
    // The module path: the leading lower-case segments (`pages::sign_in` of
    // `pages::sign_in::SignInPage`, `app` of `app::__component_app`), two levels at most.
    const modules = [];
    for (const segment of own[1].split("::")) {
      if (!/^[a-z][a-z_0-9]*$/.test(segment) || modules.length === 2) break;
      modules.push(segment);
    }
    return { crate: "console (this crate)", module: `console::${modules.join("::") || "(root)"}` };
  }
  if (/^data segment|^elem\[|^table\[|^global\[|^type\[|^import |^export |^memory\[/.test(plain)) {
    return { crate: "(data, tables, imports, exports)", module: null };
  }
  const crate = plain.match(/([a-z_][a-z_0-9]*)::/);
  return { crate: crate ? crate[1] : "(other)", module: null };
}

const byCrate = new Map();
const byModule = new Map();
for (const item of code) {
  const { crate, module } = ownerOf(item.name);
  byCrate.set(crate, (byCrate.get(crate) ?? 0) + item.shallow_size);
  if (module) byModule.set(module, (byModule.get(module) ?? 0) + item.shallow_size);
}

const bytes = (n) => n.toLocaleString("en-US");
const share = (n) => `${((100 * n) / codeBytes).toFixed(1)}%`;
const sorted = (map) => [...map.entries()].sort((a, b) => b[1] - a[1]);
const shorten = (name, max = 140) => {
  const plain = unhashed(name).replace(/\|/g, "\\|");
  return plain.length > max ? `${plain.slice(0, max - 1)}…` : plain;
};

// The module the browser gets, from the same build, for the scale of the shares.
const dist = join(root, "dist");
const shipped = existsSync(dist)
  ? readdirSync(dist).find((name) => name.endsWith("_bg.wasm") && !name.startsWith("bulk-worker"))
  : undefined;
let shippedLine = "No dist/ to compare with.";
if (shipped) {
  const wasm = readFileSync(join(dist, shipped));
  const brotli = brotliCompressSync(wasm, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  shippedLine = `The module the browser gets from the same build (\`dist/${shipped.replace(/-[0-9a-f]+_bg/, "-…_bg")}\`): ${bytes(wasm.length)} B raw (${(wasm.length / codeBytes).toFixed(2)}×), ${bytes(brotli)} B brotli.`;
}

const lines = [
  START,
  "",
  `The main module after the split, before wasm-bindgen and wasm-opt: ${bytes(codeBytes)} B of code and data (its names,`,
  `wasm-bindgen's section and its describe functions, removed later, not counted). ${shippedLine}`,
  "",
  "**By crate**",
  "",
  "| Crate | Bytes | Share |",
  "|---|---:|---:|",
  ...sorted(byCrate).slice(0, 20).map(([crate, n]) => `| ${crate} | ${bytes(n)} | ${share(n)} |`),
  "",
  "**The console's own modules** (a generic function of another crate instantiated for a console",
  "type or closure counts for that module)",
  "",
  "| Module | Bytes | Share |",
  "|---|---:|---:|",
  ...sorted(byModule).slice(0, 30).map(([module, n]) => `| ${module} | ${bytes(n)} | ${share(n)} |`),
  "",
  "**The 25 largest functions**",
  "",
  "| Bytes | Function |",
  "|---:|---|",
  ...code
    .filter((item) => !/^data segment|^elem\[/.test(item.name))
    .slice(0, 25)
    .map((item) => `| ${bytes(item.shallow_size)} | \`${shorten(item.name)}\` |`),
  "",
  END,
];
const profile = lines.join("\n");

if (printOnly) {
  console.log(profile);
} else {
  const text = readFileSync(doc, "utf8");
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) {
    console.error(`size-profile: ${doc} has no size-profile markers`);
    process.exit(1);
  }
  writeFileSync(doc, text.slice(0, start) + profile + text.slice(end + END.length));
  console.log(`size-profile: wrote the profile of ${input} into ${doc}`);
}
