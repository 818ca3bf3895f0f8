//! `/keys`: the workspace's API keys (list, create with a secret shown once, revoke), for account
//! sessions; signed in with an API key, the page explains how to get there instead.

use api_contract::input::KEY_NAME_MAX;
use api_contract::{ApiKey, CreatedApiKey, KeyList};
use chrono::Utc;
use leptos::prelude::*;

use crate::api::{ApiClient, ApiError};
use crate::browser::{copy_text, focus_id};
use crate::components::{ApiErrorPanel, Confirm, Notice};
use crate::model::credential::CredentialKind;
use crate::model::format::{age, local_time};
use crate::model::keys::{name_error, newest_first};
use crate::model::urls::sign_in_path;
use crate::state::presenter::use_masker;
use crate::state::session::use_session;

#[component]
pub fn KeysPage() -> impl IntoView {
    // The page lives within one session; a new session is a new page.
    let kind = untrack(|| use_session().kind());
    let manager = kind.as_ref().is_some_and(CredentialKind::is_session);
    view! {
        <section class="page keys">
            <h1>"API keys"</h1>
            {if manager {
                view! { <KeyManager /> }.into_any()
            } else {
                view! { <NeedsSession /> }.into_any()
            }}
        </section>
    }
}

/// Why this credential cannot manage keys, and the way to one that can.
#[component]
fn NeedsSession() -> impl IntoView {
    view! {
        <Notice field="needs-session" block=true>
            <p><strong>"Managing API keys needs an account session."</strong></p>
            <p>"You are signed in with an API key. API keys run actions and read runs and the "
                "workspace, but only an account-session token (a JWT for your account) may list, "
                "create or revoke keys."</p>
            <p><a class="button primary" href=sign_in_path("/keys")>"Sign in with a session token"</a></p>
        </Notice>
    }
}

fn needs_session(error: &ApiError) -> bool {
    error.code() == Some("session_required") || error.status() == Some(403)
}

/// What a revocation returns: the key it was for, and how it went.
type Revoked = (ApiKey, Result<(), ApiError>);

#[component]
fn KeyManager() -> impl IntoView {
    let session = use_session();
    let keys = LocalResource::new(move || {
        let client = session.client_untracked();
        async move { client.ok_or(ApiError::SignedOut)?.keys().await }
    });
    // The API refused this session keys' management (403).
    let forbidden = RwSignal::new(false);

    // Revoke, after a confirmation that names the key.
    let confirming = RwSignal::new(None::<ApiKey>);
    let revoke = Action::new_local(|(client, key): &(ApiClient, ApiKey)| {
        let (client, key) = (client.clone(), key.clone());
        async move {
            let result = client.revoke_key(&key.id).await;
            (key, result)
        }
    });
    let outcome = RwSignal::new(None::<Revoked>);
    Effect::new(move |_| {
        let Some((key, result)) = revoke.value().get() else {
            return;
        };
        untrack(|| {
            match &result {
                Ok(()) => keys.refetch(),
                Err(error) if needs_session(error) => forbidden.set(true),
                // Not found: perhaps revoked elsewhere; the list shows what is true now.
                Err(error) if error.status() == Some(404) => keys.refetch(),
                Err(_) => {}
            }
            outcome.set(Some((key, result)));
        });
    });
    // Only possible where an API may let a key manage keys; the sandbox, like the contract,
    // asks for a session.
    let own_key = move |key: &ApiKey| session.uses_key_with_prefix(&key.prefix);
    let masker = use_masker();

    view! {
        // The API may still refuse this session (403): the same explanation, and nothing to do.
        {move || forbidden.get().then(|| view! { <NeedsSession /> })}
        <div hidden=move || forbidden.get()>
            <p class="lead">"Keys let programs call the API as this workspace. A key's secret is shown once, when it is created."</p>
            <CreateKey keys forbidden />
            {move || outcome.get().map(|(key, result)| match result {
                Ok(()) => view! {
                    <Notice>"Revoked “" {masker.text(&key.name).into_owned()} "”. Programs using it are refused from now on."</Notice>
                }.into_any(),
                Err(error) if error.status() == Some(404) => view! {
                    <Notice>"No key “" {masker.text(&key.name).into_owned()} "” was found: perhaps it was already revoked elsewhere. The list is up to date."</Notice>
                }.into_any(),
                Err(error) => view! { <ApiErrorPanel error context="Revoking the key" /> }.into_any(),
            })}
            {move || confirming.get().map(|key| {
                let warn_own = own_key(&key);
                view! {
                    <ConfirmRevoke key warn_own on_confirm=Callback::new(move |key: ApiKey| {
                        confirming.set(None);
                        outcome.set(None);
                        focus_id("keys-heading");
                        if let Some(client) = session.client_untracked() {
                            revoke.dispatch_local((client, key));
                        }
                    }) on_keep=Callback::new(move |id: String| {
                        confirming.set(None);
                        focus_id(&format!("revoke-{id}"));
                    }) />
                }
            })}
            <h2 class="section-title" id="keys-heading" tabindex="-1">"Keys"</h2>
            <Transition fallback=|| view! { <p class="loading">"Loading the keys…"</p> }>
                {move || Suspend::new(async move {
                    match keys.await {
                        Ok(KeyList { keys }) => key_table(keys, confirming, revoke.pending()).into_any(),
                        Err(error) if needs_session(&error) => view! { <NeedsSession /> }.into_any(),
                        Err(error) => view! { <ApiErrorPanel error context="Loading the keys" /> }.into_any(),
                    }
                })}
            </Transition>
        </div>
    }
}

