//! The bulk batch being run, provided at the root so it keeps going while the person looks at
//! other pages (and, slower, in a background tab).
//!
//! Two tasks drive it. The submitter sends the rows' async submissions at the API's rate limit
//! ([`Pacer`]), each with its row's fixed key, retrying 5xx and lost answers with that same key;
//! a 400 fails the row, a 409 `insufficient_credits` pauses the batch, a 401 waits for the
//! person to sign in again. The watcher follows the submitted runs with one request at a time:
//! `GET /v1/runs` (the latest 100) each second, and `GET /v1/runs/{id}` only for a run that has
//! dropped out of that list before finishing, so the status requests per run stay small.
//!
//! A third task, the keeper, writes the batch to this browser's store (`crate::store`) each
//! second: its summary and the rows that changed. Nothing is sent before the batch's first save,
//! so after a reload the batch is found again and its rows go with the keys they had: a reload
//! never makes a second run. The credential is never written.

use std::collections::HashMap;
use std::time::Duration;

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::session::Session;
use super::workspace::SharedWorkspace;
use crate::api::{ApiClient, ApiError};
use crate::browser::{page_hidden, sleep};
use crate::model::bulk::{
    BatchRow, CheckedRow, Pacer, RowMark, RowState, SavedBatch, Tally, retry_delay_ms, row_key,
};
use crate::model::form::SavedSubmission;
use crate::store::{self, Change};

/// Where the batch as a whole stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    Running,
    /// Stopped by the person (`None`) or by the API, with the reason.
    Paused(Option<String>),
    /// Cancel asked: nothing more is sent, the runs still going are being cancelled.
    Cancelling,
    /// Every row is final.
    Done,
}

/// A batch: the action, the file's header, its rows and the measures of its progress.
#[derive(Clone, Debug)]
pub struct Batch {
    /// 32 hex digits; part of every row's idempotency key.
    pub id: String,
    /// The workspace it runs in (empty until the workspace is known).
    pub workspace: String,
    /// When it was first started, ms since the epoch.
    pub created_at: f64,
    pub action: String,
    pub headers: Vec<String>,
    pub rows: Vec<BatchRow>,
    pub phase: Phase,
    /// When the batch (or its latest resume) started sending, ms since the epoch.
    pub started_at: f64,
    /// Submissions the API accepted since `started_at`.
    pub accepted: usize,
    /// `429` answers so far.
    pub limited: usize,
    /// Status requests so far (list and single runs).
    pub status_requests: usize,
    /// Whether cancel was asked (the final state says "cancelled" rather than "done").
    pub cancelled: bool,
}

/// Whether this browser keeps the batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keeping {
    /// Not written yet.
    Pending,
    /// Written as of the last second.
    Kept,
    /// The browser refused (IndexedDB missing or full): the batch lives in this page only.
    Refused,
}

/// What the store does not have yet (see [`Bulk::unsaved`]).
struct Unsaved {
    changes: Vec<Change>,
    /// The rows' marks once the changes are written, by row index.
    marks: Vec<(usize, RowMark)>,
    summary: SavedBatch,
}

/// The batch and the tasks that run it. `Copy`, like the signals inside.
#[derive(Clone, Copy)]
pub struct Bulk {
    pub batch: RwSignal<Option<Batch>>,
    pub keeping: RwSignal<Keeping>,
    /// The marks of the rows as last written, by row index.
    saved_marks: StoredValue<Vec<Option<RowMark>>>,
    saved_summary: StoredValue<Option<SavedBatch>>,
    keeper_alive: StoredValue<bool>,
    pacer: StoredValue<Pacer>,
    in_flight: StoredValue<usize>,
    /// Bumped when a batch starts or is cleared: tasks of an older one stop.
    generation: StoredValue<u32>,
    submitter_alive: StoredValue<bool>,
    watcher_alive: StoredValue<bool>,
    session: Session,
    workspace: SharedWorkspace,
}

/// A row the batch's cancel left unsent.
fn not_sent(row: &mut BatchRow) {
    row.state = RowState::Cancelled;
    row.error = Some((
        "not_sent".into(),
        "The batch was cancelled before this row was sent.".into(),
    ));
}

fn now() -> f64 {
    js_sys::Date::now()
}

