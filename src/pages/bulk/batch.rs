//! The batch shown: its progress and pace, counts per state, budget, commands, exports, its
//! results to explore, and its rows.

use leptos::prelude::*;

use super::rows::BatchRows;
use crate::components::{
    Confirm, ExplorerRecords, Notice, NoticeKind, OutputExplorer, RealDataGate, RealDataQuestion,
};
use crate::model::archive::ForgottenOutput;
use crate::model::bulk::budget::{Spending, parse_budget};
use crate::model::bulk::{ExportFormat, RowState, Tally};
use crate::model::bulk_view::{
    BatchCommands, RecordsChoice, explore_label, explored_note, export_done_note, export_progress,
    headline, keeping_note, pace_sentence, paused_reason, rows_finished, same_record_of,
};
use crate::model::expiry::batch_records_forgotten;
use crate::model::format::{counted, group_thousands};
use crate::model::presenter::Masker;
use crate::state::bulk::{
    Bulk, ExploredRecords, ExportDone, ExportProgress, Keeping, Phase, RecordsToExplore, Role,
    use_bulk,
};
use crate::state::environment::{Environment, use_environment};
use crate::state::presenter::use_masker;

/// The parts of the batch the page shows, each a memo, so a part's view redraws when that part
/// changes rather than at every answer. `Copy`, like the signals inside.
#[derive(Clone, Copy)]
struct ShownBatch {
    bulk: Bulk,
    tally: Memo<Tally>,
    phase: Memo<Option<Phase>>,
    action: Memo<&'static str>,
    cancelled: Memo<bool>,
    keeping: Memo<Keeping>,
    /// The expiry rule forgot its records: nothing to export or explore.
    records_forgotten: Memo<Option<ForgottenOutput>>,
    /// This tab runs the batch (another tab may, this one then only shows it).
    here: Signal<bool>,
}

impl ShownBatch {
    /// The batch's state in a word.
    fn headline(self) -> &'static str {
        headline(self.phase.get().as_ref(), self.cancelled.get())
    }

    /// The batch is running or paused.
    fn going(self) -> bool {
        matches!(self.phase.get(), Some(Phase::Running | Phase::Paused(_)))
    }
}

/// The batch in view, as its parts.
fn use_shown_batch() -> ShownBatch {
    let bulk = use_bulk();
    ShownBatch {
        bulk,
        tally: Memo::new(move |_| {
            bulk.batch
                .with(|b| b.as_ref().map(|b| b.tally().clone()).unwrap_or_default())
        }),
        phase: Memo::new(move |_| bulk.batch.with(|b| b.as_ref().map(|b| b.phase().clone()))),
        records_forgotten: Memo::new(move |_| {
            bulk.batch
                .with(|b| b.as_ref().and_then(|b| b.records_forgotten()))
        }),
        action: Memo::new(move |_| {
            bulk.batch
                .with(|b| b.as_ref().map_or("", |b| b.action.as_str()))
        }),
        cancelled: Memo::new(move |_| {
            bulk.batch
                .with(|b| b.as_ref().is_some_and(|b| b.cancelled()))
        }),
        keeping: Memo::new(move |_| {
            bulk.batch
                .with(|b| b.as_ref().map_or(Keeping::Pending, |b| b.keeping()))
        }),
        here: Signal::derive(move || bulk.role.get() == Role::Runs),
    }
}

/// The batch shown. `in_chain`: a chain's step, whose budget is the chain's (set on the chain)
/// and which is forgotten with its chain, not cleared alone.
///
/// A chain shows its steps' batches here one after the other: the head (progress, commands,
/// exports, explored results, the cancel question) belongs to one batch and is built again for
/// the next; the table of rows stays, and starts again from the new batch's first page.
#[component]
pub(super) fn BatchView(#[prop(optional)] in_chain: bool) -> impl IntoView {
    let bulk = use_bulk();
    let batch_id = Memo::new(move |_| bulk.batch.with(|b| b.as_ref().map(|b| b.id.clone())));
    let shown = use_shown_batch();
    view! {
        <div class="batch" data-field="batch" data-phase=move || shown.headline().to_lowercase()
            data-outputs-saved=move || bulk.batch.with(|b| b.as_ref().map_or(0, |b| b.counters().outputs_saved))
            data-store-busy-ms=move || bulk.batch.with(|b| b.as_ref().map_or(0, |b| b.counters().store_busy_ms as u64))>
            {move || {
                batch_id.track();
                view! { <BatchHead shown in_chain /> }
            }}
            <BatchRows batch_id />
        </div>
    }
}