/// The form that creates a key, and the dialog that shows its secret once. The secret goes
/// from the action's answer into `revealed` at once, and from there nowhere: "I have stored
/// it" drops it with the dialog. A created key has `keys` read again; a 403 sets `forbidden`.
#[component]
fn CreateKey(
    keys: LocalResource<Result<KeyList, ApiError>>,
    forbidden: RwSignal<bool>,
) -> impl IntoView {
    let session = use_session();
    let name = RwSignal::new(String::new());
    let tried = RwSignal::new(false);
    let server_error = RwSignal::new(None::<String>);
    let create = Action::new_local(|(client, name): &(ApiClient, String)| {
        let (client, name) = (client.clone(), name.clone());
        async move { client.create_key(&name).await }
    });
    let create_error = RwSignal::new(None::<ApiError>);
    let revealed = RwSignal::new(None::<CreatedApiKey>);
    Effect::new(move |_| {
        let Some(answer) = create.value().get() else {
            return;
        };
        untrack(|| {
            create.clear();
            match answer {
                Ok(created) => {
                    name.set(String::new());
                    tried.set(false);
                    revealed.set(Some(created));
                    keys.refetch();
                }
                Err(error) if needs_session(&error) => forbidden.set(true),
                Err(error) if error.status() == Some(400) => {
                    let said = error.server_message().unwrap_or_default();
                    server_error.set(Some(format!(
                        "Name {}",
                        said.strip_prefix("name ").unwrap_or(said)
                    )));
                }
                Err(error) => create_error.set(Some(error)),
            }
        });
    });
    let name_problem = move || {
        server_error.get().or_else(|| {
            let shown = tried.get() || name.with(|n| !n.is_empty());
            shown.then(|| name.with(|n| name_error(n))).flatten()
        })
    };
    let on_create = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if create.pending().get_untracked() {
            return;
        }
        tried.set(true);
        server_error.set(None);
        create_error.set(None);
        let typed = name.get_untracked();
        if name_error(&typed).is_some() {
            return;
        }
        if let Some(client) = session.client_untracked() {
            create.dispatch_local((client, typed));
        }
    };

    view! {
        <form class="form key-create" on:submit=on_create novalidate>
            <div class="field">
                <label for="key-name">"New key's name"</label>
                <input id="key-name" type="text" autocomplete="off" spellcheck="false"
                    aria-describedby="key-name-help key-name-error"
                    aria-invalid=move || if name_problem().is_some() { "true" } else { "false" }
                    bind:value=name on:input=move |_| server_error.set(None) />
                <p class="help" id="key-name-help">"1 to " {KEY_NAME_MAX} " characters, e.g. where the key will be used."</p>
                <p class="field-error" id="key-name-error" role="alert">{name_problem}</p>
            </div>
            {move || create_error.get().map(|error| view! { <ApiErrorPanel error context="Creating the key" /> })}
            <button type="submit" class="button primary" disabled=move || create.pending().get()>
                {move || if create.pending().get() { "Creating…" } else { "Create key" }}
            </button>
        </form>
        {move || revealed.get().map(|created| view! { <SecretDialog created revealed /> })}
    }
}