impl Bulk {
    pub fn provide(session: Session, workspace: SharedWorkspace) {
        provide_context(Bulk {
            batch: RwSignal::new(None),
            keeping: RwSignal::new(Keeping::Pending),
            saved_marks: StoredValue::new(Vec::new()),
            saved_summary: StoredValue::new(None),
            keeper_alive: StoredValue::new(false),
            pacer: StoredValue::new(Pacer::default()),
            in_flight: StoredValue::new(0),
            generation: StoredValue::new(0),
            submitter_alive: StoredValue::new(false),
            watcher_alive: StoredValue::new(false),
            session,
            workspace,
        });
    }

    /// Starts a batch of checked rows for `action` (invalid rows are kept, listed, never sent).
    pub fn start(&self, action: String, headers: Vec<String>, rows: Vec<CheckedRow>) {
        self.fresh_generation();
        self.batch.set(Some(Batch {
            id: uuid::Uuid::new_v4().simple().to_string(),
            workspace: self.workspace_id().unwrap_or_default(),
            created_at: now(),
            action,
            headers,
            rows: rows.into_iter().map(BatchRow::new).collect(),
            phase: Phase::Running,
            started_at: now(),
            accepted: 0,
            limited: 0,
            status_requests: 0,
            cancelled: false,
        }));
        self.ensure_tasks();
    }

    /// Takes up a batch kept in this browser, paused (or going on with its cancel): rows that
    /// were being sent go again with their keys once the person resumes.
    pub fn restore(&self, summary: SavedBatch, rows: Vec<BatchRow>) {
        self.fresh_generation();
        self.saved_marks
            .set_value(rows.iter().map(|r| Some(r.mark())).collect());
        let done = rows.iter().all(|r| r.state.is_final());
        let phase = if done {
            Phase::Done
        } else {
            Phase::Paused(Some(
                "Paused: this batch was taken up again from this browser. Resume to send the rest; \
                 rows that were on their way go again with the same key, so none runs twice."
                    .to_owned(),
            ))
        };
        let cancelled = summary.cancelled;
        self.batch.set(Some(Batch {
            id: summary.id.clone(),
            workspace: summary.workspace.clone(),
            created_at: summary.created_at,
            action: summary.action.clone(),
            headers: summary.headers.clone(),
            rows,
            phase,
            started_at: now(),
            accepted: 0,
            limited: 0,
            status_requests: 0,
            cancelled,
        }));
        self.saved_summary.set_value(Some(summary));
        self.keeping.set(Keeping::Kept);
        self.ensure_tasks();
        if cancelled && !done {
            self.cancel();
        }
    }

    /// Forgets the batch, here and in this browser's store (its tasks stop).
    pub fn clear(&self) {
        let id = self
            .batch
            .with_untracked(|b| b.as_ref().map(|b| b.id.clone()));
        self.fresh_generation();
        self.batch.set(None);
        if let Some(id) = id {
            spawn_local(async move {
                let _ = store::write(vec![Change::DeleteBatch(id)]).await;
            });
        }
    }

    /// A new batch, or none: the tasks of the one before stop, and nothing of it is counted as
    /// saved.
    fn fresh_generation(&self) {
        self.generation.update_value(|g| *g += 1);
        self.pacer.set_value(Pacer::default());
        self.in_flight.set_value(0);
        self.saved_marks.set_value(Vec::new());
        self.saved_summary.set_value(None);
        self.keeping.set(Keeping::Pending);
    }

    fn workspace_id(&self) -> Option<String> {
        self.workspace
            .resource
            .get_untracked()
            .and_then(Result::ok)
            .map(|w| w.workspace_id)
    }

    pub fn pause(&self) {
        self.set_phase(Phase::Paused(None));
    }

    pub fn resume(&self) {
        self.batch.update(|b| {
            if let Some(b) = b {
                b.phase = Phase::Running;
                b.started_at = now();
                b.accepted = 0;
            }
        });
        self.ensure_tasks();
    }

