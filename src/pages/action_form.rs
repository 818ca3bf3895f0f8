//! `/actions/{id}`: the submit form generated from the registry entry, with validation as the
//! person types, a cost estimate, a request preview, and a submission that is never charged twice.

use api_contract::ActionId;
use leptos::prelude::*;
use leptos_router::hooks::{use_navigate, use_query_map};

use crate::browser::{copy_text, focus_id, now_ms, random_bytes, sleep_ms};
use crate::components::ApiErrorPanel;
use crate::form_model::{
    FormField, FormModel, MAX_CREDITS, Values, curl_command, estimate_cost, idempotency_key,
    parse_limit, request_body, split_server_errors,
};
use crate::format::{duration, group_thousands};
use crate::loading::load_api;
use crate::session::use_session;
use crate::shared_state::{Draft, use_shared_state};
use crate::transport::ApiError;

#[component]
pub fn ActionFormPage(id: String) -> impl IntoView {
    let id = StoredValue::new(id);
    let id = move || id.get_value();
    let registry = load_api(|client| async move { client.actions().await });
    view! {
        <section class="page">
            <p class="breadcrumb"><a href="/actions">"Actions"</a> " / " {id}</p>
            {move || {
                    let id = id();
                    match registry.get() {
                        None => view! { <p class="loading">"Loading the action…"</p> }.into_any(),
                        Some(Ok(list)) => match list.actions.into_iter().find(|a| a.id == id) {
                            Some(entry) => view! { <ActionForm model=FormModel::from_entry(&entry) /> }.into_any(),
                            None => view! {
                                <h1>"Unknown action"</h1>
                                <p>"The API has no action " <code>{id}</code> ". "
                                    <a href="/actions">"See all actions"</a> "."</p>
                            }.into_any(),
                        },
                        Some(Err(error)) => view! { <ApiErrorPanel error context="Loading the action" /> }.into_any(),
                    }
                }}
        </section>
    }
}

/// Why the last submission did not lead to a run.
#[derive(Clone, Debug, PartialEq)]
enum Failure {
    /// Shown above the form, with the error panel.
    Refused(ApiError),
    /// 5xx or no answer: Retry sends the same request with the same key.
    Retryable(ApiError),
}

