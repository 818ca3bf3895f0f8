//! Entry point of the bulk worker's wasm: the runner of a bulk batch (`console::runner`), in a
//! dedicated Web Worker that the page starts through `bulk-worker-loader.js` when a batch starts
//! or resumes. trunk builds it from index.html (`data-type="worker"`).

fn main() {
    #[cfg(debug_assertions)]
    console_error_panic_hook::set_once();
    console::runner::start_in_worker();
}
