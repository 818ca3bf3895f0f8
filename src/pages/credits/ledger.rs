//! `/credits`' ledger: where the balance went, per local day (`model::ledger`), what no run
//! seen here explains and what that can mean, the same table as a CSV file, and the store's
//! sentence when it did not keep a reading or cannot read them back.

use chrono::{DateTime, Local, Utc};
use leptos::prelude::*;

use super::History;
use crate::browser::download;
use crate::components::{Notice, NoticeKind};
use crate::model::format::{counted, group_thousands, local_time, wall_clock};
use crate::model::ledger::{BalanceReading, LEDGER_COLUMNS, Ledger, LedgerDay};
use crate::state::environment::use_environment;
use crate::state::readings::READING_NOT_KEPT;
use crate::state::refusals::use_store_refusals;

/// The section: what the ledger is, then the table over `history`'s readings and runs.
pub fn section(history: &History) -> impl IntoView + use<> {
    let id = history.workspace.clone();
    let refusals = use_store_refusals();
    // Tracked on its own: a refused write is told as soon as the store answers.
    let not_kept = move || {
        let refusal = refusals
            .of(&id)
            .into_iter()
            .find(|refusal| refusal.what == READING_NOT_KEPT)?;
        Some(view! {
            <Notice kind=NoticeKind::Problem field="ledger-not-kept">
                {format!("{READING_NOT_KEPT} {}", refusal.error.sentence())}
            </Notice>
        })
    };
    let body = match &history.readings {
        Ok(readings) => {
            let ledger = Ledger::of(readings, &history.runs, &Local);
            let today = Local::now().date_naive();
            let file = use_environment()
                .file_name(&format!("credits-ledger-{}-{today}.csv", history.workspace));
            table(ledger, file).into_any()
        }
        Err(error) => {
            let sentence = error.sentence();
            view! {
                <Notice kind=NoticeKind::Problem field="ledger-not-read">
                    "The balances this browser read could not be read back, so the ledger is not shown. "
                    {sentence}
                </Notice>
            }
            .into_any()
        }
    };
    view! {
        <h2 class="section-title" id="ledger">"Where the credits went"</h2>
        <p class="muted">
            "Each time the console reads the workspace (at sign-in, as runs end, every 30 seconds on the workspace page), this browser keeps its balance. "
            "Between two readings the balance falls by what the runs that ended in between used; the runs this browser has seen explain their share. "
            "A reservation holds credits back from what is available, not from the balance: a run in progress counts once it ends."
        </p>
        {not_kept}
        {body}
    }
}

/// A moment this browser read (ms since the epoch), in its time zone.
fn read_at(ms: f64) -> String {
    DateTime::<Utc>::from_timestamp_millis(ms as i64)
        .map(local_time)
        .unwrap_or_default()
}

/// The ledger's summary, table, export and notes; saved as `file`.
fn table(ledger: Ledger, file: String) -> impl IntoView {
    let (Some(first), Some(last)) = (ledger.first, ledger.last) else {
        return view! {
            <p class="muted" data-field="ledger-empty">"This browser has not read the balance yet."</p>
        }
        .into_any();
    };
    let reserved = reserved_note(&last);
    if ledger.days.is_empty() {
        return view! {
            <p class="muted" data-field="ledger-empty">
                "This browser has read the balance once so far (" {read_at(first.answered_at)}
                "): the ledger starts with the next reading."
            </p>
            {reserved}
        }
        .into_any();
    }
    let totals = ledger.totals();
    let unfinished = (ledger.unfinished > 0).then(|| {
        view! {
            <Notice kind=NoticeKind::Subtle field="ledger-unfinished">
                {counted(ledger.unfinished as u64, "run", "runs")}
                " seen here in progress and not seen ending yet: if they ended, what they used counts as spent by runs this browser did not see until it sees them finished."
            </Notice>
        }
    });
    let rows = ledger.days.iter().rev().map(day_row).collect_view();
    let csv = StoredValue::new(ledger.csv());
    let export = move |_| {
        // A byte-order mark, so spreadsheet programs read the UTF-8 correctly.
        csv.with_value(|csv| download(&file, "text/csv", &format!("\u{feff}{csv}")));
    };
    view! {
        <p data-field="ledger-summary">
            "Since " {read_at(first.answered_at)} ": "
            <strong data-field="ledger-spent">{group_thousands(totals.spent)}</strong> " credits spent: "
            <span data-field="ledger-made-here">{group_thousands(totals.made_here)}</span> " by runs this console made, "
            <strong data-field="ledger-listed">{group_thousands(totals.listed_only())}</strong>
            " by other runs it listed (another key, a script, a colleague or another browser) and "
            <strong data-field="ledger-unexplained">{group_thousands(totals.unexplained)}</strong>
            " by runs this browser did not see; "
            <span data-field="ledger-added">{group_thousands(totals.added)}</span> " added."
        </p>
        {reserved}
        // Focusable: on a narrow screen it scrolls sideways, also for keyboard users.
        <div class="table-wrap" tabindex="0" role="region" aria-label="Where the credits went, per day">
            <table class="data-table" data-field="ledger-table">
                <thead><tr>
                    {LEDGER_COLUMNS.iter().enumerate().map(|(i, column)| {
                        let class = if i >= 2 { "num" } else { "" };
                        view! { <th scope="col" class=class>{*column}</th> }
                    }).collect_view()}
                </tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
        <div class="actions-row">
            <button type="button" class="button secondary" on:click=export>"Export as CSV"</button>
        </div>
        {unfinished}
        <p class="hint" data-field="ledger-unseen-meaning">
            "Other runs it listed are runs the API's list showed that this console did not make (they carry none of its idempotency keys): made with another API key, by a script, a colleague or another browser. "
            "Spent by runs this browser did not see is what the balance lost that no run in this browser's history explains. "
            "It can mean another client or another API key used the workspace (a script, a colleague, another browser), "
            "or a workspace so busy that more than the API's latest 100 runs were made between two reads of the runs list, so some were never listed here. "
            "To see more of them, keep a console tab open while the workspace is in use (it reads the runs list about once a minute), "
            "and read the balance more often, so that each stretch is shorter and says when the credits went (the workspace page reads it every 30 seconds). "
            "A day's first stretch may start on an earlier day (Since) when no console tab read the balance in between."
        </p>
    }
    .into_any()
}

/// What was reserved at the last reading, when anything was.
fn reserved_note(last: &BalanceReading) -> Option<impl IntoView + use<>> {
    (last.reserved > 0).then(|| {
        view! {
            <p class="muted" data-field="ledger-reserved">
                "At the last reading (" {read_at(last.answered_at)} "), "
                {group_thousands(last.reserved)}
                " credits were reserved by runs in progress: they count here once the runs end, as what they used."
            </p>
        }
    })
}

/// One day's row.
fn day_row(day: &LedgerDay) -> impl IntoView + use<> {
    let number = |field: &'static str, value: u64| {
        view! { <td class="num" data-field=field>{group_thousands(value)}</td> }
    };
    view! {
        <tr data-day=day.day.to_string()>
            <th scope="row">{day.day.to_string()}</th>
            <td data-field="since">{wall_clock(day.since)}</td>
            {number("spent", day.spent)}
            {number("made-here", day.made_here)}
            {number("listed", day.listed_only())}
            {number("unexplained", day.unexplained)}
            {number("added", day.added)}
            {number("runs", day.runs as u64)}
            {number("readings", day.readings as u64)}
        </tr>
    }
}