    /// Stops sending and cancels the batch's runs still queued or processing; rows not sent yet
    /// become cancelled. A 409 (the run finished meanwhile) is not an error: the run is read.
    pub fn cancel(&self) {
        self.batch.update(|b| {
            if let Some(b) = b {
                b.phase = Phase::Cancelling;
                b.cancelled = true;
                for row in &mut b.rows {
                    if row.state == RowState::Waiting {
                        not_sent(row);
                    }
                }
            }
        });
        let bulk = *self;
        let generation = self.generation.get_value();
        spawn_local(async move {
            // Rows being submitted may still create runs: cancel until none is left going.
            loop {
                if bulk.generation.get_value() != generation {
                    return;
                }
                let Some(client) = bulk.session.client_untracked() else {
                    sleep(Duration::from_millis(500)).await;
                    continue;
                };
                let going: Vec<(usize, String)> = bulk.batch.with_untracked(|b| {
                    b.iter()
                        .flat_map(|b| b.rows.iter().enumerate())
                        .filter(|(_, r)| r.state.is_running())
                        .filter_map(|(i, r)| r.run_id.clone().map(|id| (i, id)))
                        .collect()
                });
                for (index, id) in going {
                    let run = match client.cancel(&id).await {
                        Ok(run) => Some(run),
                        Err(e) if e.status() == Some(409) => {
                            client.run(&id).await.ok().map(|a| a.value)
                        }
                        Err(_) => None,
                    };
                    if let Some(run) = run {
                        bulk.update_row(generation, index, |row| row.take_run(&run));
                    }
                }
                let submitting = bulk.in_flight.get_value() > 0;
                let left = bulk.batch.with_untracked(|b| {
                    b.iter().flat_map(|b| &b.rows).any(|r| r.state.is_running())
                });
                if !submitting && !left {
                    // A row whose last try was refused with a 429 or 5xx meanwhile went back
                    // to waiting: it is not sent now either.
                    bulk.batch.update(|b| {
                        if let Some(b) = b {
                            for row in &mut b.rows {
                                if row.state == RowState::Waiting {
                                    not_sent(row);
                                }
                            }
                            b.phase = Phase::Done;
                        }
                    });
                    bulk.workspace.refresh();
                    return;
                }
                sleep(Duration::from_millis(300)).await;
            }
        });
    }

    /// Sends the failed rows again as new submissions (new keys, so they may cost again).
    pub fn retry_failed(&self) {
        self.batch.update(|b| {
            if let Some(b) = b {
                for row in &mut b.rows {
                    if row.state == RowState::Failed {
                        row.attempt += 1;
                        row.tries = 0;
                        row.not_before = 0.0;
                        row.state = RowState::Waiting;
                        row.run_id = None;
                        row.error = None;
                        row.output.clear();
                    }
                }
                b.phase = Phase::Running;
                b.started_at = now();
                b.accepted = 0;
            }
        });
        self.ensure_tasks();
    }

    fn set_phase(&self, phase: Phase) {
        self.batch.update(|b| {
            if let Some(b) = b {
                b.phase = phase;
            }
        });
    }

    fn phase(&self) -> Option<Phase> {
        self.batch
            .with_untracked(|b| b.as_ref().map(|b| b.phase.clone()))
    }

    fn update_row(&self, generation: u32, index: usize, change: impl FnOnce(&mut BatchRow)) {
        if self.generation.get_value() != generation {
            return;
        }
        self.batch.update(|b| {
            if let Some(row) = b.as_mut().and_then(|b| b.rows.get_mut(index)) {
                change(row);
            }
        });
    }

    fn ensure_tasks(&self) {
        let generation = self.generation.get_value();
        if !self.keeper_alive.get_value() {
            self.keeper_alive.set_value(true);
            spawn_local(self.keeper(generation));
        }
        if !self.submitter_alive.get_value() {
            self.submitter_alive.set_value(true);
            spawn_local(self.submitter(generation));
        }
        if !self.watcher_alive.get_value() {
            self.watcher_alive.set_value(true);
            spawn_local(self.watcher(generation));
        }
    }

