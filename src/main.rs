//! Entry point of the wasm bundle: mounts the console into `<body>`.

fn main() {
    // Release builds abort on panic without unwinding or messages (smaller wasm), so the hook
    // could never run there; dev builds keep readable panics in the browser console.
    #[cfg(debug_assertions)]
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(console::App);
}
