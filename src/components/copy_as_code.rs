//! `CopyAsCode`: a request as code in the language a person picks (remembered in this
//! browser), with a copy button. The credential stays out: every snippet reads `API_KEY`.

use leptos::prelude::*;

use crate::browser::copy_text;
use crate::model::preferences::Preference;
use crate::model::snippets::{Language, RequestSpec};
use crate::state::preferences::{Preferences, use_preferences};
use crate::state::presenter::use_masker;

/// The last language picked here (not a secret: a language name); curl before any.
fn remembered_language(preferences: Preferences) -> Language {
    preferences
        .read(Preference::CodeLanguage)
        .and_then(|name| Language::from_name(&name))
        .unwrap_or(Language::Curl)
}

#[component]
pub fn CopyAsCode(
    /// The request to show; the snippet follows it as it changes (a form being edited).
    #[prop(into)]
    request: Signal<RequestSpec>,
) -> impl IntoView {
    let preferences = use_preferences();
    let language = RwSignal::new(remembered_language(preferences));
    // In presenter mode the body's values are masked in the code shown and in what is copied.
    let masker = use_masker();
    let code = Memo::new(move |_| {
        request.with(|r| {
            let body = r.body.as_deref().map(|b| masker.json_text(b).into_owned());
            RequestSpec { body, ..r.clone() }.code(language.get())
        })
    });
    let copied = RwSignal::new(false);
    let choose = move |picked: Language| {
        language.set(picked);
        copied.set(false);
        preferences.keep(Preference::CodeLanguage, picked.as_str());
    };
    view! {
        <div class="copy-as-code" data-field="copy-as-code">
            <div class="segmented" role="group" aria-label="Language">
                {Language::ALL
                    .into_iter()
                    .map(|option| {
                        view! {
                            <button
                                type="button"
                                data-language=option.as_str()
                                aria-pressed=move || (language.get() == option).to_string()
                                on:click=move |_| choose(option)
                            >
                                {option.label()}
                            </button>
                        }
                    })
                    .collect_view()}
            </div>
            <pre
                class="code"
                tabindex="0"
                data-field="code-snippet"
                data-language=move || language.get().as_str()
            >
                {code}
            </pre>
            <p class="help">
                {move || language.get().needs()}
                " Set API_KEY to your key first: the credential is never shown here."
            </p>
            <button
                type="button"
                class="button secondary"
                data-field="copy-code"
                on:click=move |_| {
                    copy_text(&code.get_untracked());
                    copied.set(true);
                }
            >
                {move || format!("Copy as {}", language.get().label())}
            </button>
            <span role="status" class="help">
                {move || copied.get().then_some(" Copied.")}
            </span>
        </div>
    }
}
