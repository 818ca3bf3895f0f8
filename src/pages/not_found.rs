//! The page for any URL the console does not know.

use crate::navigation::use_navigation;
use leptos::prelude::*;

#[component]
pub fn NotFoundPage() -> impl IntoView {
    let nav = use_navigation();
    view! {
        <section class="page narrow">
            <h1>"Page not found"</h1>
            <p>
                "There is no page at " <code>{move || nav.path()}</code> "."
            </p>
            <p><a href="/workspace">"Go to the workspace"</a></p>
        </section>
    }
}
