//! The signed-in workspace's spending safeguards in this browser (`model::safeguards`): read
//! from localStorage for the workspace in view, written by the safeguards page, and followed
//! when another tab changes them (the window's `storage` event).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::workspace::SharedWorkspace;
use crate::model::safeguards::Safeguards;

#[derive(Clone, Copy)]
pub struct SpendingSafeguards {
    workspace: Memo<Option<String>>,
    /// Notified when this tab or another wrote them.
    written: Trigger,
}

fn local_storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

impl SpendingSafeguards {
    /// Provided as context at the root, under the workspace.
    pub fn provide(workspace: SharedWorkspace) {
        let safeguards = SpendingSafeguards {
            workspace: Memo::new(move |_| workspace.id()),
            written: Trigger::new(),
        };
        // Another tab saved them: this one follows at once, so no tab asks at a threshold the
        // person has already changed.
        // Provided at the root, which lives as long as the page: the listener is never removed.
        let _listening = window_event_listener(leptos::ev::storage, move |ev| {
            let key = ev.key().unwrap_or_default();
            if key.starts_with("console.safeguards.") {
                safeguards.written.notify();
            }
        });
        provide_context(safeguards);
    }

    /// The workspace's safeguards (the defaults before it is known); tracked.
    pub fn get(&self) -> Safeguards {
        self.written.track();
        self.workspace
            .get()
            .and_then(|id| {
                local_storage()?
                    .get_item(&Safeguards::storage_key(&id))
                    .ok()
                    .flatten()
            })
            .map(|json| Safeguards::from_json(&json))
            .unwrap_or_default()
    }

    /// Like [`SpendingSafeguards::get`], untracked: for event handlers.
    pub fn get_untracked(&self) -> Safeguards {
        untrack(|| self.get())
    }

    /// Keeps `safeguards` for the workspace in view; `Err` with a sentence for people when the
    /// browser refuses to keep them.
    pub fn save(&self, safeguards: &Safeguards) -> Result<(), String> {
        let id = self
            .workspace
            .get_untracked()
            .ok_or_else(|| "The workspace has not loaded yet: try again in a moment.".to_owned())?;
        let storage = local_storage().ok_or_else(|| {
            "This browser keeps no preferences for this page (its storage is off), so the \
             safeguards cannot be kept."
                .to_owned()
        })?;
        storage
            .set_item(&Safeguards::storage_key(&id), &safeguards.to_json())
            .map_err(|error| {
                let quota = error
                    .dyn_ref::<web_sys::DomException>()
                    .is_some_and(|e| e.name() == "QuotaExceededError");
                if quota {
                    "This browser's storage for the console is full: nothing was changed. Free \
                     some space (What this browser keeps), then save again."
                        .to_owned()
                } else {
                    "This browser refused to keep the safeguards: nothing was changed.".to_owned()
                }
            })?;
        self.written.notify();
        Ok(())
    }
}

pub fn use_safeguards() -> SpendingSafeguards {
    expect_context::<SpendingSafeguards>()
}
