//! `/actions/{id}`: the submit form generated from the registry entry, with validation as the
//! person types, a cost estimate, a request preview, and a submission that is never charged twice.

use std::time::Duration;

use api_contract::ActionId;
use api_contract::input::MAX_RESULTS_LIMIT;
use chrono::{TimeDelta, Utc};
use leptos::prelude::*;
use leptos::task::{spawn_local, spawn_local_scoped_with_cancellation};
use leptos_router::hooks::{use_navigate, use_query_map};

use crate::api::{ApiClient, ApiError, Submitted};
use crate::app::use_id_param;
use crate::browser::{focus_id, sleep};
use crate::components::{ApiErrorPanel, ConfirmSpend, CopyAsCode};
use crate::model::form::{
    FormModel, MAX_CREDITS, MAX_RESULTS, SavedSubmission, Values, idempotency_key,
    split_server_errors, submission_request,
};
use crate::model::format::{duration, group_thousands};
use crate::model::safeguards::{Confirmation, Spend};
use crate::model::urls::run_path;
use crate::state::drafts::{Draft, use_drafts};
use crate::state::environment::use_environment;
use crate::state::registry::use_registry;
use crate::state::safeguards::use_safeguards;
use crate::state::session::use_session;
use crate::state::workspace::use_workspace;
use crate::store::{self, Change};

#[component]
pub fn ActionFormPage() -> impl IntoView {
    let id = use_id_param();
    let registry = use_registry();
    view! {
        <section class="page">
            <p class="breadcrumb"><a href="/actions">"Actions"</a> " / " {id} " · "
                <a data-field="run-for-many" href=move || format!("/bulk?action={}", crate::model::urls::encode(&id.get()))>"Run for many inputs"</a>
            </p>
            <Transition fallback=|| view! { <p class="loading">"Loading the action…"</p> }>
                {move || {
                    let id = id.get();
                    Suspend::new(async move {
                        match registry.await {
                            Ok(list) => match list.actions.iter().find(|a| a.id == id) {
                                Some(entry) => view! { <ActionForm model=FormModel::from_entry(entry) /> }.into_any(),
                                None => view! {
                                    <h1>"Unknown action"</h1>
                                    <p>"The API has no action " <code>{id}</code> ". "
                                        <a href="/actions">"See all actions"</a> "."</p>
                                }.into_any(),
                            },
                            Err(error) => view! { <ApiErrorPanel error context="Loading the action" /> }.into_any(),
                        }
                    })
                }}
            </Transition>
        </section>
    }
}

/// One text input of the form: its value, whether it was left once, and the server's word on it.
#[derive(Clone)]
struct FieldState {
    name: String,
    value: RwSignal<String>,
    touched: RwSignal<bool>,
    /// From a 400, until the field changes.
    server_error: RwSignal<Option<String>>,
}

/// One logical submission as sent: retried as is, with the same idempotency key.
#[derive(Clone)]
struct Attempt {
    client: ApiClient,
    action: String,
    live: bool,
    key: String,
    body: String,
}

/// Why the last submission did not lead to a run.
#[derive(Clone, Debug, PartialEq)]
enum Failure {
    /// Shown with the error panel; submitting again makes a new request.
    Refused(ApiError),
    /// 5xx or no answer: Retry sends the same request with the same key.
    Retryable(ApiError),
}

