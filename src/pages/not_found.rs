//! The page for any URL the console does not know.

use leptos::prelude::*;
use leptos_router::hooks::use_location;

#[component]
pub fn NotFoundPage() -> impl IntoView {
    let location = use_location();
    view! {
        <section class="page narrow">
            <h1>"Page not found"</h1>
            <p>"There is no page at " <code>{move || location.pathname.get()}</code> "."</p>
            <p><a href="/workspace">"Go to the workspace"</a></p>
        </section>
    }
}
