//! `/log` and `/log/{id}`: every request this console made for the workspace in this browser
//! (the page's and the bulk worker's; `crate::request_log` keeps them), newest first, filtered
//! by status class, method, path and text, all in the URL; and one request's page: its bodies,
//! the text for a support ticket, the request as code. Also the switch that stops keeping the
//! log, and clearing it.

use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::Duration;

use leptos::prelude::*;
use leptos_router::components::A;
use leptos_router::hooks::{use_navigate, use_query};
use leptos_router::params::{Params, ParamsError};

use crate::browser::copy_text;
use crate::components::{
    Confirm, CopyAsCode, Notice, RowAttribute, StoreRefusalNotice, WindowedTable,
};
use crate::model::format::{counted, group_thousands, local_time, size};
use crate::model::presenter::body_texts;
use crate::model::request_log::{
    AnsweredError, Entry, KEPT_ENTRIES, KeptBody, LogFilter, LogQuery, METHODS, NoCode,
    StatusClass, WHOLE_BODIES_KEPT, entry_path,
};
use crate::nav::{in_place, use_id_param};
use crate::request_log::{self, WholeBody};
use crate::state::polling::use_every_while_shown;
use crate::state::presenter::use_masker;
use crate::state::workspace::use_workspace;

/// How often the list reads the log again while it is on screen.
const REREAD: Duration = Duration::from_secs(4);

/// `/log`'s query as text. Every field is text so that no value is refused here:
/// [`LogFilter::from_query`] reports an unknown status or method.
#[derive(Params, Clone, Debug, PartialEq, Default)]
struct LogParams {
    status: Option<String>,
    method: Option<String>,
    path: Option<String>,
    q: Option<String>,
}

impl LogParams {
    /// The query of the URL's parameters (none when they could not be read).
    fn of(params: &Result<LogParams, ParamsError>) -> LogQuery<'_> {
        params.as_ref().map(LogParams::query).unwrap_or_default()
    }

    fn query(&self) -> LogQuery<'_> {
        LogQuery {
            status: self.status.as_deref(),
            method: self.method.as_deref(),
            path: self.path.as_deref(),
            text: self.q.as_deref(),
        }
    }
}

#[component]
pub fn RequestLogPage() -> impl IntoView {
    let workspace = use_workspace();
    let params = use_query::<LogParams>();
    let workspace_id = move || workspace.id();
    // Read again on a timer while shown, and after a clear or a switch.
    let reread = RwSignal::new(0_u32);
    use_every_while_shown(REREAD, move || reread.update(|n| *n += 1));
    let entries = LocalResource::new(move || {
        reread.track();
        let id = workspace_id();
        async move {
            match id {
                Some(id) => request_log::entries(&id).await.map(Some),
                None => Ok(None),
            }
        }
    });
    let keeping = LocalResource::new(move || {
        reread.track();
        let id = workspace_id();
        async move {
            match id {
                Some(id) => Some(request_log::is_keeping(&id).await),
                None => None,
            }
        }
    });
    let filter = Memo::new(move |_| params.with(|p| LogFilter::from_query(LogParams::of(p))));
    // The log as last read, newest first: the same rows while no entry came or went.
    let read = Memo::new(move |_| match entries.get() {
        None | Some(Ok(None)) => LogRead::Reading,
        Some(Err(error)) => LogRead::Unreadable(error.sentence()),
        Some(Ok(Some(all))) => LogRead::Read(all.into_iter().rev().map(LoggedRow::new).collect()),
    });

    view! {
        <section class="page log-page">
            <h1>"Request log"</h1>
            <p class="lead">
                "Every request this console made for this workspace in this browser, the bulk worker's included, newest first: "
                "what was sent and what came back. The credential is never kept, nor a new key's secret. "
                {format!("The newest {} are kept; long bodies are shortened to 64 KB, and the newest {WHOLE_BODIES_KEPT} of them are also kept whole.", group_thousands(KEPT_ENTRIES as u64))}
            </p>
            <StoreRefusalNotice />
            <LogKeeping keeping reread />
            <LogFilters filter />
            {move || filter.get().err().map(|problem| view! {
                <Notice field="filter-problem">{problem}</Notice>
            })}
            {move || read.with(|read| match read {
                LogRead::Reading => Some(view! { <p class="loading">"Reading the log…"</p> }.into_any()),
                LogRead::Unreadable(sentence) => {
                    let sentence = sentence.clone();
                    Some(view! {
                        <Notice field="no-storage">"The log could not be read. " {sentence}</Notice>
                    }.into_any())
                }
                LogRead::Read(_) => None,
            })}
            <Show when=move || read.with(|r| matches!(r, LogRead::Read(_))) && filter.with(Result::is_ok)>
                <LogTable read filter />
            </Show>
        </section>
    }
}