#[component]
fn ActionForm(model: FormModel) -> impl IntoView {
    let session = use_session();
    let drafts = use_drafts();
    let workspace = use_workspace();
    let environment = use_environment();
    let safeguards = use_safeguards();
    let navigate = use_navigate();
    let query = use_query_map();
    let action = model.action.clone();

    // Start from the URL's prefill if it has any, else the draft kept across sign-in.
    let prefill: Values = query.with_untracked(|q| {
        model
            .field_names()
            .into_iter()
            .filter_map(|name| q.get_str(name).map(|v| (name.to_owned(), v.to_owned())))
            .collect()
    });
    let draft = if prefill.is_empty() {
        drafts
            .get(&action)
            .map(|draft| Draft {
                values: model.without_automatic_cap(draft.values),
                live: draft.live,
            })
            .unwrap_or(Draft {
                values: Values::new(),
                live: true,
            })
    } else {
        Draft {
            values: prefill,
            live: true,
        }
    };
    let live_in_url = query.with_untracked(|q| q.get_str("mode").map(|m| m != "async"));
    let mode = RwSignal::new(
        if live_in_url.unwrap_or(draft.live) {
            "live"
        } else {
            "async"
        }
        .to_owned(),
    );
    let live = move || mode.with(|m| m == "live");
    let fields: Vec<FieldState> = model
        .field_names()
        .into_iter()
        .map(|name| FieldState {
            name: name.to_owned(),
            value: RwSignal::new(draft.values.get(name).cloned().unwrap_or_default()),
            touched: RwSignal::new(false),
            server_error: RwSignal::new(None),
        })
        .collect();
    let field_states = StoredValue::new(fields.clone());
    let values = Memo::new(move |_| {
        field_states.with_value(|fields| {
            fields
                .iter()
                .map(|f| (f.name.clone(), f.value.get()))
                .collect::<Values>()
        })
    });
    let stored_model = StoredValue::new(model.clone());
    let errors = Memo::new(move |_| values.with(|v| stored_model.with_value(|m| m.errors(v))));
    let body = Memo::new(move |_| values.with(|v| stored_model.with_value(|m| m.body(v))));
    // After a submit attempt every error shows, also in fields never touched.
    let show_all_errors = RwSignal::new(false);

    {
        let action = action.clone();
        Effect::new(move |_| {
            let draft = Draft {
                values: values.get(),
                live: live(),
            };
            drafts.save(&action, draft);
        });
    }

    // The submission. The key belongs to one logical submission (the body it was made for): a
    // retry after a 5xx, no answer or a 429 sends the same key, so it is never charged twice.
    let submit = Action::new_local(|attempt: &Attempt| {
        let attempt = attempt.clone();
        async move {
            let Attempt {
                client,
                action,
                live,
                key,
                body,
            } = attempt;
            client.submit(&action, live, &key, &body).await
        }
    });
    // The key of the last attempt, with the body it was sent with: a retry of the same body
    // sends the same key, so it is never charged twice.
    let key_for = RwSignal::new(None::<(String, String)>);
    // The key the next submission of the body on screen sends: the last attempt's when the body
    // is the same, else a new one. The request preview shows this key, so a snippet copied from
    // it and the form's own submission are one run, not two.
    let next_key = Memo::new(move |_| {
        let current = body.get();
        key_for.with(|sent| match sent {
            Some((sent_body, key)) if *sent_body == current => key.clone(),
            _ => idempotency_key(),
        })
    });
    let last_attempt = StoredValue::new(None::<Attempt>);
    let failure = RwSignal::new(None::<Failure>);
    // Seconds left before a rate-limited retry (0: none).
    let countdown = RwSignal::new(0_u32);
    let pending = submit.pending();
    let busy = move || pending.get() || countdown.get() > 0;

    let send_again = move || {
        if let Some(attempt) = last_attempt.get_value() {
            failure.set(None);
            submit.dispatch_local(attempt);
        }
    };

    // A new logical submission of the body on screen, with its key.
    let send_new = {
        let action = action.clone();
        move || {
            let Some(client) = session.client_untracked() else {
                return;
            };
            let body = body.get_untracked();
            let key = next_key.get_untracked();
            key_for.set(Some((body.clone(), key.clone())));
            last_attempt.set_value(Some(Attempt {
                client,
                action: action.clone(),
                live: live(),
                key,
                body,
            }));
            send_again();
        }
    };
    // The question asked before a costly submission, while it is on screen.
    let asking = RwSignal::new(None::<Confirmation>);
    let estimate_untracked =
        move || values.with_untracked(|v| stored_model.with_value(|m| m.estimate(v)));
    let available_untracked = move || {
        workspace
            .get_untracked()
            .and_then(Result::ok)
            .map(|ws| ws.credits_available())
    };

    let on_submit = {
        let send_new = send_new.clone();
        move || {
            if pending.get_untracked()
                || countdown.get_untracked() > 0
                || asking.with_untracked(Option::is_some)
            {
                return;
            }
            show_all_errors.set(true);
            field_states.with_value(|fs| fs.iter().for_each(|f| f.server_error.set(None)));
            if let Some(first) = errors.get_untracked().first() {
                // A rule spanning fields focuses the first field.
                let first = first.field.clone().unwrap_or_else(|| {
                    field_states
                        .with_value(|fs| fs.first().map(|f| f.name.clone()).unwrap_or_default())
                });
                focus_id(&format!("field-{first}"));
                return;
            }
            // A run that may cost more than the person's threshold, or more than is available,
            // asks first; nothing is sent unless they agree.
            let spend = Spend::Run {
                worst_case: estimate_untracked(),
            };
            let confirmation = safeguards.get_untracked().before_spending(
                &environment.current_untracked(),
                spend,
                available_untracked(),
            );
            match confirmation {
                Some(confirmation) => asking.set(Some(confirmation)),
                None => send_new(),
            }
        }
    };

    // The submission, kept in this browser by run id for the run page's "Run again with changes",
    // and its run in the workspace's history.
    let remember = move |run: &api_contract::Run, attempt: Option<Attempt>| {
        let ws = workspace.get_untracked().and_then(Result::ok);
        let (Some(attempt), Some(ws)) = (attempt, ws) else {
            return;
        };
        let (workspace_id, seen, body, key) = (
            ws.workspace_id.clone(),
            run.clone(),
            attempt.body.clone(),
            attempt.key.clone(),
        );
        spawn_local(async move {
            let _ = crate::archive::keep_submitted(&workspace_id, &seen, &body, &key).await;
        });
        let run_id = &run.id;
        let saved = SavedSubmission {
            workspace: ws.workspace_id,
            action: attempt.action,
            live: attempt.live,
            body: attempt.body,
        };
        let change = Change::Put {
            store: store::SUBMISSIONS,
            key: run_id.to_owned(),
            json: saved.to_json(),
        };
        spawn_local(async move {
            let _ = store::write(vec![change]).await;
        });
    };

    // What the answer means for the form.
    Effect::new(move |_| {
        let Some(result) = submit.value().get() else {
            return;
        };
        untrack(|| match result {
            Ok(Submitted { run, .. }) => {
                key_for.set(None);
                remember(&run, last_attempt.get_value());
                workspace.refresh();
                navigate(&run_path(&run.id), Default::default());
            }
            Err(error) if error.status() == Some(429) => {
                // Wait as told, then send the same request with the same key. Leaving the page
                // (or a new answer) cancels the wait.
                let seconds = error.retry_after().unwrap_or(2.0).ceil().clamp(1.0, 600.0) as u32;
                countdown.set(seconds);
                spawn_local_scoped_with_cancellation(async move {
                    for left in (0..seconds).rev() {
                        sleep(Duration::from_secs(1)).await;
                        countdown.set(left);
                    }
                    send_again();
                });
            }
            Err(error) if error.status() == Some(400) => {
                key_for.set(None);
                let message = error.server_message().unwrap_or_default().to_owned();
                let names = stored_model.with_value(|m| {
                    m.field_names()
                        .into_iter()
                        .map(str::to_owned)
                        .collect::<Vec<_>>()
                });
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                let split = split_server_errors(&message, &names);
                field_states.with_value(|fs| {
                    for f in fs {
                        let said = split.by_field.iter().find(|e| e.is_for(&f.name));
                        f.server_error.set(said.map(|e| e.message.clone()));
                    }
                });
                if !split.general.is_empty() || split.by_field.is_empty() {
                    failure.set(Some(Failure::Refused(error)));
                }
                if let Some(first) = split.by_field.first().and_then(|e| e.field.as_ref()) {
                    focus_id(&format!("field-{first}"));
                }
            }
            // The session ended: the guard leads to sign-in and back, and the draft stays.
            Err(error) if error.is_unauthorized() => {}
            Err(error) if error.is_transient() => failure.set(Some(Failure::Retryable(error))),
            Err(error) => {
                key_for.set(None);
                failure.set(Some(Failure::Refused(error)));
            }
        });
    });

    // Time waited so far, while waiting for an answer.
    let waited = RwSignal::new(TimeDelta::zero());
    Effect::new(move |_| {
        if pending.get() && countdown.get_untracked() == 0 {
            let started = Utc::now();
            waited.set(TimeDelta::zero());
            spawn_local_scoped_with_cancellation(async move {
                loop {
                    sleep(Duration::from_millis(250)).await;
                    waited.set(Utc::now() - started);
                }
            });
        }
    });

    let estimate = move || values.with(|v| stored_model.with_value(|m| m.estimate(v)));
    let available = move || {
        workspace
            .get()
            .and_then(Result::ok)
            .map(|ws| ws.credits_available())
    };
    // Untracked: this page lives within one session (a new session is a new page), and a view
    // subscribed to the session could re-render while a 401 is taking the page down.
    let base_url = untrack(|| session.base_url()).unwrap_or_default();
    let request_as_code = {
        let action = action.clone();
        Signal::derive(move || {
            let key = next_key.get();
            body.with(|b| submission_request(&base_url, &action, live(), &key, b))
        })
    };

    let ceiling = model.max_results_ceiling;
    let cpr = model.credits_per_record;
    let known = model.known;
    let error_of = move |name: String| {
        let field = field_states.with_value(|fs| fs.iter().find(|f| f.name == name).cloned());
        Signal::derive(move || {
            let field = field.as_ref()?;
            if let Some(said) = field.server_error.get() {
                return Some(said);
            }
            let shown =
                show_all_errors.get() || field.value.with(|v| !v.is_empty()) || field.touched.get();
            if !shown {
                return None;
            }
            errors.with(|e| {
                e.iter()
                    .find(|e| e.is_for(&field.name))
                    .map(|e| e.message.clone())
            })
        })
    };
    let state_of = |name: &str| {
        fields
            .iter()
            .find(|f| f.name == name)
            .cloned()
            .expect("a field")
    };
    let input_fields = model
        .fields
        .iter()
        .map(|f| {
            let bound = f
                .max_len()
                .map(|m| format!(" Up to {m} characters."))
                .unwrap_or_default();
            view! {
                <Field state=state_of(&f.name) error=error_of(f.name.clone()) label=f.label.clone()
                    required=f.required help=format!("{}{bound}", f.help) />
            }
        })
        .collect_view();

    view! {
        <h1>{known.map_or("Action", ActionId::purpose)}</h1>
        <p class="lead">
            <code>{action.clone()}</code>
            " · " {known.map_or_else(|| format!("{cpr} credits per record"), |a| a.cost_rule().to_owned())}
            " · up to " {ceiling} " results"
        </p>
        <form class="form action-form" novalidate
            on:submit={
                let on_submit = on_submit.clone();
                move |ev| { ev.prevent_default(); on_submit(); }
            }
            on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
                    ev.prevent_default();
                    on_submit();
                }
            }>
            {model.note.map(|n| view! { <p class="help">{n}</p> })}
            <p class="field-error" role="alert">{move || {
                show_all_errors.get().then(|| {
                    errors.with(|e| e.iter().find(|e| e.field.is_none()).map(|e| format!("Input {}", e.message)))
                }).flatten()
            }}</p>
            {input_fields}
            <fieldset class="limits">
                <legend>"Limits"</legend>
                <Field state=state_of(MAX_RESULTS) error=error_of(MAX_RESULTS.to_owned())
                    label="Max results".to_owned() required=false numeric=true
                    placeholder=format!("{ceiling} (this action's most)")
                    help=if ceiling < MAX_RESULTS_LIMIT {
                        format!("1 to {MAX_RESULTS_LIMIT}; this action returns at most {ceiling} per run, so more is capped at {ceiling}. Optional; defaults to {ceiling}.")
                    } else {
                        format!("1 to {MAX_RESULTS_LIMIT}. Optional; defaults to {MAX_RESULTS_LIMIT}.")
                    } />
                <Field state=state_of(MAX_CREDITS) error=error_of(MAX_CREDITS.to_owned())
                    label="Max credits".to_owned() required=false numeric=true
                    placeholder="the estimate".to_owned()
                    help="Empty: the estimate below, which is sent as max_credits so the run can never cost more. Lower it to spend less.".to_owned() />
            </fieldset>
            <fieldset class="mode">
                <legend>"Mode"</legend>
                <label><input type="radio" name="mode" value="live" bind:group=mode />
                    " Live: wait for the result"</label>
                <label><input type="radio" name="mode" value="async" bind:group=mode />
                    " Async: queue it and watch the run"</label>
            </fieldset>
            <div class="estimate" aria-live="polite">
                "Estimated cost: at most " <strong data-field="estimate">{move || group_thousands(estimate())}</strong> " credits"
                {move || available().map(|available| {
                    let over = (estimate() > available).then_some(" · more than is available");
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
                    {retry.then(|| view! {
                        <button type="button" class="button secondary"
                            on:click=move |_| if !busy() { send_again() }>"Retry"</button>
                    })}
                }
            })}
            <p class="notice" role="status" hidden=move || countdown.get() == 0>
                "Rate limited by the API. Retrying with the same key in "
                <span data-field="countdown">{move || countdown.get()}</span> " s…"
            </p>
            <div class="actions-row">
                <button type="submit" id="submit-run" class="button primary" disabled=move || pending.get()>
                    {move || if pending.get() { "Submitting…" } else if live() { "Run live" } else { "Queue run" }}
                </button>
                <span class="help">"Ctrl/⌘ + Enter submits"</span>
                <span class="waiting" role="status" hidden=move || !pending.get()>
                    {move || if live() { "Waiting for the run… " } else { "Queuing… " }}
                    {move || duration(waited.get())}
                </span>
            </div>
        </form>
        {move || asking.get().map(|confirmation| {
            let send_new = send_new.clone();
            view! {
                <ConfirmSpend confirmation
                    on_confirm=Callback::new(move |()| {
                        asking.set(None);
                        send_new();
                    })
                    on_dismiss=Callback::new(move |()| {
                        asking.set(None);
                        focus_id("submit-run");
                    }) />
            }
        })}
        <details class="preview">
            <summary>"Request preview"</summary>
            <p class="help">"The body as it will be sent, and the same request as code."</p>
            <pre class="code" tabindex="0" data-field="body-preview">{body}</pre>
            <CopyAsCode request=request_as_code />
        </details>
    }
}

