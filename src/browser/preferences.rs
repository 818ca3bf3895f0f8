//! The console's preferences in this browser's localStorage (`model::preferences`): the only
//! code that reads or writes them (`tests/layering.rs`). A refused write answers why
//! ([`NotKept`]); `state::preferences` tells it to the person.

use wasm_bindgen::JsCast;

use crate::model::preferences::{NotKept, Preference};

fn local_storage() -> Result<web_sys::Storage, NotKept> {
    // `window.localStorage` throws (SecurityError) where site data is blocked, and is null in
    // some embedded browsers.
    web_sys::window()
        .ok_or(NotKept::NoStorage)?
        .local_storage()
        .ok()
        .flatten()
        .ok_or(NotKept::NoStorage)
}

fn not_kept(error: wasm_bindgen::JsValue) -> NotKept {
    error
        .dyn_ref::<web_sys::DomException>()
        .map_or(NotKept::Refused, |exception| {
            NotKept::from_exception(&exception.name())
        })
}

/// The preference as kept; `None` when it is not (or this browser keeps none).
pub fn read(preference: Preference<'_>) -> Option<String> {
    local_storage()
        .ok()?
        .get_item(&preference.key())
        .ok()
        .flatten()
}

/// Keeps `value` as the preference.
pub fn write(preference: Preference<'_>, value: &str) -> Result<(), NotKept> {
    local_storage()?
        .set_item(&preference.key(), value)
        .map_err(not_kept)
}

/// Forgets the preference (its default applies again).
pub fn remove(preference: Preference<'_>) -> Result<(), NotKept> {
    local_storage()?
        .remove_item(&preference.key())
        .map_err(not_kept)
}
