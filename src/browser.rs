//! The few browser facilities the console uses directly: waiting (a timer, or the tab being
//! shown), the clipboard, focus, file downloads, Web Locks and the preferences in localStorage
//! ([`preferences`]). [`sleep`] also works in the bulk worker (no `window` there).

pub mod preferences;

use std::time::Duration;

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// The global `setTimeout`: a page's window and a worker's scope both have it.
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout_in_any_scope(handler: &js_sys::Function, ms: i32) -> JsValue;
}

/// Resolves after `delay` (a `setTimeout`), in a page or a worker. Code that awaits it from a
/// page runs in a task spawned with `spawn_local_scoped_with_cancellation`, so leaving the page
/// drops the wait.
pub async fn sleep(delay: Duration) {
    let ms = i32::try_from(delay.as_millis()).unwrap_or(i32::MAX);
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        set_timeout_in_any_scope(&resolve, ms);
    });
    let _ = JsFuture::from(promise).await;
}

/// Lets the page draw and answer before the work that follows, when it is shown: a task of
/// its own after a `setTimeout(0)`. A hidden tab draws nothing, and there the browser holds such
/// timers back (a second at least, a minute after a while), which would hold back the work for
/// nothing: it goes on at once.
pub async fn yield_to_page() {
    if !page_hidden() {
        sleep(Duration::ZERO).await;
    }
}

/// Runs `then` once the next frame has been painted: a timeout set from an animation frame
/// runs after that frame. What a view builds in two parts this way is two tasks, with a frame
/// drawn between them. A hidden tab paints no frame: `then` waits until it is shown.
pub fn after_next_paint(then: impl FnOnce() + 'static) {
    request_animation_frame(move || set_timeout(then, Duration::ZERO));
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

/// Empties the text area `id` on the page, without telling its bound signal (no `input` event):
/// for a text area about to be removed, whose large text costs the browser as much to drop as
/// to remove (10,000 lines: 60 to 150 ms at 4× CPU), so that cost can have a task of its own.
pub fn empty_text_area(id: &str) {
    if let Some(area) = document()
        .get_element_by_id(id)
        .and_then(|e| e.dyn_into::<web_sys::HtmlTextAreaElement>().ok())
    {
        area.set_value("");
    }
}

/// The file chosen in the file input an event comes from, with the input; `None` when none
/// was chosen.
pub fn chosen_file(event: &web_sys::Event) -> Option<(web_sys::HtmlInputElement, web_sys::File)> {
    let input = event
        .target()?
        .dyn_into::<web_sys::HtmlInputElement>()
        .ok()?;
    let file = input.files()?.get(0)?;
    Some((input, file))
}

/// A chosen file's text (UTF-8); `Err` with the browser's reason when it could not read it (the
/// file was moved or changed since it was chosen, or cannot be read).
pub async fn file_text(file: &web_sys::File) -> Result<String, String> {
    JsFuture::from(file.text())
        .await
        .map(|text| text.as_string().unwrap_or_default())
        .map_err(|refused| match refused.dyn_ref::<web_sys::DomException>() {
            Some(exception) => exception.message(),
            None => "the browser gave no reason".to_owned(),
        })
}

/// Saves `text` as a file named `name`, through a temporary object URL.
pub fn download(name: &str, mime: &str, text: &str) {
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    if let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) {
        download_blob(name, &blob);
    }
}

/// A file written a part at a time: each part is encoded into the browser's blob store as it is
/// added, so a large export is never one string, and no single step encodes all of it.
pub struct FileParts {
    blob: web_sys::Blob,
    mime: String,
}

impl FileParts {
    pub fn new(mime: &str) -> Option<FileParts> {
        Some(FileParts {
            blob: web_sys::Blob::new().ok()?,
            mime: mime.to_owned(),
        })
    }

    /// Adds `text` at the end (the parts before it are referenced, not copied).
    pub fn push(&mut self, text: &str) -> Option<()> {
        let options = web_sys::BlobPropertyBag::new();
        options.set_type(&self.mime);
        let parts = js_sys::Array::of2(&self.blob, &JsValue::from_str(text));
        self.blob = web_sys::Blob::new_with_blob_sequence_and_options(&parts, &options).ok()?;
        Some(())
    }

    /// Saves the file as `name`.
    pub fn download(&self, name: &str) {
        download_blob(name, &self.blob);
    }
}

/// Saves `blob` as a file named `name`, through a temporary object URL.
fn download_blob(name: &str, blob: &web_sys::Blob) {
    let Ok(url) = web_sys::Url::create_object_url_with_blob(blob) else {
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

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// `navigator.locks`, the Web Locks API (web-sys binds it only behind its unstable flag).
    type LockManager;

    #[wasm_bindgen(method)]
    fn request(
        this: &LockManager,
        name: &str,
        options: &JsValue,
        callback: &js_sys::Function,
    ) -> js_sys::Promise;
}

/// How to ask for a lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockRequest {
    /// Only if no other tab holds it.
    IfAvailable,
    /// Take it from the tab that holds it (that tab learns it lost it).
    Steal,
    /// Wait until it is free.
    Wait,
}