#[component]
fn ActionForm(model: FormModel) -> impl IntoView {
    let session = use_session();
    let shared = use_shared_state();
    let navigate = use_navigate();
    let query = use_query_map();
    let model = StoredValue::new(model);
    let action = model.with_value(|m| m.action.clone());

    // Start from the URL's prefill if it has any, else the draft kept across sign-in.
    let q = query.get_untracked();
    let prefill: Values = model.with_value(|m| {
        m.fields
            .iter()
            .filter_map(|f| q.get(&f.name).map(|v| (f.name.clone(), v)))
            .collect()
    });
    let draft = if prefill.is_empty() {
        shared.draft(&action).unwrap_or(Draft {
            live: true,
            ..Draft::default()
        })
    } else {
        Draft {
            values: prefill,
            live: true,
            ..Draft::default()
        }
    };
    let values = RwSignal::new(draft.values);
    let max_results = RwSignal::new(q.get("max_results").unwrap_or(draft.max_results));
    let max_credits = RwSignal::new(q.get("max_credits").unwrap_or(draft.max_credits));
    let live = RwSignal::new(q.get("mode").map_or(draft.live, |m| m != "async"));
    let touched = RwSignal::new(Vec::<String>::new());
    let show_all_errors = RwSignal::new(false);
    let server_errors = RwSignal::new(Vec::<(String, String)>::new());
    let failure = RwSignal::new(None::<Failure>);
    let pending = RwSignal::new(false);
    let started = RwSignal::new(0.0);
    let now = RwSignal::new(0.0);
    let countdown = RwSignal::new(None::<u32>);
    // The key belongs to one logical submission: the body it was made for.
    let key_for = StoredValue::new(None::<(String, String)>);

    let action_for_draft = action.clone();
    Effect::new(move |_| {
        shared.save_draft(
            &action_for_draft,
            Draft {
                values: values.get(),
                max_results: max_results.get(),
                max_credits: max_credits.get(),
                live: live.get(),
            },
        );
    });

    let ceiling = model.with_value(|m| m.max_results_ceiling);
    // Plain derived closures rather than memos: recomputing is trivial here, and every memo
    // type adds its own reactive machinery to the bundle.
    let results_limit = move || parse_limit(&max_results.get(), 1, u64::from(ceiling));
    let credits_limit = move || parse_limit(&max_credits.get(), 1, MAX_CREDITS);
    let errors = move || {
        let mut e = model.with_value(|m| values.with(|v| m.errors(v)));
        if let Err(message) = results_limit() {
            e.push(("max_results".into(), message));
        }
        if let Err(message) = credits_limit() {
            e.push(("max_credits".into(), message));
        }
        e
    };
    let body = move || {
        let input = model.with_value(|m| values.with(|v| m.input(v)));
        request_body(
            input,
            results_limit().ok().flatten(),
            credits_limit().ok().flatten(),
        )
    };
    // A field's error shows once it was left, once it has content, or after a submit attempt.
    let field_error = move |name: &str| {
        let has_content = match name {
            "max_results" => !max_results.with(String::is_empty),
            "max_credits" => !max_credits.with(String::is_empty),
            _ => values.with(|v| v.get(name).is_some_and(|s| !s.is_empty())),
        };
        let shown =
            show_all_errors.get() || has_content || touched.with(|t| t.iter().any(|n| n == name));
        server_errors
            .with(|s| s.iter().find(|(f, _)| f == name).map(|(_, m)| m.clone()))
            .or_else(|| {
                shown
                    .then(|| {
                        errors()
                            .into_iter()
                            .find(|(f, _)| f == name)
                            .map(|(_, m)| m)
                    })
                    .flatten()
            })
    };

    let workspace = shared.workspace();
    let cpr = model.with_value(|m| m.credits_per_record);
    let estimate = move || {
        let n = results_limit().ok().flatten().unwrap_or(u64::from(ceiling));
        estimate_cost(cpr, n, credits_limit().ok().flatten())
    };

    let send = {
        let action = action.clone();
        move || {
            let Some(client) = session.client() else {
                return;
            };
            let Some((body, key)) = key_for.get_value() else {
                return;
            };
            let (action, navigate) = (action.clone(), navigate.clone());
            pending.set(true);
            failure.set(None);
            started.set(now_ms());
            leptos::task::spawn_local(async move {
                loop {
                    let result = client
                        .submit(&action, live.get_untracked(), &key, &body)
                        .await;
                    match result {
                        Ok((_, run)) => {
                            key_for.set_value(None);
                            shared.workspace_changed();
                            pending.set(false);
                            navigate(&format!("/runs/{}", run.id), Default::default());
                        }
                        Err(error) if error.status() == Some(429) => {
                            // Wait as told, then retry with the same key.
                            let wait = match &error {
                                ApiError::Api { detail, .. } => detail.retry_after.unwrap_or(2.0),
                                _ => 2.0,
                            };
                            let mut left = wait.ceil().clamp(1.0, 600.0) as u32;
                            while left > 0 {
                                countdown.set(Some(left));
                                sleep_ms(1000).await;
                                left -= 1;
                            }
                            countdown.set(None);
                            continue;
                        }
                        Err(error) if error.status() == Some(400) => {
                            key_for.set_value(None);
                            let message = match &error {
                                ApiError::Api { detail, .. } => detail.message.clone(),
                                _ => String::new(),
                            };
                            let mut names: Vec<String> = model
                                .with_value(|m| m.fields.iter().map(|f| f.name.clone()).collect());
                            names.extend(["max_results".to_owned(), "max_credits".to_owned()]);
                            let names: Vec<&str> = names.iter().map(String::as_str).collect();
                            let (by_field, general) = split_server_errors(&message, &names);
                            let first = by_field.first().map(|(f, _)| f.clone());
                            server_errors.set(by_field);
                            if !general.is_empty() || first.is_none() {
                                failure.set(Some(Failure::Refused(error)));
                            }
                            if let Some(first) = first {
                                focus_id(&format!("field-{first}"));
                            }
                        }
                        Err(error) if error.is_unauthorized() => {
                            // The session ended; the guard leads to sign-in and back, the draft stays.
                        }
                        Err(error) if error.status().is_none_or(|s| s >= 500) => {
                            failure.set(Some(Failure::Retryable(error)));
                        }
                        Err(error) => {
                            key_for.set_value(None);
                            failure.set(Some(Failure::Refused(error)));
                        }
                    }
                    pending.set(false);
                    break;
                }
            });
        }
    };
    let send = StoredValue::new(send);

    let submit = move || {
        if pending.get_untracked() {
            return;
        }
        show_all_errors.set(true);
        server_errors.set(Vec::new());
        if let Some((first, _)) = untrack(errors).first() {
            focus_id(&format!(
                "field-{}",
                if first.is_empty() {
                    model.with_value(|m| {
                        m.fields.first().map(|f| f.name.clone()).unwrap_or_default()
                    })
                } else {
                    first.clone()
                }
            ));
            return;
        }
        let body = untrack(body);
        let key = match key_for.get_value() {
            Some((for_body, key)) if for_body == body => key,
            _ => idempotency_key(random_bytes()),
        };
        key_for.set_value(Some((body, key)));
        send.with_value(|s| s());
    };

    // Elapsed time while waiting for a live answer.
    Effect::new(move |_| {
        if pending.get() {
            leptos::task::spawn_local(async move {
                while pending.get_untracked() {
                    now.set(now_ms());
                    sleep_ms(250).await;
                }
            });
        }
    });

    let form_ref = NodeRef::<leptos::html::Form>::new();
    let fields = model.with_value(|m| m.fields.clone());
    let note = model.with_value(|m| m.note);
    let known = model.with_value(|m| m.known);
    let base_url = session.base_url().unwrap_or_default();

    view! {
        <h1>{known.map_or("Action", ActionId::purpose)}</h1>
        <p class="lead">
            <code>{action.clone()}</code>
            " · " {known.map_or_else(|| format!("{cpr} credits per record"), |a| a.cost_rule().to_owned())}
            " · up to " {ceiling} " results"
        </p>
        <form class="form action-form" node_ref=form_ref novalidate
            on:submit=move |ev| { ev.prevent_default(); submit(); }
            on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
                    ev.prevent_default();
                    submit();
                }
            }>
            {note.map(|n| view! { <p class="help">{n}</p> })}
            {move || errors().into_iter().find(|(f, _)| f.is_empty()).map(|(_, m)| m)
                .filter(|_| show_all_errors.get())
                .map(|m| view! { <p class="field-error" role="alert">"Input " {m}</p> })}
            {fields.into_iter().map(|field| view! {
                <InputField field values touched server_errors
                    field_error=Callback::new(move |name: String| field_error(&name)) />
            }).collect_view()}
            <fieldset class="limits">
                <legend>"Limits"</legend>
                <NumberField id="max_results" label="Max results" value=max_results
                    placeholder=format!("{ceiling} (this action's most)")
                    help=format!("1 to {ceiling}. Optional; defaults to {ceiling}.")
                    error=Signal::derive(move || field_error("max_results")) />
                <NumberField id="max_credits" label="Max credits" value=max_credits
                    placeholder="no cap".to_owned()
                    help=format!("1 to {}. Optional; caps what this run may cost.", group_thousands(MAX_CREDITS))
                    error=Signal::derive(move || field_error("max_credits")) />
            </fieldset>
            <fieldset class="mode">
                <legend>"Mode"</legend>
                <label><input type="radio" name="mode" prop:checked=move || live.get() on:change=move |_| live.set(true) />
                    " Live: wait for the result"</label>
                <label><input type="radio" name="mode" prop:checked=move || !live.get() on:change=move |_| live.set(false) />
                    " Async: queue it and watch the run"</label>
            </fieldset>
            <div class="estimate" aria-live="polite">
                <span>"Estimated cost: at most " <strong data-field="estimate">{move || group_thousands(estimate())}</strong> " credits"</span>
                {move || {
                        workspace.get().and_then(Result::ok).map(|ws| {
                            let available = ws.credits_available();
                            view! {
                                <span>" · available: " <strong data-field="available">{group_thousands(available)}</strong></span>
                                {(estimate() > available).then(|| view! {
                                    <span class="field-error">" · more than is available"</span>
                                })}
                            }
                        })
                    }}
            </div>
            {move || failure.get().map(|f| match f {
                Failure::Refused(error) => {
                    let hint = match error.code() {
                        Some("idempotency_key_reused") => Some("This idempotency key was already used for a different request. Submitting again uses a new key."),
                        Some("insufficient_credits") => Some("Lower max results or set max credits, then submit again."),
                        _ => None,
                    };
                    view! {
                        <ApiErrorPanel error context="Submitting" />
                        {hint.map(|h| view! { <p class="help">{h}</p> })}
                    }.into_any()
                }
                Failure::Retryable(error) => view! {
                    <ApiErrorPanel error context="Submitting" />
                    <p class="help">"Your input is kept. Retry sends the same request with the same idempotency key, so it is never charged twice."</p>
                    <button type="button" class="button secondary" on:click=move |_| send.with_value(|s| s())>"Retry"</button>
                }.into_any(),
            })}
            {move || countdown.get().map(|left| view! {
                <p class="notice" role="status">"Rate limited by the API. Retrying with the same key in " <span data-field="countdown">{left}</span> " s…"</p>
            })}
            <div class="actions-row">
                <button type="submit" class="button primary" disabled=move || pending.get()>
                    {move || if pending.get() { "Submitting…" } else if live.get() { "Run live" } else { "Queue run" }}
                </button>
                <span class="help">"Ctrl/⌘ + Enter submits"</span>
                {move || (pending.get() && countdown.get().is_none()).then(|| view! {
                    <span class="waiting" role="status">
                        {move || if live.get() { "Waiting for the run… " } else { "Queuing… " }}
                        {move || duration(now.get() - started.get())}
                    </span>
                })}
            </div>
        </form>
        <details class="preview">
            <summary>"Request preview"</summary>
            <p class="help">"The body as it will be sent, and the same request as curl. The credential is never shown: set API_KEY yourself."</p>
            <pre class="code" data-field="body-preview">{body}</pre>
            {
                let action = action.clone();
                let curl = move || curl_command(&base_url, &action, live.get(), &key_for.get_value().map(|(_, k)| k).unwrap_or_else(|| "<new key on submit>".to_owned()), &body());
                view! {
                    <pre class="code" data-field="curl-preview">{curl.clone()}</pre>
                    <button type="button" class="button secondary" on:click=move |_| copy_text(&curl())>"Copy as curl"</button>
                }
            }
        </details>
    }
}

