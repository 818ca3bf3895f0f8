//! Sign in: an API base URL and a bearer credential, checked against `GET /v1/workspace`.

use leptos::prelude::*;

use crate::browser::now_ms;
use crate::components::ApiErrorPanel;
use crate::credential::{CredentialKind, classify};
use crate::format::local_time;
use crate::navigation::use_navigation;
use crate::session::{SignedIn, normalize_base_url, safe_next, use_session};
use crate::transport::{ApiClient, ApiError};

fn page_origin() -> String {
    window().location().origin().unwrap_or_default()
}

#[component]
pub fn SignInPage() -> impl IntoView {
    let session = use_session();
    let nav = use_navigation();
    let origin = page_origin();

    let base_url = RwSignal::new(String::new());
    let bearer = RwSignal::new(String::new());
    let form_error = RwSignal::new(None::<String>);
    let keep_in_tab = RwSignal::new(false);
    let notice = session.notice();

    // The check in flight, and the last refusal. A success signs in and goes back to where the
    // person was headed.
    let pending = RwSignal::new(false);
    let refused = RwSignal::new(None::<ApiError>);
    let check = move |base: String, token: String| {
        let client = ApiClient::new(base.clone(), token.clone());
        let signed_in = SignedIn::new(base, token);
        pending.set(true);
        refused.set(None);
        leptos::task::spawn_local(async move {
            let answer = client.workspace().await;
            // Left the page while checking: the check has nowhere to report to.
            if pending.try_set(false).is_some() {
                return;
            }
            match answer {
                Ok(_) => {
                    session.sign_in(signed_in, keep_in_tab.get_untracked());
                    let next = safe_next(nav.query_untracked("next").as_deref());
                    nav.navigate(&next);
                }
                Err(error) => refused.set(Some(error)),
            }
        });
    };

    let placeholder = origin.clone();
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if pending.get_untracked() {
            return;
        }
        let token = bearer.get_untracked().trim().to_owned();
        if token.is_empty() {
            form_error.set(Some("Paste an API key or an account-session token.".into()));
            return;
        }
        match normalize_base_url(&base_url.get_untracked(), &origin) {
            Ok(base) => {
                form_error.set(None);
                check(base, token);
            }
            Err(message) => form_error.set(Some(message)),
        }
    };

    let kind_hint = move || {
        let token = bearer.get();
        let token = token.trim();
        (!token.is_empty()).then(|| match classify(token) {
            CredentialKind::Session {
                expires_at: Some(exp),
                ..
            } if (exp as f64) * 1000.0 <= now_ms() => {
                format!(
                    "This session token expired on {}; get a new one.",
                    local_time(exp as f64 * 1000.0)
                )
            }
            kind @ CredentialKind::Session { expires_at, .. } => format!(
                "Recognised: {} (can manage API keys){}",
                kind.label(),
                expires_at.map_or_else(String::new, |exp| format!(
                    ", valid until {}",
                    local_time(exp as f64 * 1000.0)
                ))
            ),
            CredentialKind::ApiKey { .. } => "Recognised: an API key".to_owned(),
        })
    };

    view! {
        <section class="page narrow sign-in">
            <h1>"Sign in"</h1>
            <p class="lead">
                "Use an API key or an account-session token. It stays in this tab's memory, never in a cookie or a URL."
            </p>
            {notice.map(|n| view! { <p class="notice" role="status">{n}</p> })}
            <form class="form" on:submit=on_submit novalidate>
                <div class="field">
                    <label for="base-url">"API base URL"</label>
                    <input id="base-url" name="base-url" type="url" inputmode="url"
                        placeholder=placeholder autocomplete="url" prop:value=move || base_url.get() on:input=move |ev| base_url.set(event_target_value(&ev)) />
                    <p class="help">"Leave empty to use this console's own origin. Without the /v1 suffix."</p>
                </div>
                <div class="field">
                    <label for="credential">"API key or session token"</label>
                    <input id="credential" name="credential" type="password" autocomplete="off"
                        spellcheck="false" required prop:value=move || bearer.get() on:input=move |ev| bearer.set(event_target_value(&ev)) />
                    <p class="help" aria-live="polite">{kind_hint}</p>
                </div>
                <div class="field checkbox">
                    <label>
                        <input type="checkbox" name="keep-in-tab" prop:checked=move || keep_in_tab.get() on:change=move |ev| keep_in_tab.set(event_target_checked(&ev)) />
                        " Keep me signed in in this tab"
                    </label>
                    <p class="help">"Off: a reload asks again. On: kept in this tab's session storage until you sign out or close the tab."</p>
                </div>
                {move || form_error.get().map(|e| view! { <p class="field-error" role="alert">{e}</p> })}
                {move || refused.get().map(|error| {
                    view! { <ApiErrorPanel error context="Checking the credential" /> }
                })}
                <button type="submit" class="button primary" disabled=move || pending.get()>
                    {move || if pending.get() { "Checking…" } else { "Sign in" }}
                </button>
            </form>
        </section>
    }
}
