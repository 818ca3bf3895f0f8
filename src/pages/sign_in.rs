//! Sign in: an API base URL and a bearer credential, checked against `GET /v1/workspace`.

use api_contract::Workspace;
use chrono::Utc;
use leptos::prelude::*;
use leptos_router::hooks::{use_navigate, use_query_map};

use crate::api::ApiError;
use crate::components::{ApiErrorPanel, Notice, NoticeKind, SignInList};
use crate::model::credential::{CredentialKind, classify};
use crate::model::format::local_time;
use crate::model::sign_ins::path_after_switch;
use crate::model::urls::{normalize_base_url, safe_next};
use crate::nav::replace;
use crate::pages::lazy::kept_data_notice;
use crate::state::session::{SignedIn, use_session};
use crate::state::workspace::use_workspace;

/// What the credential field recognises, as the person types.
fn describe(token: &str) -> Option<String> {
    let token = token.trim();
    if token.is_empty() {
        return None;
    }
    Some(match classify(token) {
        CredentialKind::Session {
            expires_at: Some(exp),
            ..
        } if exp <= Utc::now() => format!(
            "This session token expired on {}; get a new one.",
            local_time(exp)
        ),
        kind @ CredentialKind::Session { expires_at, .. } => format!(
            "Recognised: {} (can manage API keys){}",
            kind.label(),
            expires_at.map_or_else(String::new, |exp| format!(
                ", valid until {}",
                local_time(exp)
            ))
        ),
        CredentialKind::ApiKey { .. } => "Recognised: an API key".to_owned(),
    })
}

/// Whether a refused check means that no API answers at all: no answer, or a 5xx without the
/// contract's error body (trunk's proxy answers an empty 500 when nothing listens behind it; other
/// proxies a 502–504). The API itself always answers with its error body, so a 401 never counts.
fn nothing_answers(error: &ApiError) -> bool {
    matches!(
        error,
        ApiError::NoAnswer(_)
            | ApiError::Network(_)
            | ApiError::UnexpectedStatus {
                status: 500..=599,
                ..
            }
    )
}

/// The check's answer: the credential that passed it, and the workspace as it answered (its
/// request sent at `asked_at`, ms since the epoch: the workspace's first balance reading).
#[derive(Clone)]
struct Checked {
    signed_in: SignedIn,
    workspace: Workspace,
    asked_at: f64,
}