/// What is shown of one batch above its rows: see [`BatchView`].
#[component]
fn BatchHead(shown: ShownBatch, in_chain: bool) -> impl IntoView {
    let ShownBatch {
        bulk,
        phase,
        action,
        keeping,
        here,
        ..
    } = shown;
    let confirming_cancel = RwSignal::new(false);
    let export = BatchExport::new(bulk);
    let results = ResultsReading::new(bulk);
    view! {
        <h2 class="batch-title">
            <code>{action}</code> " · " <span data-field="batch-phase">{move || shown.headline()}</span>
        </h2>
        <BatchProgress shown />
        {move || paused_reason(phase.get().as_ref()).map(|reason| view! { <Notice field="paused-reason">{reason}</Notice> })}
        {(!in_chain).then(|| view! { <BatchBudget here going=Signal::derive(move || shown.going()) /> })}
        {move || (!here.get()).then(|| view! {
            <Notice field="elsewhere" block=true>
                <p>"This batch is running in another tab of this browser. This tab shows its progress as that tab saves it, and sends nothing."</p>
                <button type="button" class="button primary" data-field="take-over" on:click=move |_| bulk.take_over()>
                    "Run it in this tab instead"
                </button>
            </Notice>
        })}
        <p class="help" data-field="keeping">{move || keeping_note(keeping.get(), in_chain)}</p>
        <ExportRecordsChoice export results />
        <div class="actions-row">
            <CommandButtons shown confirming_cancel />
            <ResultButtons shown export results />
            {move || (!in_chain && BatchCommands::offered(phase.get().as_ref(), here.get(), 0).clear).then(|| view! {
                <button type="button" class="button secondary" data-field="clear-batch" on:click=move |_| bulk.clear()
                    title="Deletes this batch's rows and results from this browser; its runs stay in the workspace">"Clear batch"</button>
            })}
        </div>
        <RealDataQuestion gate=export.gate />
        // One paragraph for the whole export, its text updated: a paragraph made anew at each
        // step would move everything below it (the explored records) and have the page
        // laid out and painted again.
        {move || export.progress.with(Option::is_some).then(|| view! {
            <p class="help" role="status" data-field="export-progress">
                {move || export.progress.get().map(|p| export_progress(p.rows_done, p.rows))}
            </p>
        })}
        {move || shown.records_forgotten.get().map(|forgotten| view! {
            <Notice field="records-forgotten-note">{batch_records_forgotten(forgotten)}</Notice>
        })}
        {move || export.problem.get().map(|problem| view! {
            <Notice kind=NoticeKind::Problem field="export-problem">{problem}</Notice>
        })}
        {move || export.done.get().map(|done| view! {
            <p class="help" role="status" data-field="export-done">{export_done_note(done.duplicates_removed)}</p>
        })}
        <ExploredResults results action />
        {move || confirming_cancel.get().then(|| view! { <ConfirmCancel confirming_cancel /> })}
    }
}

