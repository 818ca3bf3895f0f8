// What each file of a release build (dist/) is, for the size report and the first-load bench:
// both must draw the first load's line in the same place.
import { extname } from "node:path";

const KIND_BY_EXTENSION = { ".wasm": "wasm", ".js": "js", ".css": "css", ".html": "html" };

/**
 * The kind of a built file: `wasm` (trunk's main `*_bg.wasm`), `js`, `css`, `html`; `chunks`, any
 * other wasm (the pages' chunk, src/pages/lazy.rs, fetched after the first screen); `worker`, the
 * bulk worker's glue, loader and module, loaded only when a batch runs. Undefined for anything
 * else (the precompressed siblings, images).
 */
export function distFileKind(name) {
  const kind = KIND_BY_EXTENSION[extname(name)];
  if (!kind) return undefined;
  if (name.startsWith("bulk-worker")) return "worker";
  return kind === "wasm" && !name.endsWith("_bg.wasm") ? "chunks" : kind;
}

/** The kinds the first screen does not wait for. */
export const LOADED_AFTER_FIRST_SCREEN = new Set(["chunks", "worker"]);
