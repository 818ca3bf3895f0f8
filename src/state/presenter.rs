//! Presenter mode: one switch for the whole console, kept as a preference in localStorage so it
//! survives a reload, a workspace switch and a new tab (and reaches the other open tabs at
//! once, through the `storage` event), until it is switched off. While it is on, pages mask what
//! can identify or describe a person (`model::presenter`): each takes its [`Masker`] when it is
//! built, and `App` builds the pages again when the mode changes.

use leptos::ev;
use leptos::prelude::*;

use super::preferences::Preferences;
use crate::model::preferences::Preference;
use crate::model::presenter::Masker;

/// The keyboard shortcut, as the switch's tooltip tells it.
pub const SHORTCUT: &str = "Alt+Shift+P";

/// How the switch is kept (a preference, not data: `on`, or absent when off).
const KEPT_ON: &str = "on";

fn kept_on(preferences: Preferences) -> bool {
    preferences
        .read(Preference::Presenter)
        .is_some_and(|value| value == KEPT_ON)
}

/// The switch, provided at the root.
#[derive(Clone, Copy)]
pub struct Presenter {
    on: RwSignal<bool>,
    /// Where the switch is kept.
    preferences: Preferences,
    /// The tab's salt for the masks' tags (`Masker`).
    salt: u64,
}

impl Presenter {
    pub fn provide(preferences: Preferences) -> Presenter {
        let presenter = Presenter {
            on: RwSignal::new(kept_on(preferences)),
            preferences,
            salt: uuid::Uuid::new_v4().as_u64_pair().0,
        };
        // Another tab switched it: follow.
        let on = presenter.on;
        let from_other_tab = window_event_listener(ev::storage, move |event| {
            if Preference::Presenter.changed_by(event.key().as_deref()) {
                on.set(kept_on(preferences));
            }
        });
        let shortcut = window_event_listener(ev::keydown, move |event| {
            if event.alt_key() && event.shift_key() && event.code() == "KeyP" && !event.repeat() {
                event.prevent_default();
                presenter.switch(!presenter.on.get_untracked());
            }
        });
        on_cleanup(move || {
            from_other_tab.remove();
            shortcut.remove();
        });
        provide_context(presenter);
        presenter
    }

    /// Whether it is on (tracked).
    pub fn is_on(&self) -> bool {
        self.on.get()
    }

    pub fn is_on_untracked(&self) -> bool {
        self.on.get_untracked()
    }

    /// Switches it on or off, here and (through localStorage) in the console's other tabs.
    /// A switch this browser does not keep still applies to this tab, and the shell says it is
    /// gone after a reload (`state::preferences`).
    pub fn switch(&self, on: bool) {
        if on {
            self.preferences.keep(Preference::Presenter, KEPT_ON);
        } else {
            self.preferences.forget(Preference::Presenter);
        }
        self.on.set(on);
    }

    /// How values are shown now; untracked (a page takes it when built).
    pub fn masker_untracked(&self) -> Masker {
        Masker::new(self.on.get_untracked(), self.salt)
    }
}

pub fn use_presenter() -> Presenter {
    expect_context::<Presenter>()
}

/// How this page shows values: masked while presenter mode is on.
pub fn use_masker() -> Masker {
    use_presenter().masker_untracked()
}