/// The progress bar, the rows finished with the pace and what holds the batch back, and the
/// counts per state.
#[component]
fn BatchProgress(shown: ShownBatch) -> impl IntoView {
    let ShownBatch { bulk, tally, .. } = shown;
    let (now, set_now) = signal(js_sys::Date::now());
    // A clock for the rate and the time left, while the batch is going.
    leptos::task::spawn_local_scoped_with_cancellation(async move {
        loop {
            crate::browser::sleep(std::time::Duration::from_secs(1)).await;
            set_now.set(js_sys::Date::now());
        }
    });
    let pace = move || {
        let tally = tally.get();
        let now = now.get();
        bulk.batch.with(|b| {
            b.as_ref()
                .and_then(|b| pace_sentence(b.phase(), b.counters(), &tally, now))
        })
    };
    // What holds the batch back (the rate limit, or this computer's storage), while it runs.
    let paced_by = move || {
        bulk.batch.with(|b| {
            b.as_ref()
                .filter(|b| *b.phase() == Phase::Running)
                .and_then(|b| b.counters().paced_by)
        })
    };
    view! {
        <progress class="batch-progress" data-field="batch-progress"
            max=move || tally.get().to_send.max(1)
            value=move || tally.get().finished
            aria-label="Rows finished"
            aria-valuetext=move || { let t = tally.get(); format!("{} of {} rows finished", t.finished, t.to_send) }>
        </progress>
        <p data-field="batch-finished">
            {move || tally.with(|t| rows_finished(t.finished, t.to_send))}
            {move || pace().map(|p| format!(" · {p}"))}
            {move || paced_by().map(|by| view! {
                " · " <span data-field="paced-by" data-paced-by=by.as_str()>{by.sentence()}</span>
            })}
        </p>
        <dl class="stats batch-counts">
            {RowState::ALL.into_iter().map(|state| view! {
                <div class="stat" data-count=state.label()>
                    <dt>{state.label()}</dt>
                    <dd class="stat-value">{move || group_thousands(tally.get().count(state) as u64)}</dd>
                </div>
            }).collect_view()}
            <div class="stat" data-count="credits">
                <dt>"credits used"</dt>
                <dd class="stat-value">{move || group_thousands(tally.get().credits_used)}</dd>
            </div>
            <div class="stat" data-count="records">
                <dt>"records"</dt>
                <dd class="stat-value">{move || group_thousands(tally.get().records as u64)}</dd>
            </div>
        </dl>
    }
}

/// Pause, resume, cancel (asking first) and retry the failed rows, as the phase allows, in the
/// tab that runs the batch.
#[component]
fn CommandButtons(shown: ShownBatch, confirming_cancel: RwSignal<bool>) -> impl IntoView {
    let ShownBatch {
        bulk,
        tally,
        phase,
        here,
        ..
    } = shown;
    let offered = Memo::new(move |_| {
        BatchCommands::offered(
            phase.get().as_ref(),
            here.get(),
            tally.get().count(RowState::Failed),
        )
    });
    view! {
        {move || offered.get().pause.then(|| view! {
            <button type="button" class="button secondary" on:click=move |_| bulk.pause()>"Pause"</button>
        })}
        {move || offered.get().resume.then(|| view! {
            <button type="button" class="button primary" on:click=move |_| bulk.resume()>"Resume"</button>
        })}
        {move || offered.get().cancel.then(|| view! {
            <button type="button" class="button secondary" data-field="cancel-batch"
                on:click=move |_| confirming_cancel.set(true)>"Cancel batch…"</button>
        })}
        {move || offered.get().retry_failed.then(|| view! {
            <button type="button" class="button secondary" data-field="retry-failed" on:click=move |_| bulk.retry_failed()
                title="New submissions with new keys: they may cost again">
                {move || format!("Retry {}", counted(tally.get().count(RowState::Failed) as u64, "failed row", "failed rows"))}
            </button>
        })}
    }
}

/// The merged export under way, and the last one's problem. `Copy`, like the signals inside.
#[derive(Clone, Copy)]
struct BatchExport {
    bulk: Bulk,
    environment: Environment,
    /// The export being written, if one is.
    progress: RwSignal<Option<ExportProgress>>,
    problem: RwSignal<Option<String>>,
    /// What the last export left out.
    done: RwSignal<Option<ExportDone>>,
    /// Which records the exports hold: a [`RecordsChoice`]'s value.
    records: RwSignal<String>,
    /// The column that tells records apart, for [`RecordsChoice::ByColumn`].
    column: RwSignal<String>,
    /// Asks first in presenter mode: the file holds real data.
    gate: RealDataGate,
}

impl BatchExport {
    fn new(bulk: Bulk) -> BatchExport {
        BatchExport {
            bulk,
            environment: use_environment(),
            progress: RwSignal::new(None),
            problem: RwSignal::new(None),
            done: RwSignal::new(None),
            records: RwSignal::new(RecordsChoice::Every.value().to_owned()),
            column: RwSignal::new(String::new()),
            gate: RealDataGate::default(),
        }
    }

    /// Writes the batch's merged export, unless one is being written.
    fn start(self, format: ExportFormat) {
        if self.progress.get_untracked().is_some() {
            return;
        }
        let holds = "every row of the batch with its input and the records of its run".to_owned();
        self.gate.export(holds, move || self.write(format));
    }

