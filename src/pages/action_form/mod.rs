//! `/actions/{id}`: the submit form generated from the registry entry, with validation as the
//! person types, a cost estimate, a request preview, and a submission that is never charged twice.

mod fields;
mod panels;
mod reuse;
mod submission;

use api_contract::ActionId;
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use self::fields::{FormFields, InputFields, LimitFields, ModeChoice, SpanningError};
use self::panels::{CostEstimate, RateLimitNotice, RequestPreview, SubmitFailure, SubmitRow};
use self::reuse::KeptResultOffer;
use self::submission::use_submission;
use crate::browser::focus_id;
use crate::components::{ApiErrorPanel, ConfirmSpend, StoreRefusalNotice};
use crate::model::form::{FormModel, Values, submission_request};
use crate::model::safeguards::{Confirmation, Spend};
use crate::model::same_input::Question;
use crate::nav::use_id_param;
use crate::state::drafts::{Draft, Drafts, use_drafts};
use crate::state::environment::use_environment;
use crate::state::registry::use_registry;
use crate::state::safeguards::use_safeguards;
use crate::state::session::use_session;
use crate::state::workspace::use_workspace;

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
            <StoreRefusalNotice />
        </section>
    }
}

/// The form of one action: its inputs, the cost, the submission and the request preview.
#[component]
fn ActionForm(model: FormModel) -> impl IntoView {
    let session = use_session();
    let drafts = use_drafts();
    let workspace = use_workspace();
    let environment = use_environment();
    let safeguards = use_safeguards();
    let action = model.action.clone();
    let draft = starting_draft(&model, drafts);
    let mode = RwSignal::new(if draft.live { "live" } else { "async" }.to_owned());
    let live = move || mode.with(|m| m == "live");
    let (known, cpr, ceiling, note) = (
        model.known,
        model.credits_per_record,
        model.max_results_ceiling,
        model.note,
    );
    let fields = FormFields::new(model, &draft.values);
    let FormFields {
        values,
        show_all_errors,
        ..
    } = fields;
    let body = Memo::new(move |_| values.with(|v| fields.model.with_value(|m| m.body(v))));
    // The question the body asks, once the values break no rule: what a kept run may answer.
    let wanted = {
        let action = action.clone();
        Memo::new(move |_| {
            let valid = values.with(|v| fields.model.with_value(|m| m.errors(v).is_empty()));
            valid
                .then(|| body.with(|b| Question::of_body(&action, ceiling, b)))
                .flatten()
        })
    };
    // Plain closures, not derived signals: they own nothing, so a view still reading them
    // while a 401 takes the page down reads live signals, not disposed ones.
    let estimate = move || values.with(|v| fields.model.with_value(|m| m.estimate(v)));
    let available = move || {
        workspace
            .get()
            .and_then(Result::ok)
            .map(|ws| ws.credits_available())
    };

    {
        let action = action.clone();
        let started_from = draft.started_from.clone();
        Effect::new(move |_| {
            let draft = Draft {
                values: values.get(),
                live: live(),
                started_from: started_from.clone(),
            };
            drafts.save(&action, draft);
        });
    }

    // The key belongs to one logical submission (the body it was made for): a retry after a
    // 5xx, no answer or a 429 sends the same key, so it is never charged twice.
    let submission = use_submission(body, fields);
    // A new logical submission of the body on screen, with its key.
    let send_new = {
        let action = action.clone();
        move || {
            if let Some(client) = session.client_untracked() {
                let body = body.get_untracked();
                submission.send_new(client, action.clone(), untrack(live), body);
            }
        }
    };
    // The question asked before a costly submission, while it is on screen.
    let asking = RwSignal::new(None::<Confirmation>);
    let on_submit = {
        let send_new = send_new.clone();
        move || {
            if submission.busy_untracked() || asking.with_untracked(Option::is_some) {
                return;
            }
            show_all_errors.set(true);
            fields.clear_server_errors();
            if let Some(first) = fields.first_invalid_untracked() {
                focus_id(&format!("field-{first}"));
                return;
            }
            // A run that may cost more than the person's threshold, or more than is available,
            // asks first; nothing is sent unless they agree.
            let spend = Spend::Run {
                worst_case: untrack(estimate),
            };
            let confirmation = safeguards.get_untracked().before_spending(
                &environment.current_untracked(),
                spend,
                untrack(available),
            );
            match confirmation {
                Some(confirmation) => asking.set(Some(confirmation)),
                None => send_new(),
            }
        }
    };

    // Untracked: this page lives within one session (a new session is a new page), and a view
    // subscribed to the session could re-render while a 401 is taking the page down.
    let base_url = untrack(|| session.base_url()).unwrap_or_default();
    let request_as_code = {
        let action = action.clone();
        Signal::derive(move || {
            let key = submission.next_key.get();
            body.with(|b| submission_request(&base_url, &action, live(), &key, b))
        })
    };

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
            {note.map(|n| view! { <p class="help">{n}</p> })}
            <SpanningError fields />
            <InputFields fields />
            <LimitFields fields />
            <ModeChoice mode />
            <CostEstimate estimate available />
            <KeptResultOffer action max_results_ceiling=ceiling wanted />
            <SubmitFailure submission />
            <RateLimitNotice countdown=submission.countdown />
            <SubmitRow pending=submission.pending live waited=submission.waited />
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
        <RequestPreview body request=request_as_code />
    }
}

/// Where the form starts: the URL's prefill if it has any and the kept draft did not start
/// from it, else the draft kept across sign-in (without a `max_credits` that only repeated the
/// estimate); the URL's `mode` over either.
fn starting_draft(model: &FormModel, drafts: Drafts) -> Draft {
    let query = use_query_map();
    let prefill: Values = query.with_untracked(|q| {
        model
            .field_names()
            .into_iter()
            .filter_map(|name| q.get_str(name).map(|v| (name.to_owned(), v.to_owned())))
            .collect()
    });
    let kept = drafts
        .get(&model.action)
        .filter(|draft| prefill.is_empty() || draft.started_from == prefill);
    let draft = match kept {
        Some(draft) => Draft {
            values: model.without_automatic_cap(draft.values),
            ..draft
        },
        None if prefill.is_empty() => Draft {
            values: Values::new(),
            live: true,
            started_from: Values::new(),
        },
        None => Draft {
            values: prefill.clone(),
            live: true,
            started_from: prefill,
        },
    };
    let live_in_url = query.with_untracked(|q| q.get_str("mode").map(|m| m != "async"));
    Draft {
        live: live_in_url.unwrap_or(draft.live),
        ..draft
    }
}
