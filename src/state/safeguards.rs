//! The signed-in workspace's spending safeguards in this browser (`model::safeguards`): read
//! from localStorage for the workspace in view, written by the safeguards page, and followed
//! when another tab changes them (the window's `storage` event).

use leptos::prelude::*;

use super::workspace::SharedWorkspace;
use crate::browser::preferences;
use crate::model::preferences::Preference;
use crate::model::safeguards::Safeguards;

#[derive(Clone, Copy)]
pub struct SpendingSafeguards {
    workspace: Memo<Option<String>>,
    /// Notified when this tab or another wrote them.
    written: Trigger,
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
            let shown = safeguards.workspace.get_untracked().unwrap_or_default();
            let preference = Preference::Safeguards { workspace: &shown };
            if preference.changed_by(ev.key().as_deref()) {
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
            .and_then(|workspace| {
                preferences::read(Preference::Safeguards {
                    workspace: &workspace,
                })
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
        let preference = Preference::Safeguards { workspace: &id };
        preferences::write(preference, &safeguards.to_json()).map_err(|not_kept| {
            format!("{} Nothing was changed.", not_kept.sentence(preference))
        })?;
        self.written.notify();
        Ok(())
    }
}

pub fn use_safeguards() -> SpendingSafeguards {
    expect_context::<SpendingSafeguards>()
}
