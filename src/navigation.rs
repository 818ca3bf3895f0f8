//! Client-side navigation: the current URL as signals, history entries for links, and
//! `navigate` for code. Paths are matched to pages in [`crate::routes`].
//!
//! This replaces `leptos_router`. The console uses none of its nested routing, and its
//! `<Router>` alone measured about 15 KB gzip of the 180 KB budget (release flags, wasm-opt);
//! this module does the part the console needs (History API, link interception, query
//! parameters) in a fraction of that. See ARCHITECTURE.md, "Bundle-size decisions".

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

/// The current location, provided as context by [`Navigation::start`].
#[derive(Clone, Copy)]
pub struct Navigation {
    /// The path, e.g. `/runs/run_1` (percent-escapes kept).
    path: RwSignal<String>,
    /// The query with its leading `?`, or empty.
    search: RwSignal<String>,
}

impl Navigation {
    /// Reads the browser's location, follows back/forward, and turns clicks on same-origin
    /// links into history entries. Call once, at the root.
    pub fn start() -> Navigation {
        let nav = Navigation {
            path: RwSignal::new(String::new()),
            search: RwSignal::new(String::new()),
        };
        nav.sync();
        let window = web_sys::window().expect("a window");
        let on_popstate = Closure::<dyn Fn()>::new(move || nav.sync());
        let _ = window
            .add_event_listener_with_callback("popstate", on_popstate.as_ref().unchecked_ref());
        on_popstate.forget();
        let on_click = Closure::<dyn Fn(web_sys::MouseEvent)>::new(move |ev| nav.on_click(ev));
        if let Some(document) = window.document() {
            let _ = document
                .add_event_listener_with_callback("click", on_click.as_ref().unchecked_ref());
        }
        on_click.forget();
        provide_context(nav);
        nav
    }

    /// Copies the browser's location into the signals.
    fn sync(&self) {
        let location = web_sys::window().expect("a window").location();
        self.path.set(location.pathname().unwrap_or_default());
        self.search.set(location.search().unwrap_or_default());
    }

    /// A plain left click on a same-origin link without `target`, `download` or
    /// `rel="external"` stays in the app.
    fn on_click(&self, ev: web_sys::MouseEvent) {
        if ev.default_prevented()
            || ev.button() != 0
            || ev.ctrl_key()
            || ev.meta_key()
            || ev.shift_key()
            || ev.alt_key()
        {
            return;
        }
        let Some(anchor) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.closest("a[href]").ok().flatten())
            .and_then(|e| e.dyn_into::<web_sys::HtmlAnchorElement>().ok())
        else {
            return;
        };
        let external = anchor.rel().split_whitespace().any(|r| r == "external");
        if external || anchor.has_attribute("download") || !anchor.target().is_empty() {
            return;
        }
        let own_origin = web_sys::window().and_then(|w| w.location().origin().ok());
        if own_origin.as_deref() != Some(anchor.origin().as_str()) {
            return;
        }
        let (path, search, hash) = (anchor.pathname(), anchor.search(), anchor.hash());
        // A link to a fragment of this page (the skip link) keeps the browser's behaviour.
        if !hash.is_empty()
            && path == self.path.get_untracked()
            && search == self.search.get_untracked()
        {
            return;
        }
        ev.prevent_default();
        self.go(&format!("{path}{search}{hash}"), false);
    }

    /// Goes to `url` (a path with an optional query), adding a history entry.
    pub fn navigate(&self, url: &str) {
        self.go(url, false);
    }

    /// Goes to `url` in place of the current entry: for redirects, so Back skips them.
    pub fn redirect(&self, url: &str) {
        self.go(url, true);
    }

    fn go(&self, url: &str, replace: bool) {
        let window = web_sys::window().expect("a window");
        if let Ok(history) = window.history() {
            let state = wasm_bindgen::JsValue::NULL;
            let _ = if replace {
                history.replace_state_with_url(&state, "", Some(url))
            } else {
                history.push_state_with_url(&state, "", Some(url))
            };
        }
        if !replace {
            window.scroll_to_with_x_and_y(0.0, 0.0);
        }
        self.sync();
    }

    /// The current path, tracked.
    pub fn path(&self) -> String {
        self.path.get()
    }

    pub fn path_untracked(&self) -> String {
        self.path.get_untracked()
    }

    pub fn search_untracked(&self) -> String {
        self.search.get_untracked()
    }

    /// A query parameter, decoded by the browser; tracked.
    pub fn query(&self, name: &str) -> Option<String> {
        let search = self.search.get();
        web_sys::UrlSearchParams::new_with_str(&search)
            .ok()
            .and_then(|params| params.get(name))
    }

    /// A query parameter, without tracking.
    pub fn query_untracked(&self, name: &str) -> Option<String> {
        untrack(|| self.query(name))
    }
}

pub fn use_navigation() -> Navigation {
    expect_context::<Navigation>()
}
