//! Entry point of the wasm bundle: mounts the console into `<body>`, once its server has said
//! which API it is in front of.

fn main() {
    // Release builds abort on panic without unwinding or messages (smaller wasm), so the hook
    // could never run there; dev builds keep readable panics in the browser console.
    #[cfg(debug_assertions)]
    console_error_panic_hook::set_once();
    // Mounted once the console's server has said which API this is (or after a short wait),
    // so the first render already shows it; the document was asked for beside the wasm.
    wasm_bindgen_futures::spawn_local(async {
        let served = console::state::environment::served_environment().await;
        leptos::mount::mount_to_body(move || {
            leptos::prelude::view! { <console::App served_environment=served /> }
        });
    });
}