/// The keys, newest first; active and revoked told apart in words, not only colour.
fn key_table(
    mut keys: Vec<ApiKey>,
    confirming: RwSignal<Option<ApiKey>>,
    revoking: Memo<bool>,
) -> impl IntoView {
    if keys.is_empty() {
        return view! { <p class="muted" data-field="no-keys">"No API keys yet. Create one above."</p> }.into_any();
    }
    newest_first(&mut keys);
    let now = Utc::now();
    // In presenter mode a key's name and prefix are masked (a name often says who uses it).
    let masker = use_masker();
    let rows = keys
        .into_iter()
        .map(|key| {
            let state = match key.revoked_at {
                None => view! { <span class="badge key-active">"active"</span> }.into_any(),
                Some(at) => view! {
                    <span class="badge key-revoked">"revoked"</span>
                    <span class="age">{local_time(at)}</span>
                }
                .into_any(),
            };
            let (name, prefix) = (masker.text(&key.name).into_owned(), masker.text(&key.prefix).into_owned());
            let label = format!("Revoke key {name}");
            let action = key.revoked_at.is_none().then(|| {
                let key = key.clone();
                view! {
                    <button type="button" class="button secondary small" id=format!("revoke-{}", key.id) aria-label=label
                        disabled=move || revoking.get()
                        on:click=move |_| confirming.set(Some(key.clone()))>"Revoke…"</button>
                }
            });
            view! {
                <tr data-key=key.id.clone() data-state=if key.revoked_at.is_some() { "revoked" } else { "active" }>
                    <td data-field="key-name">{name}</td>
                    <td><code data-field="key-prefix">{prefix} "…"</code></td>
                    <td>{local_time(key.created_at)}<span class="age">{age(now, key.created_at)}</span></td>
                    <td>{state}</td>
                    <td>{action}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="table-wrap">
            <table class="data-table keys-table" data-field="keys-table">
                <thead><tr>
                    <th scope="col">"Name"</th><th scope="col">"Prefix"</th><th scope="col">"Created"</th>
                    <th scope="col">"State"</th><th scope="col"><span class="sr-only">"Actions"</span></th>
                </tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
    .into_any()
}

/// "Revoke this key?", naming it; focus starts on "Keep it", the harmless choice.
#[component]
fn ConfirmRevoke(
    /// The key to revoke.
    key: ApiKey,
    /// It is the key this session is signed in with.
    warn_own: bool,
    /// "Revoke key": called with the key.
    on_confirm: Callback<ApiKey>,
    /// "Keep it": called with the key's id.
    on_keep: Callback<String>,
) -> impl IntoView {
    let masker = use_masker();
    let (name, prefix) = (
        masker.text(&key.name).into_owned(),
        masker.text(&key.prefix).into_owned(),
    );
    let title =
        move || view! { "Revoke “" {name.clone()} "” (" <code>{prefix.clone()} "…"</code> ")?" };
    let id = key.id.clone();
    view! {
        <Confirm field="confirm-revoke" title confirm_label="Revoke key" cancel_label="Keep it" focus_cancel=true
            on_confirm=Callback::new(move |()| on_confirm.run(key.clone()))
            on_cancel=Callback::new(move |()| on_keep.run(id.clone()))>
            <p>"Programs using this key are refused from the moment it is revoked. This cannot be undone."</p>
            {warn_own.then(|| view! {
                <p class="field-error">"This is the key you are signed in with: revoking it signs you out."</p>
            })}
        </Confirm>
    }
}

/// The new key's secret, once, in a modal dialog: focus stays inside (the browser's modal
/// `<dialog>`), Escape does not close it, and only "I have stored it" does, dropping the
/// secret with the dialog.
#[component]
fn SecretDialog(
    created: CreatedApiKey,
    revealed: RwSignal<Option<CreatedApiKey>>,
) -> impl IntoView {
    let dialog = NodeRef::<leptos::html::Dialog>::new();
    dialog.on_load(|d| {
        let _ = d.show_modal();
    });
    let copied = RwSignal::new(false);
    let CreatedApiKey {
        api_key,
        prefix,
        name,
        ..
    } = created;
    let secret = api_key.clone();
    // In presenter mode the secret is not drawn (those watching must not read it): Copy still
    // copies it, to the clipboard only.
    let masker = use_masker();
    let (name, prefix) = (
        masker.text(&name).into_owned(),
        masker.text(&prefix).into_owned(),
    );
    let shown_secret = if masker.is_on() {
        "Hidden in presenter mode: Copy puts it on the clipboard.".to_owned()
    } else {
        api_key
    };
    view! {
        <dialog class="secret-dialog" node_ref=dialog aria-labelledby="secret-title" aria-describedby="secret-warning"
            // Escape asks the dialog to cancel: refused, so the secret is not lost by a slip.
            on:cancel=move |ev: leptos::ev::Event| ev.prevent_default()
            // The browser may close it anyway (a second Escape): while it is still on the page,
            // it opens again; "I have stored it" takes it off the page.
            on:close:target=move |ev| {
                let d = ev.target();
                if d.is_connected() {
                    let _ = d.show_modal();
                }
            }>
            <h2 id="secret-title">"Your new API key"</h2>
            <p>"“" {name} "”, prefix " <code>{prefix} "…"</code></p>
            <p class="secret" data-field="new-secret"><code>{shown_secret}</code></p>
            <p id="secret-warning" class="field-error">
                "This is the only time the key is shown. Copy it and store it somewhere safe now: it cannot be shown again."
            </p>
            <div class="actions-row">
                <button type="button" class="button secondary" on:click=move |_| {
                    copy_text(&secret);
                    copied.set(true);
                }>{move || if copied.get() { "Copied" } else { "Copy" }}</button>
                <button type="button" class="button primary" on:click=move |_| {
                    revealed.set(None);
                    focus_id("key-name");
                }>"I have stored it"</button>
            </div>
        </dialog>
    }
}