    /// Writes the batch to this browser's store each second: the summary when it changed, and
    /// the rows whose mark changed (a row's first run id also records its submission for "Run
    /// again with changes"). Ends with the batch, once everything final is written.
    async fn keeper(self, generation: u32) {
        let mut unknown_workspace = 0;
        loop {
            if self.generation.get_value() != generation {
                break;
            }
            if self.workspace_id().is_some() {
                self.batch.update_untracked(|b| {
                    if let Some(b) = b.as_mut().filter(|b| b.workspace.is_empty()) {
                        b.workspace = self.workspace_id().unwrap_or_default();
                    }
                });
            }
            let done = self.phase() == Some(Phase::Done);
            match self.unsaved() {
                // The workspace is not known yet (only its sign-ins may see the batch). After a
                // few seconds the batch goes on without being kept, and says so.
                None => {
                    unknown_workspace += 1;
                    if unknown_workspace == 5 && self.keeping.get_untracked() == Keeping::Pending {
                        self.keeping.set(Keeping::Refused);
                    }
                }
                Some(unsaved) if unsaved.changes.is_empty() => {
                    if done {
                        break;
                    }
                }
                Some(Unsaved {
                    changes,
                    marks,
                    summary,
                }) => {
                    let written = store::write(changes).await;
                    if self.generation.get_value() != generation {
                        break;
                    }
                    if written.is_ok() {
                        self.saved_marks.update_value(|saved| {
                            for (i, mark) in marks {
                                if let Some(slot) = saved.get_mut(i) {
                                    *slot = Some(mark);
                                }
                            }
                        });
                        self.saved_summary.set_value(Some(summary));
                    }
                    let keeping = if written.is_ok() {
                        Keeping::Kept
                    } else {
                        Keeping::Refused
                    };
                    if self.keeping.get_untracked() != keeping {
                        self.keeping.set(keeping);
                    }
                    if written.is_err() {
                        // The browser keeps nothing: the batch goes on in this page.
                        break;
                    }
                }
            }
            sleep(Duration::from_millis(1_000)).await;
        }
        self.keeper_alive.set_value(false);
    }

    /// What the store does not have yet: the changes to write, the rows' new marks and the
    /// summary. `None` while the workspace is unknown.
    fn unsaved(&self) -> Option<Unsaved> {
        self.batch.with_untracked(|b| {
            let b = b.as_ref().filter(|b| !b.workspace.is_empty())?;
            let tally = Tally::of(&b.rows);
            let summary = SavedBatch {
                id: b.id.clone(),
                workspace: b.workspace.clone(),
                action: b.action.clone(),
                headers: b.headers.clone(),
                created_at: b.created_at,
                cancelled: b.cancelled,
                done: b.phase == Phase::Done,
                to_send: tally.to_send,
                finished: tally.finished,
            };
            let mut changes = Vec::new();
            let mut marks = Vec::new();
            self.saved_marks.update_value(|saved| {
                saved.resize(b.rows.len(), None);
                for (i, row) in b.rows.iter().enumerate() {
                    let mark = row.mark();
                    let before = saved[i];
                    if before == Some(mark) {
                        continue;
                    }
                    if mark.2
                        && !before.is_some_and(|m| m.2 && m.1 == mark.1)
                        && let Some(run) = &row.run_id
                    {
                        let submission = SavedSubmission {
                            workspace: b.workspace.clone(),
                            action: b.action.clone(),
                            live: false,
                            body: row.body.clone(),
                        };
                        changes.push(Change::Put {
                            store: store::SUBMISSIONS,
                            key: run.clone(),
                            json: submission.to_json().to_string(),
                        });
                    }
                    changes.push(Change::Put {
                        store: store::ROWS,
                        key: store::row_key(&b.id, row.line),
                        json: row.to_json().to_string(),
                    });
                    marks.push((i, mark));
                }
            });
            if self
                .saved_summary
                .with_value(|s| s.as_ref() != Some(&summary))
            {
                changes.push(Change::Put {
                    store: store::BATCHES,
                    key: b.id.clone(),
                    json: summary.to_json().to_string(),
                });
            }
            Some(Unsaved {
                changes,
                marks,
                summary,
            })
        })
    }