/// One labelled text input of the form, with its help and its error.
#[component]
fn Field(
    /// The field's value and state.
    state: FieldState,
    /// The rule it breaks, when that should show.
    error: Signal<Option<String>>,
    label: String,
    required: bool,
    help: String,
    /// Whole numbers only (the limits): a numeric keyboard on phones.
    #[prop(optional)]
    numeric: bool,
    #[prop(optional)] placeholder: String,
) -> impl IntoView {
    let id = format!("field-{}", state.name);
    let help_id = format!("{id}-help");
    let error_id = format!("{id}-error");
    let FieldState {
        name,
        value,
        touched,
        server_error,
    } = state;
    let label_for_error = label.clone();
    view! {
        <div class="field">
            <label for=id.clone()>{label}
                <span class="optional">{(!required).then_some(" (optional)")}</span>
            </label>
            <input id=id type="text" inputmode=if numeric { "numeric" } else { "text" }
                name=name autocomplete="off" spellcheck="false" placeholder=placeholder
                aria-describedby=format!("{help_id} {error_id}")
                aria-invalid=move || if error.with(Option::is_some) { "true" } else { "false" }
                bind:value=value
                on:input=move |_| server_error.set(None)
                // A write only: safe even when removing a focused field blurs it after the page
                // is gone.
                on:blur=move |_| touched.set(true) />
            <p class="help" id=help_id>{help}</p>
            <p class="field-error" id=error_id role="alert">
                {move || error.get().map(|e| format!("{label_for_error} {e}"))}
            </p>
        </div>
    }
}