/// The switch that stops keeping the log (`keeping`: whether it is kept, once read), and
/// clearing it after a confirmation; either has the log read again (`reread`).
#[component]
fn LogKeeping(keeping: LocalResource<Option<bool>>, reread: RwSignal<u32>) -> impl IntoView {
    let workspace = use_workspace();
    // The store's refusal of the switch: the box shows what it reads back (the switch as it
    // was), and this says why.
    let switch_refused = RwSignal::new(None::<String>);
    let set_keeping = move |keep: bool| {
        let Some(id) = workspace.id_untracked() else {
            return;
        };
        leptos::task::spawn_local(async move {
            let kept = request_log::set_keeping(&id, keep).await;
            switch_refused.set(kept.err().map(|error| {
                format!(
                    "This browser's storage did not keep the switch, so it is as it was. {}",
                    error.sentence()
                )
            }));
            reread.update(|n| *n += 1);
        });
    };
    let confirming_clear = RwSignal::new(false);
    let clear = Action::new_local(move |id: &String| {
        let id = id.clone();
        async move {
            let note = match request_log::clear(&id).await {
                Ok(()) => "The request log was cleared.".to_owned(),
                Err(error) => format!("The log could not be cleared. {error}"),
            };
            reread.update(|n| *n += 1);
            note
        }
    });
    let on_clear = Callback::new(move |()| {
        let Some(id) = workspace.id_untracked() else {
            return;
        };
        confirming_clear.set(false);
        clear.dispatch_local(id);
    });
    view! {
        <div class="actions-row">
            <label class="checkbox">
                <input type="checkbox" data-field="log-keeping"
                    prop:checked=move || keeping.get().flatten().unwrap_or(true)
                    on:change:target=move |ev| set_keeping(ev.target().checked()) />
                " Keep a log of this workspace's requests in this browser"
            </label>
            <button type="button" class="button danger" hidden=move || confirming_clear.get()
                on:click=move |_| confirming_clear.set(true)>"Clear the log…"</button>
        </div>
        {move || switch_refused.get().map(|refused| view! {
            <p class="field-error" role="alert" data-field="log-keeping-refused">{refused}</p>
        })}
        {move || (keeping.get().flatten() == Some(false)).then(|| view! {
            <Notice field="log-paused">"Not keeping requests: new ones are not logged until you switch it back on."</Notice>
        })}
        {move || confirming_clear.get().then(|| view! {
            <Confirm field="confirm-clear" title=|| "Delete every entry of this workspace's request log in this browser?"
                confirm_label="Clear the log" cancel_label="Keep it"
                on_confirm=on_clear on_cancel=Callback::new(move |()| confirming_clear.set(false)) />
        })}
        <p role="status" data-field="clear-note">{move || clear.value().get()}</p>
    }
}