    async fn submitter(self, generation: u32) {
        loop {
            if self.generation.get_value() != generation {
                break;
            }
            match self.phase() {
                Some(Phase::Running) => {}
                Some(Phase::Paused(_)) => {
                    sleep(Duration::from_millis(250)).await;
                    continue;
                }
                _ => break,
            }
            let Some(client) = self.session.client_untracked() else {
                // Signed out by a 401: carry on once the person signs in again.
                sleep(Duration::from_millis(500)).await;
                continue;
            };
            if self.keeping.get_untracked() == Keeping::Pending {
                // Not a row leaves before the batch is kept: a reload must find its keys.
                sleep(Duration::from_millis(20)).await;
                continue;
            }
            let t = now();
            let (next, earliest, submitting) = self.batch.with_untracked(|b| {
                let rows = b.as_ref().map_or(&[][..], |b| &b.rows[..]);
                let next = rows
                    .iter()
                    .position(|r| r.state == RowState::Waiting && r.not_before <= t);
                let earliest = rows
                    .iter()
                    .filter(|r| r.state == RowState::Waiting)
                    .map(|r| r.not_before)
                    .fold(f64::INFINITY, f64::min);
                let submitting = rows.iter().any(|r| r.state == RowState::Submitting);
                (next, earliest, submitting)
            });
            let Some(index) = next else {
                if earliest.is_infinite() && !submitting {
                    break;
                }
                let wait = if earliest.is_finite() {
                    (earliest - t).clamp(5.0, 1000.0)
                } else {
                    20.0
                };
                sleep(Duration::from_millis(wait as u64)).await;
                continue;
            };
            let pacer = self.pacer.get_value();
            if self.in_flight.get_value() >= pacer.window() {
                sleep(Duration::from_millis(5)).await;
                continue;
            }
            if pacer.ready_at() > t {
                sleep(Duration::from_millis((pacer.ready_at() - t).ceil() as u64)).await;
                continue;
            }
            let Some((action, key, body)) = self
                .batch
                .try_update(|b| {
                    let b = b.as_mut()?;
                    let row = b.rows.get_mut(index)?;
                    row.state = RowState::Submitting;
                    row.tries += 1;
                    Some((
                        b.action.clone(),
                        row_key(&b.id, row.attempt, row.line),
                        row.body.clone(),
                    ))
                })
                .flatten()
            else {
                break;
            };
            self.pacer.update_value(|p| p.sent(t));
            self.in_flight.update_value(|n| *n += 1);
            spawn_local(self.submit_row(client, generation, index, action, key, body));
        }
        self.submitter_alive.set_value(false);
    }

    async fn submit_row(
        self,
        client: ApiClient,
        generation: u32,
        index: usize,
        action: String,
        key: String,
        body: String,
    ) {
        let answer = client.submit(&action, false, &key, &body).await;
        self.in_flight.update_value(|n| *n = n.saturating_sub(1));
        if self.generation.get_value() != generation {
            return;
        }
        match answer {
            Ok(submitted) => {
                self.pacer.update_value(Pacer::accepted);
                // During a cancel, the cancel loop picks up a run made now: it is a running row.
                let run = submitted.run;
                self.batch.update(|b| {
                    if let Some(b) = b {
                        b.accepted += 1;
                        if let Some(row) = b.rows.get_mut(index) {
                            row.take_run(&run);
                        }
                    }
                });
            }
            Err(e) => self.refused(generation, index, &e),
        }
    }

    /// What a refused or unanswered submission does to its row and the batch.
    fn refused(&self, generation: u32, index: usize, e: &ApiError) {
        let t = now();
        let again = |row: &mut BatchRow, not_before: f64| {
            row.state = RowState::Waiting;
            row.not_before = not_before;
        };
        match (e.status(), e.code()) {
            (Some(429), _) => {
                self.pacer
                    .update_value(|p| p.limited(t, e.retry_after().unwrap_or(1.0)));
                self.batch.update(|b| {
                    if let Some(b) = b {
                        b.limited += 1;
                        if let Some(row) = b.rows.get_mut(index) {
                            again(row, 0.0);
                        }
                    }
                });
            }
            (Some(401), _) => self.update_row(generation, index, |row| again(row, 0.0)),
            (Some(409), Some("insufficient_credits")) => {
                self.update_row(generation, index, |row| again(row, 0.0));
                self.set_phase(Phase::Paused(Some(format!(
                    "Paused: {} Resume once credits are available.",
                    e.server_message()
                        .unwrap_or("Not enough credits for the next row.")
                ))));
                self.workspace.refresh();
            }
            _ if e.is_transient() => self.update_row(generation, index, |row| {
                let delay = retry_delay_ms(row.tries);
                again(row, t + delay);
            }),
            _ => self.update_row(generation, index, |row| {
                row.state = RowState::Failed;
                row.error = Some((
                    e.code().unwrap_or("refused").to_owned(),
                    e.server_message()
                        .map_or_else(|| e.message(), str::to_owned),
                ));
            }),
        }
    }

