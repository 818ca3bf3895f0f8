//! `/runs/compare?a=…&b=…`: two runs side by side: their summaries, their inputs when this
//! browser knows them, and their records matched by identity (`model::compare`), with what was
//! added, removed and changed, field by field. A run the API no longer has is compared as this
//! browser kept it.

use api_contract::Run;
use leptos::prelude::*;
use leptos_router::hooks::{use_navigate, use_query_map};
use serde_json::Value;

use crate::api::{ApiClient, ApiError};
use crate::components::{ApiErrorPanel, Notice, RunStatusBadge, sliced_rows};
use crate::model::archive::input_of_body;
use crate::model::compare::{
    Change, InputField, RecordPair, compare_inputs, compare_records, counts,
};
use crate::model::format::{counted, group_thousands, local_time};
use crate::model::output::{plain, shorten, visible};
use crate::model::presenter::Masker;
use crate::model::urls::{encode, run_path};
use crate::state::presenter::use_masker;
use crate::state::session::use_session;
use crate::state::workspace::use_workspace;
use crate::store;

/// The URL that compares run `a` with run `b`.
pub fn compare_path(a: &str, b: &str) -> String {
    format!("/runs/compare?a={}&b={}", encode(a), encode(b))
}

/// A run to compare, with its output and its input when known.
#[derive(Clone, Debug)]
struct Compared {
    run: Run,
    input: Option<Value>,
    /// The API answered 404: this is the copy this browser kept.
    kept_only: bool,
}

/// The run from the API, or as kept here when the API no longer has it; its input from what
/// this browser kept of it or of its submission.
async fn load(
    client: Option<ApiClient>,
    id: String,
    workspace: Option<String>,
) -> Result<Compared, ApiError> {
    let client = client.ok_or(ApiError::SignedOut)?;
    let kept = match &workspace {
        Some(ws) => crate::archive::kept_run(ws, &id).await.ok().flatten(),
        None => None,
    };
    let submitted_input = async {
        let saved = store::SAVED_SUBMISSIONS.get(&id).await.ok().flatten()?;
        input_of_body(&saved.body)
    };
    match client.run(&id).await {
        Ok(read) => {
            let input = match kept.and_then(|k| k.input) {
                Some(input) => Some(input),
                None => submitted_input.await,
            };
            Ok(Compared {
                run: read.value,
                input,
                kept_only: false,
            })
        }
        Err(error) if error.status() == Some(404) => {
            let (Some(ws), Some(mut kept)) = (workspace, kept) else {
                return Err(error);
            };
            if let Ok(Some(output)) = crate::archive::kept_output(&ws, &id).await {
                kept.run.output = output;
            }
            let input = match kept.input {
                Some(input) => Some(input),
                None => submitted_input.await,
            };
            Ok(Compared {
                run: kept.run,
                input,
                kept_only: true,
            })
        }
        Err(error) => Err(error),
    }
}

#[component]
pub fn CompareRunsPage() -> impl IntoView {
    let query = use_query_map();
    let workspace = use_workspace();
    let session = use_session();
    let ids = Memo::new(move |_| {
        query.with(|q| {
            (
                q.get_str("a").unwrap_or_default().trim().to_owned(),
                q.get_str("b").unwrap_or_default().trim().to_owned(),
            )
        })
    });
    // The workspace's id, not its every refresh: a refresh would read both runs again.
    let workspace_id = Memo::new(move |_| workspace.id());
    let both = LocalResource::new(move || {
        let (a, b) = ids.get();
        let ws = workspace_id.get();
        let client = session.client_untracked();
        async move {
            if a.is_empty() || b.is_empty() {
                return None;
            }
            Some((
                load(client.clone(), a, ws.clone()).await,
                load(client, b, ws).await,
            ))
        }
    });
    view! {
        <section class="page compare-page">
            <p class="breadcrumb"><a href="/runs">"Runs"</a> " / compare"</p>
            <h1>"Compare two runs"</h1>
            <ChooseRuns ids />
            {move || match both.get() {
                None if !ids.with(|(a, b)| a.is_empty() || b.is_empty()) => {
                    view! { <p class="loading">"Reading the two runs…"</p> }.into_any()
                }
                None | Some(None) => ().into_any(),
                Some(Some((Err(error), _))) => view! { <ApiErrorPanel error context="Loading run A" /> }.into_any(),
                Some(Some((_, Err(error)))) => view! { <ApiErrorPanel error context="Loading run B" /> }.into_any(),
                Some(Some((Ok(a), Ok(b)))) => comparison(a, b).into_any(),
            }}
        </section>
    }
}

