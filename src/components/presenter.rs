//! Presenter mode's switch in the header and the band that says it is on
//! (`state::presenter`).

use leptos::prelude::*;

use crate::state::presenter::{SHORTCUT, use_presenter};

/// The header's switch: pressed while on, with the shortcut in its tooltip.
#[component]
pub fn PresenterToggle() -> impl IntoView {
    let presenter = use_presenter();
    view! {
        <button type="button" class="button secondary presenter-toggle" data-field="presenter-toggle"
            aria-pressed=move || presenter.is_on().to_string() aria-label="Presenter mode"
            title=format!("Presenter mode ({SHORTCUT}): hides names, profiles, texts and other personal data on every page, for a screen share or a demo")
            on:click=move |_| presenter.switch(!presenter.is_on_untracked())>
            // The word on wide screens; narrower ones keep the header on one line.
            <span aria-hidden="true">"◉"</span><span class="wide-only" aria-hidden="true">" Presenter"</span>
        </button>
    }
}

/// The band that says, on every page, that presenter mode is on.
#[component]
pub fn PresenterBand() -> impl IntoView {
    let presenter = use_presenter();
    move || {
        presenter.is_on().then(|| view! {
            <div class="presenter-band" role="status" data-field="presenter-band">
                <strong>"Presenter mode"</strong>
                ": names, profiles, inputs, texts and key names are hidden on every page. "
                <button type="button" class="button link" on:click=move |_| presenter.switch(false)>
                    "Show them"
                </button>
                <span class="muted">{format!(" ({SHORTCUT})")}</span>
            </div>
        })
    }
}