/// An exclusive Web Lock this tab holds: across the browser's tabs and windows, one holder per
/// name. Held until [`HeldLock::release`], or until another tab steals it.
pub struct HeldLock {
    release: js_sys::Function,
    /// Settles when the lock is gone: released here, or stolen.
    ended: js_sys::Promise,
}

impl HeldLock {
    pub fn release(&self) {
        let _ = self.release.call0(&JsValue::UNDEFINED);
    }

    /// Resolves once the lock is gone (released here or taken by another tab).
    pub async fn ended(&self) {
        let _ = JsFuture::from(self.ended.clone()).await;
    }
}

/// What became of a lock request.
pub enum LockAnswer {
    Held(HeldLock),
    /// Another tab holds it (only with [`LockRequest::IfAvailable`]).
    HeldElsewhere,
    /// This browser has no Web Locks (an old browser, a page not served securely): nothing is
    /// exclusive.
    Unsupported,
}

/// Asks for the exclusive lock `name`.
pub async fn request_lock(name: &str, how: LockRequest) -> LockAnswer {
    let Ok(locks) = js_sys::Reflect::get(&window().navigator(), &JsValue::from_str("locks")) else {
        return LockAnswer::Unsupported;
    };
    if locks.is_undefined() || locks.is_null() {
        return LockAnswer::Unsupported;
    }
    let locks: LockManager = locks.unchecked_into();
    let options = js_sys::Object::new();
    let flag = match how {
        LockRequest::IfAvailable => Some("ifAvailable"),
        LockRequest::Steal => Some("steal"),
        LockRequest::Wait => None,
    };
    if let Some(flag) = flag {
        let _ = js_sys::Reflect::set(&options, &JsValue::from_str(flag), &JsValue::TRUE);
    }
    // The callback answers `granted` with the function that releases the lock (or null when
    // another tab holds it), and holds the lock until that function is called.
    let mut grant: Option<js_sys::Function> = None;
    let granted = js_sys::Promise::new(&mut |resolve, _| grant = Some(resolve));
    let Some(grant) = grant else {
        return LockAnswer::Unsupported;
    };
    let callback = wasm_bindgen::closure::Closure::once_into_js(move |lock: JsValue| {
        if lock.is_null() {
            let _ = grant.call1(&JsValue::UNDEFINED, &JsValue::NULL);
            return js_sys::Promise::resolve(&JsValue::UNDEFINED);
        }
        js_sys::Promise::new(&mut |release, _| {
            let _ = grant.call1(&JsValue::UNDEFINED, &release);
        })
    });
    let ended = locks.request(name, &options, callback.unchecked_ref());
    match JsFuture::from(granted).await {
        Ok(release) if release.is_function() => LockAnswer::Held(HeldLock {
            release: release.unchecked_into(),
            ended,
        }),
        _ => LockAnswer::HeldElsewhere,
    }
}

/// What the browser says of the console's storage (`navigator.storage`); `None` where it does
/// not say.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StorageState {
    /// Bytes the console's origin uses, and may use.
    pub usage: Option<f64>,
    pub quota: Option<f64>,
    /// Whether the browser keeps the data until the person clears it, rather than removing it
    /// when space runs low.
    pub persisted: Option<bool>,
}

fn storage_manager() -> Option<web_sys::StorageManager> {
    web_sys::window().map(|w| w.navigator().storage())
}

/// Reads the console's [`StorageState`].
pub async fn storage_state() -> StorageState {
    let Some(manager) = storage_manager() else {
        return StorageState::default();
    };
    let number = |object: &JsValue, name: &str| {
        js_sys::Reflect::get(object, &JsValue::from_str(name))
            .ok()
            .and_then(|v| v.as_f64())
    };
    let estimate = match manager.estimate() {
        Ok(promise) => JsFuture::from(promise).await.ok(),
        Err(_) => None,
    };
    let persisted = match manager.persisted() {
        Ok(promise) => JsFuture::from(promise).await.ok().and_then(|v| v.as_bool()),
        Err(_) => None,
    };
    StorageState {
        usage: estimate.as_ref().and_then(|e| number(e, "usage")),
        quota: estimate.as_ref().and_then(|e| number(e, "quota")),
        persisted,
    }
}

/// Asks the browser to keep the console's data until the person clears it
/// (`navigator.storage.persist()`); whether it agreed.
pub async fn ask_persistence() -> bool {
    let Some(Ok(promise)) = storage_manager().map(|m| m.persist()) else {
        return false;
    };
    JsFuture::from(promise)
        .await
        .ok()
        .and_then(|v| v.as_bool())
        .unwrap_or(false)
}