/// The two run ids, editable: a comparison is a URL, so it can be shared.
#[component]
fn ChooseRuns(ids: Memo<(String, String)>) -> impl IntoView {
    let navigate = use_navigate();
    let a = RwSignal::new(ids.get_untracked().0);
    let b = RwSignal::new(ids.get_untracked().1);
    Effect::new(move |_| {
        let (new_a, new_b) = ids.get();
        a.set(new_a);
        b.set(new_b);
    });
    let missing = RwSignal::new(false);
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let (a, b) = (a.get_untracked(), b.get_untracked());
        let (a, b) = (a.trim(), b.trim());
        missing.set(a.is_empty() || b.is_empty());
        if !a.is_empty() && !b.is_empty() {
            navigate(&compare_path(a, b), Default::default());
        }
    };
    let swap = move |_| {
        let (old_a, old_b) = (a.get_untracked(), b.get_untracked());
        a.set(old_b);
        b.set(old_a);
    };
    view! {
        <form class="compare-choose" on:submit=on_submit>
            <label for="compare-a">"Run A"</label>
            <input id="compare-a" type="text" autocomplete="off" spellcheck="false" placeholder="A run id" bind:value=a />
            <button type="button" class="button link" on:click=swap aria-label="Swap A and B">"⇄"</button>
            <label for="compare-b">"Run B"</label>
            <input id="compare-b" type="text" autocomplete="off" spellcheck="false" placeholder="A run id" bind:value=b />
            <button type="submit" class="button secondary">"Compare"</button>
            <span class="field-error" role="alert">{move || missing.get().then_some("Give both run ids.")}</span>
        </form>
    }
}

/// "Compare with…" on a run's page: another run's id, and the comparison opens.
#[component]
pub fn CompareWith(run_id: String) -> impl IntoView {
    let navigate = use_navigate();
    let other = RwSignal::new(String::new());
    let open = RwSignal::new(false);
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let other = other.get_untracked();
        if !other.trim().is_empty() {
            navigate(&compare_path(&run_id, other.trim()), Default::default());
        }
    };
    view! {
        <div class="actions-row compare-with">
            <button type="button" class="button secondary" hidden=open
                on:click=move |_| open.set(true)>"Compare with…"</button>
            {move || open.get().then(|| view! {
                <form class="inline-form" on:submit=on_submit.clone()>
                    <label for="compare-with">"Compare with run"</label>
                    <input id="compare-with" type="text" autocomplete="off" spellcheck="false"
                        placeholder="Another run's id" bind:value=other />
                    <button type="submit" class="button secondary">"Compare"</button>
                </form>
            })}
        </div>
    }
}