#[component]
pub fn SignInPage() -> impl IntoView {
    let session = use_session();
    let workspace = use_workspace();
    let navigate = use_navigate();
    let query = use_query_map();
    let origin = window().location().origin().unwrap_or_default();

    let base_url = RwSignal::new(String::new());
    let bearer = RwSignal::new(String::new());
    let keep_in_tab = RwSignal::new(false);
    let form_error = RwSignal::new(None::<String>);
    // The base URL of the latest check: the hint to start the sandbox only fits this origin.
    let checked_base = RwSignal::new(String::new());

    // The check: `GET /v1/workspace` with the credential, before it becomes the session.
    // Its answer becomes the shared workspace's first load: signing in costs one request.
    let check = Action::new_local(|signed_in: &SignedIn| {
        let signed_in = signed_in.clone();
        async move {
            let asked_at = js_sys::Date::now();
            let workspace = signed_in.client().workspace().await?;
            Ok::<_, ApiError>(Checked {
                signed_in,
                workspace,
                asked_at,
            })
        }
    });
    // A success signs in and goes back to where the person was headed, in place of this page.
    Effect::new(move |_| {
        if let Some(Ok(checked)) = check.value().get() {
            match session.sign_in(checked.signed_in, keep_in_tab.get_untracked()) {
                Ok(sign_in) => {
                    workspace.prime(sign_in, checked.workspace, checked.asked_at);
                    let next = query.with_untracked(|q| safe_next(q.get_str("next")));
                    navigate(&next, replace());
                }
                Err(too_many) => form_error.set(Some(too_many)),
            }
        }
    });
    let refused = move || match check.value().get() {
        Some(Err(error)) if !check.pending().get() => Some(error),
        _ => None,
    };
    let own_origin = origin.clone();
    let no_api_here = move || {
        refused().is_some_and(|error| nothing_answers(&error))
            && checked_base.with(|base| *base == own_origin)
    };

    // What this browser keeps from earlier sign-ins (a shared computer): a notice built by the
    // pages' chunk, which holds the store's code, once the chunk is here however it came (the
    // background preload, or a page of it opened first): asking sooner would fetch it sooner.
    // Leaving the page cancels the wait.
    let kept_notice = StoredValue::new_local(None::<AnyView>);
    let (has_kept_notice, set_has_kept_notice) = signal(false);
    leptos::task::spawn_local_scoped_with_cancellation(async move {
        crate::chunk::until_arrived().await;
        if let Some(notice) = kept_data_notice().await {
            kept_notice.set_value(Some(notice));
            set_has_kept_notice.set(true);
        }
    });
    let kept_notice = move || {
        has_kept_notice
            .get()
            .then(|| kept_notice.try_update_value(Option::take).flatten())
    };

    let placeholder = origin.clone();
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if check.pending().get_untracked() {
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
                checked_base.set(base.clone());
                check.dispatch_local(session.new_sign_in(base, token));
            }
            Err(message) => form_error.set(Some(message)),
        }
    };

    // Signed in to other workspaces already (a sign-in ended, or the person adds one): they
    // are listed to switch to, and the form adds one more.
    let has_sign_ins = Memo::new(move |_| !session.summaries().is_empty());
    let switch_next = query.with_untracked(|q| path_after_switch(&safe_next(q.get_str("next"))));
    view! {
        <section class="page narrow sign-in">
            <h1>{move || if session.is_signed_in() { "Sign in to another workspace" } else { "Sign in" }}</h1>
            <p class="lead">
                "Use an API key or an account-session token. It stays in this tab's memory, never in a cookie or a URL."
            </p>
            {move || session.notice().map(|n| view! { <Notice field="session-notice">{n}</Notice> })}
            {move || has_sign_ins.get().then(|| {
                let next = switch_next.clone();
                view! {
                    <section class="signed-in-already" aria-labelledby="signed-in-already">
                        <h2 id="signed-in-already" class="section-title">"Signed in, in this tab"</h2>
                        <SignInList next />
                        <p class="help">"Or sign in to one more below; these stay signed in."</p>
                    </section>
                }
            })}
            {kept_notice}
            <form class="form" on:submit=on_submit novalidate>
                <div class="field">
                    <label for="base-url">"API base URL"</label>
                    <input id="base-url" name="base-url" type="url" inputmode="url"
                        placeholder=placeholder autocomplete="url" bind:value=base_url />
                    <p class="help">"Leave empty to use this console's own origin. Without the /v1 suffix."</p>
                </div>
                <div class="field">
                    <label for="credential">"API key or session token"</label>
                    <input id="credential" name="credential" type="password" autocomplete="off"
                        spellcheck="false" required bind:value=bearer />
                    <p class="help" aria-live="polite">{move || bearer.with(|t| describe(t))}</p>
                </div>
                <div class="field checkbox">
                    <label>
                        <input type="checkbox" name="keep-in-tab" bind:checked=keep_in_tab />
                        " Keep me signed in in this tab"
                    </label>
                    <p class="help">"Off: a reload asks again. On: kept in this tab's session storage until you sign out or close the tab."</p>
                </div>
                {move || form_error.get().map(|e| view! { <p class="field-error" role="alert">{e}</p> })}
                {move || refused().map(|error| view! { <ApiErrorPanel error context="Checking the credential" /> })}
                {move || no_api_here().then(|| view! {
                    <Notice kind=NoticeKind::Problem>
                        "No API answers at /v1. Start the sandbox: " <code>"make dev"</code>
                        " (or " <code>"cargo run -p sandbox"</code> " beside " <code>"trunk serve"</code> ")."
                    </Notice>
                })}
                <button type="submit" class="button primary" disabled=move || check.pending().get()>
                    {move || if check.pending().get() { "Checking…" } else { "Sign in" }}
                </button>
            </form>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_the_sandbox_hint_is_for_no_answer_or_a_foreign_5xx_only() {
        let foreign = |status| crate::api::interpret_error(status, None, "");
        let api = |status| {
            crate::api::interpret_error(status, None, r#"{"error":{"code":"x","message":"m"}}"#)
        };
        assert!(nothing_answers(&ApiError::Network("refused".into())));
        for status in [500, 502, 503, 504] {
            assert!(nothing_answers(&foreign(status)), "{status}");
            assert!(!nothing_answers(&api(status)), "{status}");
        }
        for status in [401, 403, 404] {
            assert!(!nothing_answers(&foreign(status)), "{status}");
            assert!(!nothing_answers(&api(status)), "{status}");
        }
    }
}