#[component]
fn InputField(
    field: FormField,
    values: RwSignal<Values>,
    touched: RwSignal<Vec<String>>,
    server_errors: RwSignal<Vec<(String, String)>>,
    field_error: Callback<String, Option<String>>,
) -> impl IntoView {
    let name = field.name.clone();
    let id = format!("field-{name}");
    let help_id = format!("{id}-help");
    let error_id = format!("{id}-error");
    let (n1, n2, n3, n4) = (name.clone(), name.clone(), name.clone(), name.clone());
    let error = Signal::derive(move || field_error.run(n4.clone()));
    let label = field.label.clone();
    let bound = field
        .max_len()
        .map(|m| format!(" · up to {m} characters"))
        .unwrap_or_default();
    view! {
        <div class="field">
            <label for=id.clone()>{field.label.clone()}
                {(!field.required).then(|| view! { <span class="optional">" (optional)"</span> })}
            </label>
            <input id=id type="text" name=name.clone() autocomplete="off" spellcheck="false"
                aria-describedby=format!("{help_id} {error_id}")
                aria-invalid=move || error.with(Option::is_some).to_string()
                prop:value=move || values.with(|v| v.get(&n1).cloned().unwrap_or_default())
                on:input:target=move |ev| {
                    let value = ev.target().value();
                    values.update(|v| { v.insert(n2.clone(), value); });
                    server_errors.update(|s| s.retain(|(f, _)| f != &n2));
                }
                on:blur=move |_| touched.update(|t| if !t.contains(&n3) { t.push(n3.clone()) }) />
            <p class="help" id=help_id>{field.help.clone()} {bound}</p>
            <p class="field-error" id=error_id role="alert">{move || error.get().map(|e| format!("{label} {e}"))}</p>
        </div>
    }
}

#[component]
fn NumberField(
    id: &'static str,
    label: &'static str,
    value: RwSignal<String>,
    placeholder: String,
    help: String,
    error: Signal<Option<String>>,
) -> impl IntoView {
    let input_id = format!("field-{id}");
    view! {
        <div class="field">
            <label for=input_id.clone()>{label} <span class="optional">" (optional)"</span></label>
            <input id=input_id type="text" inputmode="numeric" name=id placeholder=placeholder
                aria-invalid=move || error.get().is_some().to_string()
                bind:value=value />
            <p class="help">{help}</p>
            <p class="field-error" role="alert">{move || error.get().map(|e| format!("{label} {e}"))}</p>
        </div>
    }
}