/// The filters of the list: each change is a new URL, in place.
#[component]
fn LogFilters(filter: Memo<Result<LogFilter, String>>) -> impl IntoView {
    let navigate = use_navigate();
    let show = move |change: &dyn Fn(&mut LogFilter)| {
        let mut next = filter.get_untracked().unwrap_or_default();
        change(&mut next);
        navigate(&next.url(), in_place());
    };
    let current = move || filter.get().unwrap_or_default();
    let (show_status, show_method, show_path, show_text) =
        (show.clone(), show.clone(), show.clone(), show);
    view! {
        <form class="toolbar log-filters" role="search" aria-label="Filter the log" on:submit=|ev| ev.prevent_default()>
            <label>
                "Status"
                <select data-field="filter-status" on:change:target=move |ev| {
                    let picked = StatusClass::parse(&ev.target().value());
                    show_status(&|f| f.status = picked);
                }>
                    <option value="" selected=move || current().status.is_none()>"Any"</option>
                    {StatusClass::ALL.into_iter().map(|class| view! {
                        <option value=class.as_str() selected=move || current().status == Some(class)>{class.label()}</option>
                    }).collect_view()}
                </select>
            </label>
            <label>
                "Method"
                <select data-field="filter-method" on:change:target=move |ev| {
                    let picked = Some(ev.target().value()).filter(|m| !m.is_empty());
                    show_method(&|f| f.method = picked.clone());
                }>
                    <option value="" selected=move || current().method.is_none()>"Any"</option>
                    {METHODS.into_iter().map(|method| view! {
                        <option value=method selected=move || current().method.as_deref() == Some(method)>{method}</option>
                    }).collect_view()}
                </select>
            </label>
            <label>
                "Path"
                <input type="search" data-field="filter-path" placeholder="/v1/runs"
                    prop:value=move || current().path
                    on:input:target=move |ev| {
                        let typed = ev.target().value();
                        show_path(&|f| f.path = typed.clone());
                    } />
            </label>
            <label class="grow">
                "Text"
                <input type="search" data-field="filter-text" placeholder="request id, key, error, input…"
                    prop:value=move || current().text
                    on:input:target=move |ev| {
                        let typed = ev.target().value();
                        show_text(&|f| f.text = typed.clone());
                    } />
            </label>
        </form>
    }
}

/// The log as the list last read it.
#[derive(Clone, PartialEq)]
enum LogRead {
    Reading,
    /// The store refused; what happened, for the person.
    Unreadable(String),
    /// Every entry kept, newest first.
    Read(Vec<LoggedRow>),
}

/// An entry as a row of the list. An entry is written once, so its id tells it: a read of the
/// log that brings the same entries is the same list, and no row is drawn again.
#[derive(Clone)]
struct LoggedRow(Arc<Entry>);

impl LoggedRow {
    fn new(entry: Entry) -> Self {
        LoggedRow(Arc::new(entry))
    }

    fn attributes(&self) -> Vec<RowAttribute> {
        vec![RowAttribute {
            name: "data-entry",
            value: self.0.id.clone(),
        }]
    }
}

impl PartialEq for LoggedRow {
    fn eq(&self, other: &Self) -> bool {
        self.0.id == other.0.id
    }
}

impl Eq for LoggedRow {}

impl Hash for LoggedRow {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.id.hash(state);
    }
}