fn comparison(a: Compared, b: Compared) -> impl IntoView {
    let pairs = compare_records(&a.run.output, &b.run.output);
    let counted_pairs = counts(&pairs);
    let different_actions = a.run.action != b.run.action;
    let inputs = match (&a.input, &b.input) {
        (Some(ia), Some(ib)) => Some(compare_inputs(ia, ib)),
        _ => None,
    };
    let input_note = match (&a.input, &b.input) {
        (Some(_), Some(_)) => None,
        (None, None) => Some(
            "Neither run's input is known here: the API does not return inputs, and this browser did not submit them.",
        ),
        (None, Some(_)) => Some(
            "Run A's input is not known here: the API does not return inputs, and this browser did not submit it.",
        ),
        (Some(_), None) => Some(
            "Run B's input is not known here: the API does not return inputs, and this browser did not submit it.",
        ),
    };
    let show_same = RwSignal::new(false);
    // Compared as the API returned them, shown masked in presenter mode.
    let masker = use_masker();
    let masked = |records: &[Value]| records.iter().map(|r| masker.json(r)).collect::<Vec<_>>();
    let records_a = StoredValue::new(masked(&a.run.output));
    let records_b = StoredValue::new(masked(&b.run.output));
    let pairs = pairs
        .into_iter()
        .map(|pair| RecordPair {
            identity: masked_identity(masker, &pair.identity),
            ..pair
        })
        .collect::<Vec<_>>();
    let inputs = inputs.map(|fields| {
        fields
            .into_iter()
            .map(|field| InputField {
                a: field.a.map(|v| masker.field(&field.name, &v).into_owned()),
                b: field.b.map(|v| masker.field(&field.name, &v).into_owned()),
                ..field
            })
            .collect::<Vec<_>>()
    });
    let pairs = StoredValue::new(pairs);
    view! {
        <div class="compare-heads">
            {run_head("A", &a)}
            {run_head("B", &b)}
        </div>
        {different_actions.then(|| view! {
            <Notice>"The two runs are of different actions; their records are compared all the same."</Notice>
        })}
        <h2 class="section-title">"Input"</h2>
        {input_note.map(|note| view! { <p class="help" data-field="input-unknown">{note}</p> })}
        {inputs.map(inputs_table)}
        <h2 class="section-title">"Records"</h2>
        <p data-field="compare-counts">{format!(
            "{} added, {} removed, {} changed, {} the same ({} in A, {} in B).",
            group_thousands(counted_pairs.added as u64),
            group_thousands(counted_pairs.removed as u64),
            group_thousands(counted_pairs.changed as u64),
            group_thousands(counted_pairs.same as u64),
            counted(a.run.output.len() as u64, "record", "records"),
            group_thousands(b.run.output.len() as u64),
        )}</p>
        <p class="help">"Records are matched by profile_url, public_identifier, social_id or id, in that order; records without any of them by their place."</p>
        <label class="checkbox">
            <input type="checkbox" data-field="show-same" prop:checked=show_same
                on:change:target=move |ev| show_same.set(ev.target().checked()) />
            " Show the records that did not change"
        </label>
        {move || {
            let show_same = show_same.get();
            let shown: Vec<usize> = pairs.with_value(|pairs| {
                (0..pairs.len()).filter(|&i| show_same || pairs[i].change != Change::Same).collect()
            });
            if shown.is_empty() {
                return view! { <p class="muted" data-field="no-differences">"No record changed."</p> }.into_any();
            }
            let count = shown.len();
            let build = move |range: std::ops::Range<usize>| {
                pairs.with_value(|pairs| records_a.with_value(|ra| records_b.with_value(|rb| {
                    shown[range].iter().map(|&i| pair_row(&pairs[i], ra, rb)).collect_view().into_any()
                })))
            };
            let rows = sliced_rows(count, FIRST_ROWS, ROWS_PER_SLICE, build);
            view! {
                <div class="table-wrap">
                    <table class="compare-table" data-field="compare-table">
                        <thead><tr>
                            <th scope="col">"Change"</th>
                            <th scope="col">"Record"</th>
                            <th scope="col">"What differs (A → B)"</th>
                        </tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
            }.into_any()
        }}
    }
}

/// Rows of the comparison built with the page (more than a window shows), then
/// [`ROWS_PER_SLICE`] a frame (`sliced_rows`): a row holds three cells and a changed record's
/// fields, so a slice is about what one slice of the output table holds.
const FIRST_ROWS: usize = 15;
const ROWS_PER_SLICE: usize = 25;

