//! After a request got no answer: the clues `model::no_answer` names the cause from. Whether the
//! browser is online, the two origins, whether the console's own Content-Security-Policy blocked
//! a request to the API's origin (the browser reports that as a `securitypolicyviolation` event),
//! and whether a `no-cors` request to the same URL gets an answer: an opaque one comes back from
//! any server that answers, whatever its CORS headers, while nothing comes back from a closed
//! port. Works in the page and in the bulk worker (both are event targets with a location).

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use js_sys::Reflect;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

use crate::model::no_answer::{Clues, NoAnswer, needs_probe, origin_of};

/// `global[outer][inner]`, as `navigator.onLine` or `location.origin`.
fn global_property(outer: &str, inner: &str) -> JsValue {
    Reflect::get(&js_sys::global(), &outer.into())
        .and_then(|object| Reflect::get(&object, &inner.into()))
        .unwrap_or(JsValue::UNDEFINED)
}

/// Why the request to `url` got no answer.
pub async fn why_no_answer(url: &str) -> NoAnswer {
    let console_origin = global_property("location", "origin")
        .as_string()
        .unwrap_or_default();
    let mut clues = Clues {
        online: global_property("navigator", "onLine")
            .as_bool()
            .unwrap_or(true),
        api_origin: origin_of(url).unwrap_or_else(|| console_origin.clone()),
        console_origin,
        blocked_by_policy: false,
        probe_answered: false,
    };
    if needs_probe(clues.online, &clues.console_origin, &clues.api_origin) {
        let blocked = Rc::new(Cell::new(false));
        let on_violation = {
            let blocked = blocked.clone();
            let api_origin = clues.api_origin.clone();
            Closure::<dyn Fn(web_sys::Event)>::new(move |event: web_sys::Event| {
                let uri = Reflect::get(&event, &"blockedURI".into())
                    .ok()
                    .and_then(|uri| uri.as_string())
                    .unwrap_or_default();
                if origin_of(&uri).as_deref() == Some(api_origin.as_str()) {
                    blocked.set(true);
                }
            })
        };
        let target: web_sys::EventTarget = js_sys::global().unchecked_into();
        let callback = on_violation.as_ref().unchecked_ref();
        let _ = target.add_event_listener_with_callback("securitypolicyviolation", callback);
        clues.probe_answered = gloo_net::http::RequestBuilder::new(url)
            .mode(web_sys::RequestMode::NoCors)
            .credentials(web_sys::RequestCredentials::Omit)
            .cache(web_sys::RequestCache::NoStore)
            .send()
            .await
            .is_ok();
        // The browser dispatches the violation's event as a task of its own: let it run.
        crate::browser::sleep(Duration::from_millis(50)).await;
        let _ = target.remove_event_listener_with_callback("securitypolicyviolation", callback);
        clues.blocked_by_policy = blocked.get();
    }
    NoAnswer::from_clues(clues)
}
