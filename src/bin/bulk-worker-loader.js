// Starts the bulk worker (src/bin/bulk-worker.rs): loads the wasm-bindgen glue trunk wrote beside
// this file (the no-modules target, which defines `wasm_bindgen`), then the module, whose main
// tells the page it is ready. If either does not load, the page hears why (as the runner's
// `Failed` message), says so, and sends nothing.
const failed = (error) => postMessage(JSON.stringify({ Failed: String(error && error.message ? error.message : error) }));
try {
  importScripts("./bulk-worker.js");
  wasm_bindgen({ module_or_path: "./bulk-worker_bg.wasm" }).catch(failed);
} catch (error) {
  failed(error);
}
