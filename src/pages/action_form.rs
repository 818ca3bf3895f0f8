//! `/actions/{id}`: the submit form generated from the registry entry, with validation as the
//! person types, a cost estimate, a request preview, and a submission that is never charged twice.

use api_contract::ActionId;
use leptos::prelude::*;

use crate::browser::{copy_text, focus_id, now_ms, random_bytes, sleep_ms};
use crate::components::ApiErrorPanel;
use crate::form_model::{
    FormModel, MAX_CREDITS, Values, curl_command, estimate_cost, idempotency_key, parse_limit,
    request_body, split_server_errors,
};
use crate::format::{duration, group_thousands};
use crate::navigation::use_navigation;
use crate::routes::Route;
use crate::session::use_session;
use crate::shared_state::{Draft, use_shared_state};
use crate::transport::ApiError;

#[component]
pub fn ActionFormPage(id: String) -> impl IntoView {
    let id = StoredValue::new(id);
    let id = move || id.get_value();
    let registry = use_shared_state().actions();
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

/// The form's state, shared by its fields. `Copy`, so closures and fields take it by value; the
/// two limits live in `values` beside the input fields, under their own names.
#[derive(Clone, Copy)]
struct FormState {
    model: StoredValue<FormModel>,
    values: RwSignal<Values>,
    /// Fields the person has left at least once.
    touched: RwSignal<Vec<String>>,
    /// After a submit attempt every error shows, also in fields never touched.
    show_all_errors: RwSignal<bool>,
    /// Field errors from a 400, until the field changes.
    server_errors: RwSignal<Vec<(String, String)>>,
}

const MAX_RESULTS: &str = "max_results";
const MAX_CREDITS_FIELD: &str = "max_credits";

impl FormState {
    fn value(&self, name: &str) -> String {
        self.values
            .with(|v| v.get(name).cloned())
            .unwrap_or_default()
    }

    fn results_limit(&self) -> Result<Option<u64>, String> {
        let ceiling = self.model.with_value(|m| u64::from(m.max_results_ceiling));
        parse_limit(&self.value(MAX_RESULTS), 1, ceiling)
    }

    fn credits_limit(&self) -> Result<Option<u64>, String> {
        parse_limit(&self.value(MAX_CREDITS_FIELD), 1, MAX_CREDITS)
    }

    /// Every broken rule, by field name; rules spanning fields under `""`.
    fn errors(&self) -> Vec<(String, String)> {
        let mut errors = self.model.with_value(|m| self.values.with(|v| m.errors(v)));
        if let Err(message) = self.results_limit() {
            errors.push((MAX_RESULTS.into(), message));
        }
        if let Err(message) = self.credits_limit() {
            errors.push((MAX_CREDITS_FIELD.into(), message));
        }
        errors
    }

    /// A field's error, shown once the field was left or has content, or after a submit attempt;
    /// the server's word on the field wins until the field changes.
    fn field_error(&self, name: &str) -> Option<String> {
        if let Some(message) = self
            .server_errors
            .with(|s| s.iter().find(|(f, _)| f == name).map(|(_, m)| m.clone()))
        {
            return Some(message);
        }
        let shown = self.show_all_errors.get()
            || !self.value(name).is_empty()
            || self.touched.with(|t| t.iter().any(|n| n == name));
        if !shown {
            return None;
        }
        self.errors()
            .into_iter()
            .find(|(f, _)| f == name)
            .map(|(_, m)| m)
    }

    fn body(&self) -> String {
        let input = self.model.with_value(|m| self.values.with(|v| m.input(v)));
        request_body(
            input,
            self.results_limit().ok().flatten(),
            self.credits_limit().ok().flatten(),
        )
    }
}

#[component]
fn ActionForm(model: FormModel) -> impl IntoView {
    let session = use_session();
    let shared = use_shared_state();
    let nav = use_navigation();
    let action = model.action.clone();
    let ceiling = model.max_results_ceiling;
    let cpr = model.credits_per_record;
    let note = model.note;
    let known = model.known;
    let fields = model.fields.clone();

    // Start from the URL's prefill if it has any, else the draft kept across sign-in.
    let mut prefill = Values::new();
    for name in fields
        .iter()
        .map(|f| f.name.as_str())
        .chain([MAX_RESULTS, MAX_CREDITS_FIELD])
    {
        if let Some(v) = nav.query_untracked(name) {
            prefill.insert(name.to_owned(), v);
        }
    }
    let draft = if prefill.is_empty() {
        shared.draft(&action).unwrap_or(Draft {
            values: Values::new(),
            live: true,
        })
    } else {
        Draft {
            values: prefill,
            live: true,
        }
    };
    let state = FormState {
        model: StoredValue::new(model),
        values: RwSignal::new(draft.values),
        touched: RwSignal::new(Vec::new()),
        show_all_errors: RwSignal::new(false),
        server_errors: RwSignal::new(Vec::new()),
    };
    let live = RwSignal::new(
        nav.query_untracked("mode")
            .map_or(draft.live, |m| m != "async"),
    );
    let failure = RwSignal::new(None::<Failure>);
    let pending = RwSignal::new(false);
    // Seconds waited so far, and seconds left before a rate-limited retry (0: none).
    let waited_ms = RwSignal::new(0u32);
    let countdown = RwSignal::new(0u32);
    // The key belongs to one logical submission: the body it was made for.
    let key_for = StoredValue::new(None::<(String, String)>);

    let action_for_draft = action.clone();
    Effect::new(move |_| {
        shared.save_draft(
            &action_for_draft,
            Draft {
                values: state.values.get(),
                live: live.get(),
            },
        );
    });

    let workspace = shared.workspace();
    let estimate = move || {
        let n = state
            .results_limit()
            .ok()
            .flatten()
            .unwrap_or(u64::from(ceiling));
        estimate_cost(cpr, n, state.credits_limit().ok().flatten())
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
            let action = action.clone();
            pending.set(true);
            failure.set(None);
            leptos::task::spawn_local(async move {
                loop {
                    let result = client
                        .submit(&action, live.get_untracked(), &key, &body)
                        .await;
                    // The person left the form while waiting: the answer has nowhere to go (a
                    // run, if one was made, is on the runs page).
                    if pending.try_get_untracked().is_none() {
                        return;
                    }
                    match result {
                        Ok((_, run)) => {
                            key_for.set_value(None);
                            shared.workspace_changed();
                            pending.set(false);
                            nav.navigate(&Route::RunDetail(run.id).path());
                        }
                        Err(error) if error.status() == Some(429) => {
                            // Wait as told, then retry with the same key.
                            let wait = match &error {
                                ApiError::Api { detail, .. } => detail.retry_after.unwrap_or(2.0),
                                _ => 2.0,
                            };
                            let mut left = wait.ceil().clamp(1.0, 600.0) as u32;
                            while left > 0 {
                                if countdown.try_set(left).is_some() {
                                    return; // the form was left
                                }
                                sleep_ms(1000).await;
                                left -= 1;
                            }
                            if countdown.try_set(0).is_some() {
                                return;
                            }
                            continue;
                        }
                        Err(error) if error.status() == Some(400) => {
                            key_for.set_value(None);
                            let message = match &error {
                                ApiError::Api { detail, .. } => detail.message.clone(),
                                _ => String::new(),
                            };
                            let mut names: Vec<String> = state
                                .model
                                .with_value(|m| m.fields.iter().map(|f| f.name.clone()).collect());
                            names.extend([MAX_RESULTS.to_owned(), MAX_CREDITS_FIELD.to_owned()]);
                            let names: Vec<&str> = names.iter().map(String::as_str).collect();
                            let (by_field, general) = split_server_errors(&message, &names);
                            let first = by_field.first().map(|(f, _)| f.clone());
                            state.server_errors.set(by_field);
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
        state.show_all_errors.set(true);
        state.server_errors.set(Vec::new());
        if let Some((first, _)) = untrack(|| state.errors()).first() {
            let first = if first.is_empty() {
                state
                    .model
                    .with_value(|m| m.fields.first().map(|f| f.name.clone()).unwrap_or_default())
            } else {
                first.clone()
            };
            focus_id(&format!("field-{first}"));
            return;
        }
        let body = untrack(|| state.body());
        let key = match key_for.get_value() {
            Some((for_body, key)) if for_body == body => key,
            _ => idempotency_key(random_bytes()),
        };
        key_for.set_value(Some((body, key)));
        send.with_value(|s| s());
    };

    // Elapsed time while waiting for an answer.
    Effect::new(move |_| {
        if pending.get() {
            let started = now_ms();
            leptos::task::spawn_local(async move {
                // `try_`: the page may be left while waiting; its signals are gone then.
                while pending.try_get_untracked() == Some(true) {
                    waited_ms.try_set((now_ms() - started) as u32);
                    sleep_ms(250).await;
                }
            });
        }
    });

    let base_url = session.base_url().unwrap_or_default();
    let curl = {
        let action = action.clone();
        move || {
            let key = key_for
                .get_value()
                .map_or_else(|| "<new key on submit>".to_owned(), |(_, k)| k);
            curl_command(&base_url, &action, live.get(), &key, &state.body())
        }
    };
    let curl_for_copy = curl.clone();

    view! {
        <h1>{known.map_or("Action", ActionId::purpose)}</h1>
        <p class="lead">
            <code>{action}</code>
            " · " {known.map_or_else(|| format!("{cpr} credits per record"), |a| a.cost_rule().to_owned())}
            " · up to " {ceiling} " results"
        </p>
        <form class="form action-form" novalidate
            on:submit=move |ev| { ev.prevent_default(); submit(); }
            on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
                    ev.prevent_default();
                    submit();
                }
            }>
            {note.map(|n| view! { <p class="help">{n}</p> })}
            <p class="field-error" role="alert">{move || {
                state.show_all_errors.get().then(|| {
                    state.errors().into_iter().find(|(f, _)| f.is_empty()).map(|(_, m)| format!("Input {m}"))
                }).flatten().unwrap_or_default()
            }}</p>
            {fields.into_iter().map(|f| {
                let bound = f.max_len().map(|m| format!(" Up to {m} characters.")).unwrap_or_default();
                view! {
                    <Field state name=f.name label=f.label required=f.required
                        help=format!("{}{bound}", f.help) numeric=false placeholder=String::new() />
                }
            }).collect_view()}
            <fieldset class="limits">
                <legend>"Limits"</legend>
                <Field state name=MAX_RESULTS.to_owned() label="Max results".to_owned() required=false numeric=true
                    placeholder=format!("{ceiling} (this action's most)")
                    help=format!("1 to {ceiling}. Optional; defaults to {ceiling}.") />
                <Field state name=MAX_CREDITS_FIELD.to_owned() label="Max credits".to_owned() required=false numeric=true
                    placeholder="no cap".to_owned()
                    help=format!("1 to {}. Optional; caps what this run may cost.", group_thousands(MAX_CREDITS)) />
            </fieldset>
            <fieldset class="mode">
                <legend>"Mode"</legend>
                <label><input type="radio" name="mode" prop:checked=move || live.get() on:change=move |_| live.set(true) />
                    " Live: wait for the result"</label>
                <label><input type="radio" name="mode" prop:checked=move || !live.get() on:change=move |_| live.set(false) />
                    " Async: queue it and watch the run"</label>
            </fieldset>
            <div class="estimate" aria-live="polite">
                "Estimated cost: at most " <strong data-field="estimate">{move || group_thousands(estimate())}</strong> " credits"
                {move || workspace.get().and_then(Result::ok).map(|ws| {
                    let available = ws.credits_available();
                    let over = if estimate() > available { " · more than is available" } else { "" };
                    view! {
                        " · available: " <strong data-field="available">{group_thousands(available)}</strong>
                        <span class="field-error">{over}</span>
                    }
                })}
            </div>
            {move || failure.get().map(|f| {
                let (error, hint, retry) = match f {
                    Failure::Refused(error) => {
                        let hint = match error.code() {
                            Some("idempotency_key_reused") => "This idempotency key was already used for a different request. Submitting again uses a new key.",
                            Some("insufficient_credits") => "Lower max results or set max credits, then submit again.",
                            _ => "",
                        };
                        (error, hint, false)
                    }
                    Failure::Retryable(error) => (error, "Your input is kept. Retry sends the same request with the same idempotency key, so it is never charged twice.", true),
                };
                view! {
                    <ApiErrorPanel error context="Submitting" />
                    <p class="help">{hint}</p>
                    <button type="button" class="button secondary" hidden=!retry
                        on:click=move |_| send.with_value(|s| s())>"Retry"</button>
                }
            })}
            <p class="notice" role="status" hidden=move || countdown.get() == 0>
                "Rate limited by the API. Retrying with the same key in "
                <span data-field="countdown">{move || countdown.get().to_string()}</span> " s…"
            </p>
            <div class="actions-row">
                <button type="submit" class="button primary" disabled=move || pending.get()>
                    {move || if pending.get() { "Submitting…" } else if live.get() { "Run live" } else { "Queue run" }}
                </button>
                <span class="help">"Ctrl/⌘ + Enter submits"</span>
                <span class="waiting" role="status" hidden=move || { !pending.get() || countdown.get() > 0 }>
                    {move || if live.get() { "Waiting for the run… " } else { "Queuing… " }}
                    {move || duration(f64::from(waited_ms.get()))}
                </span>
            </div>
        </form>
        <details class="preview">
            <summary>"Request preview"</summary>
            <p class="help">"The body as it will be sent, and the same request as curl. The credential is never shown: set API_KEY yourself."</p>
            <pre class="code" tabindex="0" data-field="body-preview">{move || state.body()}</pre>
            <pre class="code" tabindex="0" data-field="curl-preview">{curl}</pre>
            <button type="button" class="button secondary" on:click=move |_| copy_text(&curl_for_copy())>"Copy as curl"</button>
        </details>
    }
}

/// One labelled text input of the form, with its help and its error. Input fields and the two
/// limits share it: one component, one set of closures in the bundle.
#[component]
fn Field(
    state: FormState,
    name: String,
    label: String,
    required: bool,
    help: String,
    numeric: bool,
    placeholder: String,
) -> impl IntoView {
    let id = format!("field-{name}");
    let help_id = format!("{id}-help");
    let error_id = format!("{id}-error");
    let name = StoredValue::new(name);
    let label_for_error = label.clone();
    let error = move || name.with_value(|n| state.field_error(n));
    view! {
        <div class="field">
            <label for=id.clone()>{label}
                <span class="optional">{if required { "" } else { " (optional)" }}</span>
            </label>
            <input id=id type="text" inputmode=if numeric { "numeric" } else { "text" }
                name=name.get_value() autocomplete="off" spellcheck="false" placeholder=placeholder
                aria-describedby=format!("{help_id} {error_id}")
                aria-invalid=move || if error().is_some() { "true" } else { "false" }
                prop:value=move || name.with_value(|n| state.value(n))
                on:input=move |ev| {
                    let value = event_target_value(&ev);
                    name.with_value(|n| {
                        state.values.update(|v| { v.insert(n.clone(), value); });
                        state.server_errors.update(|s| s.retain(|(f, _)| f != n));
                    });
                }
                on:blur=move |_| {
                    // `try_`: removing a focused field (leaving the page) blurs it after its
                    // signals are gone.
                    name.try_with_value(|n| state.touched.try_update(|t| {
                        if !t.contains(n) { t.push(n.clone()) }
                    }));
                } />
            <p class="help" id=help_id>{help}</p>
            <p class="field-error" id=error_id role="alert">{move || error().map(|e| format!("{label_for_error} {e}")).unwrap_or_default()}</p>
        </div>
    }
}
