//! The few browser facilities the console uses directly: timers, randomness, clipboard, focus.

use wasm_bindgen::JsCast;

/// Resolves after `ms` milliseconds.
pub async fn sleep_ms(ms: u32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = web_sys::window()
            .expect("a window")
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms as i32);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// 16 bytes from the browser's cryptographic random source.
pub fn random_bytes() -> [u8; 16] {
    let mut bytes = [0u8; 16];
    if let Some(crypto) = web_sys::window().and_then(|w| w.crypto().ok()) {
        let _ = crypto.get_random_values_with_u8_array(&mut bytes);
    }
    bytes
}

/// Copies text to the clipboard; the browser may refuse outside a user gesture.
pub fn copy_text(text: &str) {
    if let Some(window) = web_sys::window() {
        let _ = window.navigator().clipboard().write_text(text);
    }
}

/// Moves keyboard focus to the element with `id`, if there is one.
pub fn focus_id(id: &str) {
    if let Some(element) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id))
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = element.focus();
    }
}

/// Milliseconds since the page loaded, for elapsed-time displays.
pub fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// Whether the tab is hidden (another tab in front, or minimised).
pub fn page_hidden() -> bool {
    web_sys::window()
        .and_then(|w| w.document())
        .is_some_and(|d| d.visibility_state() == web_sys::VisibilityState::Hidden)
}

/// Saves `text` as a file named `name`, through a temporary object URL.
pub fn download(name: &str, mime: &str, text: &str) {
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    if let Some(anchor) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.create_element("a").ok())
        .and_then(|e| e.dyn_into::<web_sys::HtmlAnchorElement>().ok())
    {
        anchor.set_href(&url);
        anchor.set_download(name);
        anchor.click();
    }
    // Some browsers read the URL after the click returns; free it a while later.
    wasm_bindgen_futures::spawn_local(async move {
        sleep_ms(60_000).await;
        let _ = web_sys::Url::revoke_object_url(&url);
    });
}