/// Every entry that passes the filter, newest first, in one scrolling table that draws the rows
/// near the view. A new filter starts at the top; the log read again (every few seconds) keeps
/// the view on the entry it showed, or at the top, where new entries come in.
#[component]
fn LogTable(read: Memo<LogRead>, filter: Memo<Result<LogFilter, String>>) -> impl IntoView {
    let matching = Memo::new(move |_| {
        let Ok(filter) = filter.get() else {
            return Vec::new();
        };
        read.with(|read| match read {
            LogRead::Read(all) => all
                .iter()
                .filter(|row| filter.matches(&row.0))
                .cloned()
                .collect(),
            _ => Vec::new(),
        })
    });
    let summary = move || {
        let logged = read.with(|r| match r {
            LogRead::Read(all) => all.len(),
            _ => 0,
        });
        let filtered = filter.with(|f| f.as_ref().is_ok_and(|f| !f.is_empty()));
        let matching = matching.with(Vec::len);
        if logged == 0 {
            "No request is logged yet for this workspace in this browser.".to_owned()
        } else if matching == 0 {
            format!(
                "None of the {} matches.",
                counted(logged as u64, "logged request", "logged requests")
            )
        } else if filtered {
            format!(
                "{} matching, of {} logged.",
                counted(matching as u64, "request", "requests"),
                group_thousands(logged as u64)
            )
        } else {
            format!("{}.", counted(matching as u64, "request", "requests"))
        }
    };
    let list_of =
        Signal::derive(move || filter.with(|f| f.as_ref().map(LogFilter::url).unwrap_or_default()));
    let head = || {
        view! {
            <th scope="col">"Sent"</th>
            <th scope="col">"Method"</th>
            <th scope="col">"Path"</th>
            <th scope="col">"Status"</th>
            <th scope="col" class="num">"Time"</th>
            <th scope="col">"Request id"</th>
            <th scope="col">"By"</th>
        }
    };
    view! {
        <p data-field="log-summary">{summary}</p>
        <Show when=move || matching.with(|m| !m.is_empty())>
            <WindowedTable rows=matching head=head() row=|_, row: &LoggedRow| log_cells(&row.0) list_of
                row_attributes=LoggedRow::attributes label="Requests" class="log-table" field="log-table" />
        </Show>
    }
}

/// An entry's cells, each focusable for the grid's keys: when it was sent (a link to its page),
/// method, path, status and error, time taken, request id, and who sent it.
fn log_cells(entry: &Entry) -> impl IntoView + use<> {
    let class = match entry.status {
        None => "status-none",
        Some(s) if s >= 500 => "status-5xx",
        Some(s) if s >= 400 => "status-4xx",
        Some(_) => "status-2xx",
    };
    let error = entry.error.as_ref().map(|e| e.code.clone()).or_else(|| {
        entry
            .network_error
            .is_some()
            .then(|| "no answer".to_owned())
    });
    let (href, sent, status) = (
        entry_path(&entry.id),
        local_time(entry.at),
        entry.status_text(),
    );
    view! {
        <th scope="row" tabindex="-1"><A href=href>{sent}</A></th>
        <td tabindex="-1">{entry.method.clone()}</td>
        <td class="path" tabindex="-1">
            {entry.path.clone()}
            {entry.bodies_forgotten_after_days.map(|days| view! {
                " " <span class="badge" data-field="bodies-forgotten-mark" title=format!("Its bodies were forgotten after {days} days.")>"bodies forgotten"</span>
            })}
        </td>
        <td class=class data-field="status" tabindex="-1">
            {status}
            {error.map(|code| view! { " " <span class="error-code">{code}</span> })}
        </td>
        <td class="num" tabindex="-1">{format!("{} ms", group_thousands(u64::from(entry.duration_ms)))}</td>
        <td class="mono" tabindex="-1">{entry.request_id.clone().unwrap_or_default()}</td>
        <td tabindex="-1">{entry.origin.label()}</td>
    }
}

#[component]
pub fn LogEntryPage() -> impl IntoView {
    let workspace = use_workspace();
    let id = use_id_param();
    // The workspace's id, not its every refresh: a refresh would read the entry again and fold
    // a whole body shown back up.
    let workspace_id = Memo::new(move |_| workspace.id());
    let found = LocalResource::new(move || {
        let workspace_id = workspace_id.get();
        let id = id.get();
        async move {
            match workspace_id {
                Some(ws) => request_log::entry(&ws, &id)
                    .await
                    .map(|found| found.map(|(entry, answer)| (ws, entry, answer))),
                None => Ok(None),
            }
        }
    });
    view! {
        <section class="page log-entry-page">
            <p class="breadcrumb"><A href="/log">"Request log"</A></p>
            {move || match found.get() {
                None => view! { <p class="loading">"Reading the log…"</p> }.into_any(),
                Some(Err(error)) => view! {
                    <Notice>"The log could not be read. " {error.sentence()}</Notice>
                }.into_any(),
                Some(Ok(None)) => view! {
                    <h1>"Not in the log"</h1>
                    <Notice field="entry-missing">
                        "This request is not in this browser's log of the workspace: it may have been cleared, or dropped as one of the oldest, or logged in another browser."
                    </Notice>
                }.into_any(),
                Some(Ok(Some((workspace_id, entry, answer)))) => entry_view(workspace_id, entry, answer).into_any(),
            }}
        </section>
    }
}

