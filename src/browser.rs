//! The few browser facilities the console uses directly: waiting (a timer, or the tab being
//! shown), the clipboard, focus and file downloads.

use std::time::Duration;

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// Resolves after `delay` (a `setTimeout`). Code that awaits it from a page runs in a task
/// spawned with `spawn_local_scoped_with_cancellation`, so leaving the page drops the wait.
pub async fn sleep(delay: Duration) {
    let ms = i32::try_from(delay.as_millis()).unwrap_or(i32::MAX);
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = window().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
    });
    let _ = JsFuture::from(promise).await;
}

/// Whether the tab is hidden (another tab in front, or minimised).
pub fn page_hidden() -> bool {
    document().visibility_state() == web_sys::VisibilityState::Hidden
}

/// Resolves at once if the tab is visible, else when a `visibilitychange` event shows it.
pub async fn until_visible() {
    while page_hidden() {
        let promise = js_sys::Promise::new(&mut |resolve, _| {
            let options = web_sys::AddEventListenerOptions::new();
            options.set_once(true);
            let _ = document().add_event_listener_with_callback_and_add_event_listener_options(
                "visibilitychange",
                &resolve,
                &options,
            );
        });
        let _ = JsFuture::from(promise).await;
    }
}

/// Copies text to the clipboard; the browser may refuse outside a user gesture.
pub fn copy_text(text: &str) {
    let _ = window().navigator().clipboard().write_text(text);
}

/// Moves keyboard focus to the element with `id`, if there is one.
pub fn focus_id(id: &str) {
    if let Some(element) = document()
        .get_element_by_id(id)
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = element.focus();
    }
}

/// Saves `text` as a file named `name`, through a temporary object URL.
pub fn download(name: &str, mime: &str, text: &str) {
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    if let Some(anchor) = document()
        .create_element("a")
        .ok()
        .and_then(|e| e.dyn_into::<web_sys::HtmlAnchorElement>().ok())
    {
        anchor.set_href(&url);
        anchor.set_download(name);
        anchor.click();
    }
    // Some browsers read the URL after the click returns; free it a while later.
    set_timeout(
        move || {
            let _ = web_sys::Url::revoke_object_url(&url);
        },
        Duration::from_secs(60),
    );
}