    async fn watcher(self, generation: u32) {
        let mut cycles: u32 = 0;
        loop {
            let hidden = page_hidden();
            sleep(Duration::from_millis(if hidden { 5_000 } else { 1_000 })).await;
            if self.generation.get_value() != generation {
                break;
            }
            cycles += 1;
            let (running, unsent, phase) = self.batch.with_untracked(|b| {
                let rows = b.as_ref().map_or(&[][..], |b| &b.rows[..]);
                (
                    rows.iter().any(|r| r.state.is_running()),
                    rows.iter()
                        .any(|r| matches!(r.state, RowState::Waiting | RowState::Submitting)),
                    b.as_ref().map(|b| b.phase.clone()),
                )
            });
            if !running {
                if !unsent && phase == Some(Phase::Running) {
                    self.set_phase(Phase::Done);
                    self.workspace.refresh();
                }
                if phase.is_none() || matches!(phase, Some(Phase::Done)) {
                    break;
                }
                continue;
            }
            let Some(client) = self.session.client_untracked() else {
                continue;
            };
            if cycles.is_multiple_of(10) {
                self.workspace.refresh_unless_loading();
            }
            self.follow_runs(&client, generation).await;
        }
        self.watcher_alive.set_value(false);
    }

    /// One status round: the latest 100 runs, then single runs that left that list unfinished.
    async fn follow_runs(&self, client: &ApiClient, generation: u32) {
        // The runs going before the list is asked for: one missing from a full list fell out.
        let running: HashMap<String, usize> = self.batch.with_untracked(|b| {
            b.iter()
                .flat_map(|b| b.rows.iter().enumerate())
                .filter(|(_, r)| r.state.is_running())
                .filter_map(|(i, r)| r.run_id.clone().map(|id| (id, i)))
                .collect()
        });
        let asked_at = now();
        self.count_status_request();
        let Ok(list) = client.runs().await else {
            return;
        };
        let mut seen = std::collections::HashSet::new();
        if self.generation.get_value() != generation {
            return;
        }
        self.batch.update(|b| {
            if let Some(b) = b {
                for run in &list.value.runs {
                    if let Some(&i) = running.get(&run.id) {
                        seen.insert(i);
                        b.rows[i].take_run(run);
                    }
                }
            }
        });
        // Only a full list can have left a run out; then ask for those runs one by one (a few
        // per round, so a round stays short).
        if list.value.runs.len() < crate::model::bulk::RUN_LIST_LIMIT {
            return;
        }
        let missing: Vec<(usize, String)> = running
            .iter()
            .filter(|(_, i)| !seen.contains(*i))
            .map(|(id, i)| (*i, id.clone()))
            .collect();
        for (index, id) in missing.into_iter().take(10) {
            if now() - asked_at > 5_000.0 {
                break;
            }
            self.count_status_request();
            if let Ok(answer) = client.run(&id).await {
                self.update_row(generation, index, |row| row.take_run(&answer.value));
            }
        }
    }

    fn count_status_request(&self) {
        self.batch.update(|b| {
            if let Some(b) = b {
                b.status_requests += 1;
            }
        });
    }
}

/// The batches this browser keeps for a workspace, newest first.
pub async fn saved_batches(workspace: &str) -> Result<Vec<SavedBatch>, ()> {
    let mut list: Vec<SavedBatch> = store::all(store::BATCHES)
        .await
        .map_err(|_| ())?
        .iter()
        .filter_map(|json| SavedBatch::from_json(&serde_json::from_str(json).ok()?))
        .filter(|b| b.workspace == workspace)
        .collect();
    list.sort_by(|a, b| b.created_at.total_cmp(&a.created_at));
    Ok(list)
}

/// A kept batch's rows, in line order; `None` when they cannot be read back whole.
pub async fn saved_rows(batch: &str) -> Option<Vec<BatchRow>> {
    store::batch_rows(batch)
        .await
        .ok()?
        .iter()
        .map(|json| BatchRow::from_json(&serde_json::from_str(json).ok()?))
        .collect()
}

pub fn use_bulk() -> Bulk {
    expect_context::<Bulk>()
}