fn run_head(which: &'static str, compared: &Compared) -> impl IntoView + use<> {
    let run = &compared.run;
    view! {
        <div class="compare-head" data-field=format!("run-{}", which.to_lowercase())>
            <p class="compare-label">{format!("Run {which}")}</p>
            <p><a href=run_path(&run.id)><code>{run.id.clone()}</code></a></p>
            <p><code>{run.action.clone()}</code> " " <RunStatusBadge status=run.status /></p>
            <p class="muted">{format!(
                "Created {} · {} · {}",
                local_time(run.created_at),
                counted(run.output.len() as u64, "record", "records"),
                counted(run.credits_used, "credit used", "credits used"),
            )}</p>
            {compared.kept_only.then(|| view! {
                <p class="help" data-field="kept-only">"The API no longer has this run: compared as this browser kept it."</p>
            })}
        </div>
    }
}

fn inputs_table(fields: Vec<InputField>) -> impl IntoView {
    let rows = fields
        .into_iter()
        .map(|field| {
            let differs = field.differs();
            let none = || view! { <span class="muted">"(not set)"</span> }.into_any();
            view! {
                <tr data-differs=differs.to_string() class=differs.then_some("differs")>
                    <th scope="row"><code>{field.name.clone()}</code></th>
                    <td>{field.a.clone().map_or_else(none, |v| v.into_any())}</td>
                    <td>{field.b.clone().map_or_else(none, |v| v.into_any())}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="table-wrap">
            <table class="compare-inputs" data-field="compare-inputs">
                <thead><tr><th scope="col">"Field"</th><th scope="col">"A"</th><th scope="col">"B"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

/// What matched two records (`profile_url: https://…`, `record 3`), its value masked by its
/// field's rule.
fn masked_identity(masker: Masker, identity: &str) -> String {
    match identity.split_once(": ") {
        Some((field, value)) => format!("{field}: {}", masker.field(field, value)),
        None => identity.to_owned(),
    }
}

/// A value as short text for the comparison (`(none)` where the record lacks the field).
fn short_value(record: Option<&Value>, field: &str) -> String {
    match record.and_then(|r| r.get(field)) {
        None => "(none)".to_owned(),
        Some(value) => {
            // Direction overrides and control characters shown, not obeyed.
            let text = visible(&plain(value));
            match shorten(&text) {
                (short, true) => format!("{short}…"),
                (short, false) => short.to_owned(),
            }
        }
    }
}

/// A record's name, title or identity, to say which one was added or removed.
fn described(record: &Value) -> String {
    ["name", "title", "text", "headline"]
        .into_iter()
        .find_map(|field| record.get(field).map(|value| visible(&plain(value))))
        .unwrap_or_default()
}

fn pair_row(pair: &RecordPair, a: &[Value], b: &[Value]) -> impl IntoView + use<> {
    let record_a = pair.a.and_then(|i| a.get(i));
    let record_b = pair.b.and_then(|i| b.get(i));
    let detail = match pair.change {
        Change::Changed => pair
            .fields
            .iter()
            .map(|field| {
                view! {
                    <li><code>{field.clone()}</code> ": "
                        <del>{short_value(record_a, field)}</del> " → " <ins>{short_value(record_b, field)}</ins></li>
                }
            })
            .collect_view()
            .into_any(),
        Change::Added => view! { <li>{format!("Only in B: {}", record_b.map(described).unwrap_or_default())}</li> }.into_any(),
        Change::Removed => view! { <li>{format!("Only in A: {}", record_a.map(described).unwrap_or_default())}</li> }.into_any(),
        Change::Same => view! { <li class="muted">"The same in both."</li> }.into_any(),
    };
    let places = format!(
        "{}{}",
        pair.a.map(|i| format!("A #{} ", i + 1)).unwrap_or_default(),
        pair.b.map(|i| format!("B #{}", i + 1)).unwrap_or_default()
    );
    view! {
        <tr data-change=pair.change.as_str()>
            <td><span class=format!("change change-{}", pair.change.as_str())>{pair.change.as_str()}</span></td>
            <td><span class="identity">{visible(&pair.identity)}</span><span class="age">{places}</span></td>
            <td><ul class="differences">{detail}</ul></td>
        </tr>
    }
}
