//! Entry point of the wasm bundle: mounts the console into `<body>`.

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(console::App);
}