fn entry_view(workspace_id: String, entry: Entry, answer: KeptBody) -> impl IntoView {
    // In presenter mode the bodies and the error's message are masked everywhere on this page:
    // shown, in the ticket, and in what is copied. The request as code masks its own.
    let masker = use_masker();
    let mask_body = move |body: KeptBody| KeptBody {
        text: masker.json_text(&body.text).into_owned(),
        ..body
    };
    // What the answer's message may quote of the request.
    let sent_texts = entry
        .request_body
        .as_ref()
        .map(|body| body_texts(&body.text))
        .unwrap_or_default();
    let shown_entry = Entry {
        request_body: entry.request_body.clone().map(mask_body),
        error: entry.error.clone().map(|error| AnsweredError {
            message: masker.message(&error.message, &sent_texts).into_owned(),
            ..error
        }),
        ..entry.clone()
    };
    let answer = mask_body(answer);
    let environment = crate::state::environment::use_environment().of_base_url(&entry.base_url);
    let ticket = shown_entry.ticket_text(&answer, &environment);
    let ticket_for_copy = ticket.clone();
    let copied = RwSignal::new(false);
    let whole_request = RwSignal::new(None::<Option<String>>);
    let whole_answer = RwSignal::new(None::<Option<String>>);
    let load_whole = {
        let (ws, id) = (workspace_id.clone(), entry.id.clone());
        move |which: WholeBody| {
            let (ws, id) = (ws.clone(), id.clone());
            leptos::task::spawn_local(async move {
                let text = request_log::whole_body(&ws, &id, which).await;
                match which {
                    WholeBody::Request => whole_request.set(Some(text)),
                    WholeBody::Answer => whole_answer.set(Some(text)),
                }
            });
        }
    };
    // The request as code: its body must be whole (a long one once it is loaded).
    let request_as_code = {
        let entry = entry.clone();
        Signal::derive(move || {
            whole_request.get().flatten().map_or_else(
                || entry.request_spec(None),
                |whole| entry.request_spec(Some(&whole)),
            )
        })
    };
    let title = format!("{} {}", entry.method, entry.path);
    let status = match (&entry.status, &entry.network_error) {
        (Some(status), _) => format!("HTTP {status}"),
        (None, Some(reason)) => format!("No answer: {reason}"),
        (None, None) => "No answer".to_owned(),
    };
    let answered_with_error = entry.status.is_some_and(|s| s >= 400);
    let load_request = load_whole.clone();
    view! {
        <h1 class="mono-title">{title}</h1>
        <p class=if answered_with_error || entry.status.is_none() { "lead error-code" } else { "lead" } data-field="entry-status">{status}</p>
        {shown_entry.error.clone().map(|error| view! {
            <div class="error-panel" role="note" data-field="entry-error">
                <p class="error-title"><code>{error.code}</code></p>
                <p class="error-message">{error.message}</p>
            </div>
        })}
        <dl class="facts">
            <dt>"Sent"</dt><dd>{format!("{} (your time), {}", local_time(entry.at), api_contract::timestamp::to_wire(&entry.at))}</dd>
            <dt>"Took"</dt><dd>{format!("{} ms", group_thousands(u64::from(entry.duration_ms)))}</dd>
            <dt>"Request id"</dt><dd class="mono" data-field="entry-request-id">{entry.request_id.clone().unwrap_or_else(|| "none in the answer".to_owned())}</dd>
            {entry.idempotency_key.clone().map(|key| view! {
                <dt>"Idempotency-Key"</dt><dd class="mono" data-field="entry-key">{key}</dd>
            })}
            <dt>"API"</dt><dd class="mono">{entry.base_url.clone()}</dd>
            <dt>"Sent by"</dt><dd>{format!("the console's {}", entry.origin.label())}</dd>
        </dl>

        {shown_entry.request_body.clone().map(|body| view! {
            <h2 class="section-title">"Request body"</h2>
            {body_view(body, whole_request, move || load_request(WholeBody::Request), "request-body")}
        })}
        {entry.bodies_forgotten_after_days.map(|days| view! {
            <Notice field="bodies-forgotten">
                {format!("This request's bodies were forgotten after {days} days, as chosen on the ")}
                <a href="/storage">"Storage"</a>
                " page: the entry keeps its method, path, status, request id and times."
            </Notice>
        })}
        <h2 class="section-title">"Answer body"</h2>
        {if entry.bodies_forgotten_after_days.is_some() {
            view! { <p class="help" data-field="answer-body">"Forgotten."</p> }.into_any()
        } else if answer.whole_bytes == 0 {
            view! { <p class="help" data-field="answer-body">"Empty."</p> }.into_any()
        } else {
            body_view(answer, whole_answer, move || load_whole(WholeBody::Answer), "answer-body").into_any()
        }}

        <h2 class="section-title">"For a support ticket"</h2>
        <p class="help">"Markdown with the request id, the times, the status and the bodies of an error. No credential."</p>
        <pre class="code" tabindex="0" data-field="ticket-text">{ticket}</pre>
        <div class="actions-row">
            <button type="button" class="button secondary" data-field="copy-ticket"
                on:click=move |_| { copy_text(&ticket_for_copy); copied.set(true); }>"Copy for a ticket"</button>
            <span role="status" class="help">{move || copied.get().then_some("Copied.")}</span>
        </div>

        <h2 class="section-title">"The request as code"</h2>
        {move || match request_as_code.get() {
            Ok(spec) => view! { <CopyAsCode request=Signal::stored(spec) /> }.into_any(),
            Err(NoCode::Shortened) => view! {
                <p class="help" data-field="code-unavailable">"The request's body was shortened here and is no longer kept whole, so it cannot be written out as code."</p>
            }.into_any(),
            Err(NoCode::Forgotten { days }) => view! {
                <p class="help" data-field="code-unavailable">{format!("The request's body was forgotten after {days} days, so it cannot be written out as code.")}</p>
            }.into_any(),
        }}
    }
}