    fn write(self, format: ExportFormat) {
        self.problem.set(None);
        self.done.set(None);
        let same_record =
            match same_record_of(&self.records.get_untracked(), &self.column.get_untracked()) {
                Ok(same_record) => same_record,
                Err(problem) => {
                    self.problem.set(Some(problem));
                    crate::browser::focus_id("export-same-column");
                    return;
                }
            };
        let file_prefix = self.environment.file_name("");
        leptos::task::spawn_local(async move {
            match self
                .bulk
                .export(format, same_record.clone(), &file_prefix, self.progress)
                .await
            {
                Ok(done) if same_record.is_some() => self.done.set(Some(done)),
                Ok(_) => {}
                Err(problem) => self.problem.set(Some(problem)),
            }
        });
    }
}

/// The batch's records read to explore them (a snapshot: read again on request). `Copy`, like
/// the signals inside.
#[derive(Clone, Copy)]
struct ResultsReading {
    bulk: Bulk,
    /// The last reading, or why it failed.
    read: RwSignal<Option<Result<ExploredRecords, String>>>,
    /// A reading is under way.
    reading: RwSignal<bool>,
    /// What the explorer last said (a copy, an export).
    notice: RwSignal<&'static str>,
    /// How the page shows values (it is built again when presenter mode changes).
    masker: Masker,
}

impl ResultsReading {
    fn new(bulk: Bulk) -> ResultsReading {
        ResultsReading {
            bulk,
            read: RwSignal::new(None),
            reading: RwSignal::new(false),
            notice: RwSignal::new(""),
            masker: use_masker(),
        }
    }

    /// Reads the batch's first records, unless a reading is under way.
    fn start(self) {
        if self.reading.get_untracked() {
            return;
        }
        self.reading.set(true);
        leptos::task::spawn_local(async move {
            let read = self.bulk.explore_records(self.masker).await;
            // The explorer is built in a task of its own: the records' last slice and their
            // columns, then the explorer, were one task of 270 ms at 4× CPU (docs/performance.md).
            crate::browser::yield_to_page().await;
            self.read.set(Some(read));
            self.reading.set(false);
        });
    }
}

/// The three exports and the explore button.
#[component]
fn ResultButtons(shown: ShownBatch, export: BatchExport, results: ResultsReading) -> impl IntoView {
    let tally = shown.tally;
    let forgotten = shown.records_forgotten;
    let exporting =
        move || export.progress.with(Option::is_some) || forgotten.with(Option::is_some);
    view! {
        <button type="button" class="button secondary" data-field="export-csv" disabled=exporting
            on:click=move |_| export.start(ExportFormat::Csv)>"Export CSV"</button>
        <button type="button" class="button secondary" data-field="export-json" disabled=exporting
            on:click=move |_| export.start(ExportFormat::Json)>"Export JSON"</button>
        <button type="button" class="button secondary" data-field="export-jsonl" disabled=exporting
            on:click=move |_| export.start(ExportFormat::JsonLines)>"Export JSON Lines"</button>
        <button type="button" class="button secondary" data-field="explore-results"
            disabled=move || results.reading.get() || tally.with(|t| t.records == 0) || forgotten.with(Option::is_some)
            on:click=move |_| results.start()>
            {move || explore_label(results.reading.get(), results.read.with(Option::is_some))}
        </button>
    }
}

/// Which records the exports hold: every one, or each once (by the contract's ids or a column
/// the person names, offered from the records read to explore).
#[component]
fn ExportRecordsChoice(export: BatchExport, results: ResultsReading) -> impl IntoView {
    let known_columns = move || {
        results.read.with(|read| match read {
            Some(Ok(explored)) => explored.columns.clone(),
            _ => Vec::new(),
        })
    };
    view! {
        <p class="export-choice">
            <label for="export-records">"Exports hold "</label>
            <select id="export-records" data-field="export-records" bind:value=export.records>
                {RecordsChoice::ALL.into_iter().map(|choice| view! {
                    <option value=choice.value()>{choice.label()}</option>
                }).collect_view()}
            </select>
            {move || (export.records.get() == RecordsChoice::ByColumn.value()).then(|| view! {
                " " <label for="export-same-column">"the same record when this column is equal: "</label>
                <input id="export-same-column" type="text" list="export-columns" data-field="export-same-column"
                    placeholder="e.g. profile_url" autocomplete="off" bind:value=export.column />
                <datalist id="export-columns">
                    {move || known_columns().into_iter().map(|column| view! { <option value=column></option> }).collect_view()}
                </datalist>
            })}
        </p>
    }
}

