//! A preference this browser did not keep (`browser::preferences`), told where the person sees
//! it: the choice holds on this page and is gone after a reload. Switches and choices made in
//! passing (the theme, presenter mode, columns, a language, the reuse window) keep theirs here
//! and the shell shows the sentence (`components::PreferenceNotKeptNotice`); a form that saves a
//! preference (the safeguards, the days kept outputs are kept) says it beside its button.

use leptos::prelude::*;

use crate::browser::preferences;
use crate::model::preferences::{NotKept, Preference};

/// The preferences' writes, provided at the root.
#[derive(Clone, Copy)]
pub struct Preferences {
    /// The last refusal, until the person dismisses it or its preference is kept after all.
    not_kept: RwSignal<Option<Refusal>>,
}

/// A preference not kept, as told.
#[derive(Clone, Debug, PartialEq)]
struct Refusal {
    /// The preference's key.
    key: String,
    /// What happened, what to do, and that the choice holds on this page.
    sentence: String,
}

impl Preferences {
    pub fn provide() -> Preferences {
        let preferences = Preferences {
            not_kept: RwSignal::new(None),
        };
        provide_context(preferences);
        preferences
    }

    /// The preference as kept (`None`: not kept, or this browser keeps none).
    pub fn read(self, preference: Preference<'_>) -> Option<String> {
        preferences::read(preference)
    }

    /// Keeps `value` as `preference`; a refusal is told in the shell.
    pub fn keep(self, preference: Preference<'_>, value: &str) {
        self.told(preference, preferences::write(preference, value));
    }

    /// Forgets `preference` (its default applies after a reload); a refusal is told in the shell.
    pub fn forget(self, preference: Preference<'_>) {
        self.told(preference, preferences::remove(preference));
    }

    fn told(self, preference: Preference<'_>, written: Result<(), NotKept>) {
        let key = preference.key();
        match written {
            Ok(()) => {
                // Kept after all: a notice about this very preference no longer stands.
                if self
                    .not_kept
                    .with_untracked(|shown| shown.as_ref().is_some_and(|shown| shown.key == key))
                {
                    self.not_kept.set(None);
                }
            }
            Err(not_kept) => self.not_kept.set(Some(Refusal {
                key,
                sentence: format!(
                    "{} It holds on this page until it is reloaded.",
                    not_kept.sentence(preference)
                ),
            })),
        }
    }

    /// The sentence of the last refusal that stands; tracked.
    pub fn not_kept(self) -> Option<String> {
        self.not_kept
            .with(|shown| shown.as_ref().map(|shown| shown.sentence.clone()))
    }

    /// The person read it.
    pub fn dismiss(self) {
        self.not_kept.set(None);
    }
}

pub fn use_preferences() -> Preferences {
    expect_context::<Preferences>()
}
