//! A preference this browser did not keep (`state::preferences`): a band under the header, on
//! every page, until the person dismisses it or the preference is kept after all.

use leptos::prelude::*;

use crate::state::preferences::use_preferences;

#[component]
pub fn PreferenceNotKeptNotice() -> impl IntoView {
    let preferences = use_preferences();
    move || {
        preferences.not_kept().map(|sentence| {
            view! {
                <div class="preference-band" role="alert" data-field="preference-not-kept">
                    {sentence} " "
                    <button type="button" class="button link" on:click=move |_| preferences.dismiss()>
                        "Dismiss"
                    </button>
                </div>
            }
        })
    }
}