/// A body, pretty when it is JSON and whole; a shortened one says so and offers the whole.
fn body_view(
    body: KeptBody,
    whole: RwSignal<Option<Option<String>>>,
    load: impl Fn() + Clone + 'static,
    field: &'static str,
) -> impl IntoView {
    let shortened = body.is_shortened();
    let whole_bytes = body.whole_bytes;
    let masker = use_masker();
    let shown = move || match whole.get() {
        Some(Some(text)) => pretty(&masker.json_text(&text)),
        _ if shortened => body.text.clone(),
        _ => pretty(&body.text),
    };
    view! {
        <pre class="code body" tabindex="0" data-field=field>{shown}</pre>
        {shortened.then(|| view! {
            <p class="help" data-field=format!("{field}-shortened")>
                {move || match whole.get() {
                    None => format!("Shortened: the first 64 KB of {}.", size(whole_bytes as f64)),
                    Some(Some(_)) => format!("The whole body, {}.", size(whole_bytes as f64)),
                    Some(None) => format!("Shortened: the first 64 KB of {}. The whole body is no longer kept: only the newest {WHOLE_BODIES_KEPT} long bodies are.", size(whole_bytes as f64)),
                }}
                " "
                <button type="button" class="button secondary" hidden=move || whole.get().is_some()
                    on:click=move |_| load()>"Show the whole body"</button>
            </p>
        })}
    }
}

/// A one-line JSON text indented for reading (its fields then in alphabetical order); any other
/// text as it is.
fn pretty(text: &str) -> String {
    if text.contains('\n') {
        return text.to_owned();
    }
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|value| serde_json::to_string_pretty(&value).ok())
        .unwrap_or_else(|| text.to_owned())
}