/// The records last read, in the output explorer, or why they could not be read.
#[component]
fn ExploredResults(results: ResultsReading, action: Memo<&'static str>) -> impl IntoView {
    let notice = results.notice;
    move || {
        results.read.get().map(|read| match read {
            Err(problem) => view! { <Notice kind=NoticeKind::Problem field="explore-problem">{problem}</Notice> }.into_any(),
            Ok(ExploredRecords { records, columns, total }) => {
                let kept = matches!(records, RecordsToExplore::Kept(_));
                let records = match records {
                    RecordsToExplore::Held { records, masked } => ExplorerRecords::Held {
                        records,
                        columns: Some(columns),
                        masked,
                    },
                    RecordsToExplore::Kept(records) => ExplorerRecords::Kept { records, columns },
                };
                view! {
                    <section class="explore-results" data-field="explored-results" aria-label="The batch's results">
                        <h3 class="section-title">"Results"</h3>
                        <p class="help">{explored_note(total, kept)}</p>
                        <OutputExplorer action=action.get_untracked().to_owned()
                            name=use_environment().file_name(&format!("bulk-{}-results", action.get_untracked()))
                            records notice />
                        <p class="help" role="status">{move || notice.get()}</p>
                    </section>
                }.into_any()
            }
        })
    }
}

/// The question before cancelling the batch.
#[component]
fn ConfirmCancel(confirming_cancel: RwSignal<bool>) -> impl IntoView {
    let bulk = use_bulk();
    let on_confirm = Callback::new(move |()| {
        confirming_cancel.set(false);
        bulk.cancel();
    });
    view! {
        <Confirm field="confirm-cancel" title=|| "Cancel the batch?" confirm_label="Cancel batch" cancel_label="Keep running"
            on_confirm on_cancel=Callback::new(move |()| confirming_cancel.set(false))>
            <p>"Rows not sent yet are not sent, and the batch's queued and processing runs are cancelled. Finished runs keep their results."</p>
        </Confirm>
    }
}

/// The batch's credits against its budget ("budget · charged · reserved · left"), and, in the
/// tab that runs it while it goes, the way to change the budget (a paused batch then resumes
/// on Resume).
#[component]
fn BatchBudget(
    /// This tab runs the batch.
    here: Signal<bool>,
    /// The batch is running or paused.
    going: Signal<bool>,
) -> impl IntoView {
    let bulk = use_bulk();
    let spending = Memo::new(move |_| {
        bulk.batch
            .with(|b| b.as_ref().map(|b| *b.spending()))
            .unwrap_or_default()
    });
    let sentence = move || {
        let spending: Spending = spending.get();
        format!("Credits: {}", spending.sentence())
    };
    view! {
        <p data-field="batch-spending">{sentence}</p>
        {move || (here.get() && going.get()).then(|| view! {
            <BudgetChange id="batch-budget" label="New budget, in credits" field="set-budget"
                on_budget=Callback::new(move |budget| bulk.set_budget(Some(budget))) />
        })}
    }
}

/// A budget typed anew: its field, its button and its error; `on_budget` takes a budget that
/// reads (the field is emptied then), else the error is said and the field focused. `id` is the
/// field's, `field` the button's `data-field`.
#[component]
pub(super) fn BudgetChange(
    id: &'static str,
    label: &'static str,
    field: &'static str,
    on_budget: Callback<u64>,
) -> impl IntoView {
    let typed = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let on_set = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        match parse_budget(&typed.get_untracked()) {
            Ok(budget) => {
                on_budget.run(budget);
                typed.set(String::new());
                error.set(None);
            }
            Err(reason) => {
                error.set(Some(format!("Budget {reason}")));
                crate::browser::focus_id(id);
            }
        }
    };
    let error_id = format!("{id}-error");
    view! {
        <form class="budget-change" on:submit=on_set novalidate>
            <label for=id>{label}</label>
            <input id=id type="text" inputmode="numeric" autocomplete="off"
                aria-describedby=error_id.clone()
                aria-invalid=move || error.with(Option::is_some).to_string()
                bind:value=typed />
            <button type="submit" class="button secondary" data-field=field>"Set budget"</button>
            <p class="field-error" id=error_id role="alert">{move || error.get()}</p>
        </form>
    }
}
