//! A chain's joined dataset on its page: explored (held in the page up to `HELD_AT_MOST`
//! records, else where the store keeps them: `state::chains::JoinedRows::explore`) or exported
//! whole, a slice of the last step at a time.

use leptos::prelude::*;
use serde_json::Value;

use crate::browser::FileParts;
use crate::components::{
    ExplorerRecords, Notice, NoticeKind, OutputExplorer, RealDataGate, RealDataQuestion,
};
use crate::model::bulk::ExportFormat;
use crate::model::chain::join::joined_columns;
use crate::model::chain::progress::SavedChain;
use crate::model::explore::ViewWriter;
use crate::model::format::counted;
use crate::model::output::ColumnsFound;
use crate::state::bulk::{ExploredRecords, RecordsToExplore};
use crate::state::chains::{Chains, JoinedRows};
use crate::state::environment::use_environment;
use crate::state::presenter::use_masker;

/// The joined dataset: one row per record of the last step that ran, with its parents'
/// columns; explored (masked in presenter mode) or exported whole.
#[component]
pub(super) fn JoinedResults(chains: Chains) -> impl IntoView {
    let masker = use_masker();
    let environment = use_environment();
    let gate = RealDataGate::default();
    let read = RwSignal::new(None::<Result<ExploredRecords, String>>);
    let busy = RwSignal::new(false);
    let said = RwSignal::new(None::<Result<String, String>>);
    let notice = RwSignal::new("");
    let chain_and_last = move || {
        chains.shown.with_untracked(|s| {
            s.as_ref()
                .and_then(|s| s.last_step_made().map(|last| (s.chain.clone(), last)))
        })
    };
    let explore = move |_| {
        let Some((chain, last)) = chain_and_last() else {
            return;
        };
        busy.set(true);
        leptos::task::spawn_local(async move {
            let explored = match JoinedRows::open(chain, last).await {
                Ok(rows) => rows.explore(chains, masker).await,
                Err(problem) => Err(problem),
            };
            read.set(Some(explored));
            busy.set(false);
        });
    };
    let export = move |format: ExportFormat| {
        let Some((chain, last)) = chain_and_last() else {
            return;
        };
        let prefix = environment.file_name("");
        busy.set(true);
        said.set(None);
        leptos::task::spawn_local(async move {
            let result = write_joined(chain, last, format, &prefix).await;
            said.set(Some(result.map(|rows| {
                format!(
                    "Exported {}.",
                    counted(rows as u64, "joined row", "joined rows")
                )
            })));
            busy.set(false);
        });
    };
    let ask = move |format: ExportFormat| {
        gate.export(
            "every joined row of the chain, with the records of each step".to_owned(),
            move || export(format),
        );
    };
    view! {
        <section class="explore-results" data-field="joined-results" aria-label="The joined dataset">
            <h3 class="section-title">"The joined dataset"</h3>
            <p class="help">"One row per record of the last step, with the columns of the spreadsheet's row and of every record above it (step1.*, step2.*, …), and their run ids."</p>
            <div class="actions-row">
                <button type="button" class="button secondary" data-field="explore-joined" disabled=busy on:click=explore>"Explore the joined rows"</button>
                <button type="button" class="button secondary" data-field="export-joined-csv" disabled=busy on:click=move |_| ask(ExportFormat::Csv)>"Export CSV"</button>
                <button type="button" class="button secondary" data-field="export-joined-json" disabled=busy on:click=move |_| ask(ExportFormat::Json)>"Export JSON"</button>
                <button type="button" class="button secondary" data-field="export-joined-jsonl" disabled=busy on:click=move |_| ask(ExportFormat::JsonLines)>"Export JSON Lines"</button>
            </div>
            <RealDataQuestion gate />
            {move || said.get().map(|said| match said {
                Ok(done) => view! { <p class="help" role="status" data-field="joined-said">{done}</p> }.into_any(),
                Err(problem) => view! { <Notice kind=NoticeKind::Problem field="joined-problem">{problem}</Notice> }.into_any(),
            })}
            {move || read.get().map(|read| match read {
                Err(problem) => view! { <Notice kind=NoticeKind::Problem field="joined-problem">{problem}</Notice> }.into_any(),
                Ok(ExploredRecords { records, columns, total }) => view! {
                    <p class="help" data-field="joined-count">{format!("{} shown.", counted(total as u64, "joined row", "joined rows"))}</p>
                    <OutputExplorer action="chain".to_owned() name=environment.file_name("chain-joined")
                        records=explorer_records(records, columns) notice />
                    <p class="help" role="status">{move || notice.get()}</p>
                }.into_any(),
            })}
        </section>
    }
}

/// Writes the joined dataset into a file, a slice at a time (CSV reads it twice: its columns
/// first); the number of rows written.
async fn write_joined(
    chain: SavedChain,
    last: usize,
    format: ExportFormat,
    file_prefix: &str,
) -> Result<usize, String> {
    let label = crate::model::format::file_label(&chain.plan.name);
    let id_start = chain.id[..8.min(chain.id.len())].to_owned();
    let joined = JoinedRows::open(chain, last).await?;
    let mut found = ColumnsFound::default();
    if format == ExportFormat::Csv {
        joined
            .through(&mut |slice| {
                for row in &slice {
                    found.add(&row.records);
                }
                true
            })
            .await?;
    }
    // JSON and JSON Lines hold every joined record whole (their columns are not read first).
    let mut export = ViewWriter::new(format, joined_columns(&found.columns)).whole_records();
    let no_room = || "This browser could not hold the export.".to_owned();
    let mut file = FileParts::new(format.mime()).ok_or_else(no_room)?;
    file.push(&export.start()).ok_or_else(no_room)?;
    let mut rows = 0;
    let mut failed = false;
    joined
        .through(&mut |slice| {
            let records: Vec<Value> = slice.into_iter().flat_map(|row| row.records).collect();
            rows += records.len();
            failed = file.push(&export.records(&records)).is_none();
            !failed
        })
        .await?;
    if failed {
        return Err(no_room());
    }
    file.push(&export.finish()).ok_or_else(no_room)?;
    file.download(&format!(
        "{file_prefix}chain-{label}-{id_start}.{}",
        format.extension()
    ));
    Ok(rows)
}

/// The joined rows as the explorer takes them: held in the page, or kept in the store.
fn explorer_records(records: RecordsToExplore, columns: Vec<String>) -> ExplorerRecords {
    match records {
        RecordsToExplore::Held { records, masked } => ExplorerRecords::Held {
            records,
            columns: Some(columns),
            masked,
        },
        RecordsToExplore::Kept(records) => ExplorerRecords::Kept { records, columns },
    }
}
