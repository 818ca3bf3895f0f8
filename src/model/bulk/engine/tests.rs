//! The engine against a fake API on a fake clock: answers arrive in any order and any of the
//! contract's ways, a page is reloaded (the engine dropped and restored from what it saved)
//! or cancelled at any point.

use std::collections::{BTreeMap, HashMap, HashSet};

use api_contract::{ActionId, Run, RunStatus};
use proptest::prelude::*;
use serde_json::json;

use super::*;
use crate::model::bulk::{CheckedRow, RUN_LIST_LIMIT, RowError, row_key};

/// When the simulations start, in ms since the epoch: the fake API and the fake store keep
/// their times as plain milliseconds, and the engine takes them as [`EngineTime`].
const START: f64 = 1.7e12;

/// A tiny deterministic generator, so a proptest case is replayed exactly.
struct Dice(u64);

impl Dice {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// `true` with probability `share`.
    fn chance(&mut self, share: f64) -> bool {
        (self.next() % 10_000) as f64 / 10_000.0 < share
    }
    fn between(&mut self, low: f64, high: f64) -> f64 {
        low + (self.next() % 10_000) as f64 / 10_000.0 * (high - low)
    }
}

/// Faults the fake API makes, as shares of requests.
#[derive(Clone, Copy, Debug)]
struct Faults {
    /// A 5xx before any run is made.
    server_error: f64,
    /// The run is made but the answer is lost (the client sees no answer).
    lost_answer: f64,
    /// 400 for a row.
    refused: f64,
    /// 401, then the person signs in again a moment later.
    unauthorized: f64,
    /// 429 without `retry_after`.
    no_retry_after: f64,
    /// A status read or cancel fails.
    read_failure: f64,
    /// Runs that fail.
    failed_run: f64,
}

const NO_FAULTS: Faults = Faults {
    server_error: 0.0,
    lost_answer: 0.0,
    refused: 0.0,
    unauthorized: 0.0,
    no_retry_after: 0.0,
    read_failure: 0.0,
    failed_run: 0.0,
};

struct FakeRun {
    id: String,
    created_at: f64,
    ends_at: f64,
    fails: bool,
    cancelled_at: Option<f64>,
    records: usize,
    /// The body's `max_credits`: the API never charges a run more.
    max_credits: u64,
    /// What the run charges if it completes (a failed or cancelled one charges part of it).
    charge: u64,
}

/// The API as the contract describes it: one run per idempotency key, a token bucket per
/// workspace, runs that take a while, the latest 100 in the list.
struct FakeApi {
    burst: f64,
    per_ms: f64,
    tokens: f64,
    refilled_at: f64,
    runs: Vec<FakeRun>,
    by_key: HashMap<String, usize>,
    run_ms: f64,
    credits: u64,
    /// Every key a submission carried, with its row.
    keys_sent: Vec<(usize, String)>,
    limited: usize,
    accepted_submissions: usize,
    /// Draws what each run charges, apart from `Dice` so the other draws stay as they were.
    charges: Dice,
    /// Every run charges its `max_credits`, even a failed or cancelled one.
    full_charge: bool,
    /// Runs made before the batch (without a key of its own), first in `runs`.
    made_before: usize,
}

impl FakeApi {
    fn new(burst: f64, per_sec: f64, run_ms: f64) -> FakeApi {
        FakeApi {
            burst,
            per_ms: per_sec / 1000.0,
            tokens: burst,
            refilled_at: START,
            runs: Vec::new(),
            by_key: HashMap::new(),
            run_ms,
            credits: u64::MAX,
            keys_sent: Vec::new(),
            limited: 0,
            accepted_submissions: 0,
            charges: Dice(0x9e37_79b9_7f4a_7c15),
            full_charge: false,
            made_before: 0,
        }
    }

    /// What this batch's runs may still cost: what an ended run charged, a going run's
    /// `max_credits`.
    fn committed(&self, now: f64) -> u64 {
        self.by_key
            .values()
            .map(|&index| match self.status(index, now) {
                (status, _) if status.is_terminal() => self.credits_used(index, status),
                _ => self.runs[index].max_credits,
            })
            .sum()
    }

    /// A run's status at `now`, and when it ended.
    fn status(&self, index: usize, now: f64) -> (RunStatus, Option<f64>) {
        let r = &self.runs[index];
        match r.cancelled_at {
            Some(at) => (RunStatus::Cancelled, Some(at)),
            None if now >= r.ends_at && r.fails => (RunStatus::Failed, Some(r.ends_at)),
            None if now >= r.ends_at => (RunStatus::Completed, Some(r.ends_at)),
            None if now >= r.created_at + 100.0 => (RunStatus::Processing, None),
            None => (RunStatus::Queued, None),
        }
    }

    /// What a run of this status has charged so far: never more than its `max_credits`.
    fn credits_used(&self, index: usize, status: RunStatus) -> u64 {
        let charge = self.runs[index].charge;
        match status {
            RunStatus::Completed => charge,
            _ if self.full_charge && status.is_terminal() => charge,
            RunStatus::Failed | RunStatus::Cancelled => charge / 2,
            RunStatus::Processing => charge / 3,
            RunStatus::Queued => 0,
        }
    }

    fn run(&self, index: usize, now: f64) -> Run {
        let r = &self.runs[index];
        let (status, completed_at) = self.status(index, now);
        let records = if status == RunStatus::Completed {
            r.records
        } else {
            0
        };
        let credits_used = self.credits_used(index, status);
        let time = |ms: f64| {
            chrono::DateTime::from_timestamp_millis(ms as i64)
                .unwrap()
                .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
        };
        serde_json::from_value(json!({
            "id": r.id, "action": "premium-search-people", "status": status.as_str(),
            "output": (0..records).map(|i| json!({ "name": format!("person {i}") })).collect::<Vec<_>>(),
            "credits_used": credits_used, "credits_reserved": 0,
            "created_at": time(r.created_at), "completed_at": completed_at.map(time),
            "completeness": { "has_more": false, "scope": "single_page" },
            "error": if status == RunStatus::Failed { json!({ "code": "provider_error", "message": "no" }) } else { serde_json::Value::Null },
        }))
        .unwrap()
    }

    fn submit(
        &mut self,
        now: f64,
        row: usize,
        key: &str,
        body: &str,
        dice: &mut Dice,
        faults: Faults,
    ) -> Option<SubmitAnswer> {
        self.keys_sent.push((row, key.to_owned()));
        self.tokens = (self.tokens + (now - self.refilled_at) * self.per_ms).min(self.burst);
        self.refilled_at = now;
        if dice.chance(faults.unauthorized) {
            return Some(SubmitAnswer::Unauthorized);
        }
        if dice.chance(faults.server_error) {
            return Some(SubmitAnswer::Transient);
        }
        if let Some(&index) = self.by_key.get(key) {
            // A repeat of a key: the run it made, not a new one (and no token).
            return Some(SubmitAnswer::Accepted(self.run(index, now)));
        }
        if dice.chance(faults.refused) {
            return Some(SubmitAnswer::Refused(RowError {
                code: "invalid_input".into(),
                message: "no".into(),
                request_id: Some("req".into()),
            }));
        }
        if self.tokens < 1.0 {
            self.limited += 1;
            let retry_after = if dice.chance(faults.no_retry_after) {
                None
            } else {
                Some(((1.0 - self.tokens) / self.per_ms / 1000.0).max(0.05))
            };
            return Some(SubmitAnswer::RateLimited { retry_after });
        }
        if self.credits == 0 {
            return Some(SubmitAnswer::InsufficientCredits {
                message: Some("none left".into()),
            });
        }
        self.credits -= 1;
        self.tokens -= 1.0;
        self.accepted_submissions += 1;
        let index = self.runs.len();
        let max_credits = serde_json::from_str::<serde_json::Value>(body)
            .ok()
            .and_then(|body| body["max_credits"].as_u64())
            .unwrap_or(5);
        let charge = if self.full_charge {
            max_credits
        } else {
            self.charges.next() % max_credits.saturating_add(1)
        };
        self.runs.push(FakeRun {
            id: format!("run_{index}"),
            created_at: now,
            ends_at: now + self.run_ms * dice.between(0.5, 1.5),
            fails: dice.chance(faults.failed_run),
            cancelled_at: None,
            records: 1 + (dice.next() % 5) as usize,
            max_credits,
            charge,
        });
        self.by_key.insert(key.to_owned(), index);
        if dice.chance(faults.lost_answer) {
            return None;
        }
        Some(SubmitAnswer::Accepted(self.run(index, now)))
    }

    fn index_of(&self, run_id: &str) -> Option<usize> {
        self.runs.iter().position(|r| r.id == run_id)
    }

    fn bytes(&self, run: &Run) -> usize {
        serde_json::to_string(run).unwrap().len()
    }
}

/// What the fake store holds: the last saved summary and rows.
#[derive(Default)]
struct FakeStore {
    summary: Option<SavedBatch>,
    rows: BTreeMap<usize, BatchRow>,
    /// Every save asked, written or refused.
    saves_asked: usize,
}

/// A driver on a fake clock: each command's answer arrives after a random latency.
struct Sim {
    /// The fake clock, in ms since the epoch ([`Sim::clock`] for the engine).
    now: f64,
    engine: Engine,
    api: FakeApi,
    store: FakeStore,
    dice: Dice,
    faults: Faults,
    save_failure: f64,
    /// How long the store takes to commit a save, for each finished row's records in it
    /// (0: as fast as any other answer). A store slower than the API's answers.
    store_ms_per_output: f64,
    /// The most runs' records seen in memory or on their way at once, counted from the rows
    /// and the answers themselves (not from the engine's own count).
    most_outputs_in_memory: usize,
    /// Answers on their way: (arrival, order, event).
    arriving: Vec<(f64, u64, Event)>,
    order: u64,
    /// Rows with a submission on its way, to check there is never a second.
    submitting: HashSet<usize>,
    /// The engine was never asked to send before its first save answered.
    sent_before_kept: bool,
    sign_in_at: Option<f64>,
    /// The page's copy, told only what [`Engine::take_news`] says after each change (as the
    /// worker running a batch tells its page).
    page: Engine,
    /// Every key the engine ever sent, reloads included: a key not in it goes for the first
    /// time.
    keys_ever_sent: HashSet<String>,
    /// The budget seen last, and whether it was ever lowered (a lower budget may leave the
    /// batch above it, by what was committed before).
    budget_seen: Option<u64>,
    budget_lowered: bool,
}

fn rows(n: usize) -> Vec<BatchRow> {
    rows_costing(&vec![5; n])
}

/// A row per worst case, sent with it as `max_credits`, from line 2 on.
fn rows_costing(estimates: &[u64]) -> Vec<BatchRow> {
    estimates
        .iter()
        .enumerate()
        .map(|(i, &estimate)| {
            BatchRow::new(CheckedRow {
                line: i + 2,
                cells: vec![format!("row {i}")],
                body: format!(r#"{{"input":{{"keywords":"row {i}"}},"max_credits":{estimate}}}"#),
                estimate,
                errors: Vec::new(),
                repeat_of: None,
                reuses: None,
            })
        })
        .collect()
}

impl Sim {
    /// The fake clock's time, as the engine takes it.
    fn clock(&self) -> EngineTime {
        EngineTime::from_ms(self.now)
    }

    fn new(n: usize, api: FakeApi, faults: Faults, seed: u64) -> Sim {
        Sim::with_rows(rows(n), None, api, faults, seed)
    }

    fn with_rows(
        rows: Vec<BatchRow>,
        budget: Option<u64>,
        api: FakeApi,
        faults: Faults,
        seed: u64,
    ) -> Sim {
        let engine = Engine::new(
            "0123456789abcdef0123456789abcdef".into(),
            Some("ws".into()),
            ActionId::PremiumSearchPeople,
            vec!["keywords".into()],
            rows,
            EngineTime::from_ms(START),
        )
        .with_budget(budget);
        Sim {
            now: START,
            page: engine.clone(),
            engine,
            api,
            store: FakeStore::default(),
            dice: Dice(seed | 1),
            faults,
            save_failure: 0.0,
            store_ms_per_output: 0.0,
            most_outputs_in_memory: 0,
            arriving: Vec::new(),
            order: 0,
            submitting: HashSet::new(),
            sent_before_kept: false,
            sign_in_at: None,
            keys_ever_sent: HashSet::new(),
            budget_seen: budget,
            budget_lowered: false,
        }
    }

    fn deliver_later(&mut self, event: Event) {
        let at = self.now + self.dice.between(1.0, 60.0);
        self.order += 1;
        self.arriving.push((at, self.order, event));
    }

    fn execute(&mut self, commands: Vec<Command>) {
        for command in commands {
            match command {
                Command::Submit {
                    row,
                    key,
                    action,
                    body,
                } => {
                    assert_eq!(action, ActionId::PremiumSearchPeople);
                    if self.engine.keeping() == Keeping::Pending {
                        self.sent_before_kept = true;
                    }
                    assert!(self.submitting.insert(row), "row {row} sent twice at once");
                    // A row the engine sends as new (not again with a key that may have
                    // made a run) goes only if its worst case fit what the budget left: the
                    // engine counts it now, and the whole still fits. A key sent again after
                    // a reload may never have gone (the store lists every row that may have),
                    // but it was counted before the reload.
                    let spending = *self.engine.spending();
                    let first_time = self.keys_ever_sent.insert(key.clone());
                    let replay = self.engine.requests.replaying.contains(&row);
                    if first_time
                        && !replay
                        && let Some(budget) = spending.budget
                    {
                        assert!(
                            spending.committed() <= budget,
                            "line {} sent for the first time past the budget: {spending:?}",
                            row + 2
                        );
                    }
                    let answer =
                        self.api
                            .submit(self.now, row, &key, &body, &mut self.dice, self.faults);
                    if answer == Some(SubmitAnswer::Unauthorized) {
                        self.sign_in_at = Some(self.now + 500.0);
                    }
                    // A lost answer is what the client sees as no answer: a transient error.
                    let answer = answer.unwrap_or(SubmitAnswer::Transient);
                    self.deliver_later(Event::Submitted { row, key, answer });
                }
                Command::ReadRunList => {
                    let answer = if self.dice.chance(self.faults.read_failure) {
                        ReadAnswer::Failed
                    } else {
                        let runs: Vec<Run> = (0..self.api.runs.len())
                            .rev()
                            .take(RUN_LIST_LIMIT)
                            .map(|i| self.api.run(i, self.now))
                            .collect();
                        let bytes = serde_json::to_string(&runs).unwrap().len();
                        ReadAnswer::Read { value: runs, bytes }
                    };
                    self.deliver_later(Event::RunListRead(answer));
                }
                Command::ReadRun { row, run_id } => {
                    let answer = match self.api.index_of(&run_id) {
                        _ if self.dice.chance(self.faults.read_failure) => ReadAnswer::Failed,
                        Some(i) => {
                            let run = self.api.run(i, self.now);
                            let bytes = self.api.bytes(&run);
                            ReadAnswer::Read { value: run, bytes }
                        }
                        None => ReadAnswer::NotFound,
                    };
                    self.deliver_later(Event::RunRead { row, answer });
                }
                Command::CancelRun { row, run_id } => {
                    let answer = match self.api.index_of(&run_id) {
                        _ if self.dice.chance(self.faults.read_failure) => CancelAnswer::Failed,
                        Some(i) => {
                            let run = self.api.run(i, self.now);
                            if run.status.is_terminal() {
                                CancelAnswer::AlreadyFinished
                            } else {
                                self.api.runs[i].cancelled_at = Some(self.now);
                                CancelAnswer::Cancelled(self.api.run(i, self.now))
                            }
                        }
                        None => CancelAnswer::Failed,
                    };
                    self.deliver_later(Event::CancelAnswered { row, answer });
                }
                Command::Save(saving) => {
                    self.store.saves_asked += 1;
                    let written = !self.dice.chance(self.save_failure);
                    let outputs = saving.rows.iter().filter(|r| !r.output.is_empty()).count();
                    let commit_ms = outputs as f64 * self.store_ms_per_output;
                    if written {
                        self.store.summary = Some(saving.summary.clone());
                        for row in saving.rows {
                            self.store.rows.insert(row.line, row);
                        }
                    }
                    if commit_ms > 0.0 {
                        self.order += 1;
                        let at = self.now + commit_ms;
                        self.arriving
                            .push((at, self.order, Event::Saved(saved_as(written))));
                    } else {
                        self.deliver_later(Event::Saved(saved_as(written)));
                    }
                }
                Command::RefreshWorkspace => {}
            }
        }
    }

    fn handle(&mut self, event: Event) {
        if let Event::Submitted { row, .. } = &event {
            self.submitting.remove(row);
        }
        let resume = event == Event::Resume;
        let phase_before = self.engine.phase().clone();
        let commands = self.engine.handle(self.clock(), event);
        self.check_spending();
        if resume || self.engine.phase() != &phase_before {
            self.check_pause_at_budget();
        }
        self.count_outputs_in_memory();
        if self.engine.take_changed() {
            self.page.absorb(self.engine.take_news());
            // The page says "done" with every row final, as the person reads it.
            if self.page.phase() == &Phase::Done {
                let going = self.page.rows().iter().find(|r| !r.state.is_final());
                assert!(going.is_none(), "done, but {going:?}");
            }
            // What an export reads: a row the page holds without its records has them in
            // the store.
            for row in self.page.rows() {
                if row.records > 0 && row.output.is_empty() {
                    assert!(
                        self.store
                            .rows
                            .get(&row.line)
                            .is_some_and(|kept| kept.output.len() == row.records),
                        "line {}: the page let its {} records go before the store had them",
                        row.line,
                        row.records
                    );
                }
            }
        }
        self.execute(commands);
    }

    /// The spending the engine keeps is the spending counted from its rows; with a budget,
    /// what the API may still charge is within it, and both are within the budget unless it
    /// was lowered.
    fn check_spending(&mut self) {
        let engine = &self.engine;
        let counted = Spending::of(
            engine.credits.spending.budget,
            engine.credits.charged_before,
            &engine.rows,
            |index| engine.held(index),
        );
        assert_eq!(
            engine.credits.spending, counted,
            "the spending kept is the spending counted"
        );
        let budget = engine.credits.spending.budget;
        if budget != self.budget_seen {
            if budget.is_some_and(|b| self.budget_seen.is_none_or(|seen| b < seen)) {
                self.budget_lowered = true;
            }
            self.budget_seen = budget;
        }
        let Some(budget) = budget else {
            return;
        };
        let committed = engine.credits.spending.committed();
        let at_the_api = self.api.committed(self.now);
        assert!(
            at_the_api <= committed,
            "the API may charge {at_the_api}, the batch counts {committed}"
        );
        if !self.budget_lowered {
            assert!(
                committed <= budget,
                "{committed} committed, budget {budget}"
            );
        }
    }

    /// A batch that has just paused at its budget paused before the first row never sent,
    /// which does not fit what is left, and says which.
    fn check_pause_at_budget(&self) {
        let Some(reason) = self.paused_at_budget() else {
            return;
        };
        let engine = &self.engine;
        let next = (0..engine.rows.len())
            .find(|&i| engine.rows[i].state == RowState::Waiting && !engine.held(i));
        let Some(next) = next else {
            panic!("paused at the budget with no row to send: {reason}");
        };
        let row = &engine.rows[next];
        assert!(
            !engine.credits.spending.fits(row.estimate),
            "paused before line {}, which fits: {:?}",
            row.line,
            engine.credits.spending
        );
        assert!(reason.contains(&format!("line {} ", row.line)), "{reason}");
    }

    /// The batch is paused at its budget, with this reason.
    fn paused_at_budget(&self) -> Option<&str> {
        match self.engine.phase() {
            Phase::Paused(Some(reason)) if reason.starts_with("Paused at the budget") => {
                Some(reason)
            }
            _ => None,
        }
    }

    /// Counts the runs whose records are in the engine's rows or in an answer on its way to
    /// it, and keeps the most.
    fn count_outputs_in_memory(&mut self) {
        let rows = self.engine.rows();
        let running = |id: &str| {
            rows.iter()
                .any(|r| r.state.is_running() && r.run_id.as_deref() == Some(id))
        };
        let held = rows.iter().filter(|r| !r.output.is_empty()).count();
        let arriving: usize = self
            .arriving
            .iter()
            .map(|(_, _, event)| match event {
                Event::Submitted {
                    answer: SubmitAnswer::Accepted(run),
                    ..
                } => usize::from(!run.output.is_empty()),
                Event::RunRead {
                    answer: ReadAnswer::Read { value, .. },
                    ..
                } => usize::from(!value.output.is_empty()),
                Event::RunListRead(ReadAnswer::Read { value, .. }) => value
                    .iter()
                    .filter(|run| !run.output.is_empty() && running(&run.id))
                    .count(),
                _ => 0,
            })
            .sum();
        self.most_outputs_in_memory = self.most_outputs_in_memory.max(held + arriving);
    }

    /// Runs until the engine is settled or `until` (ms after the start) has passed; `true`
    /// when settled.
    fn run_until(&mut self, until: f64) -> bool {
        self.run_while(until, Sim::settled)
    }

    /// Runs until the engine is settled or stopped (paused, with nothing going that it
    /// waits for), or `until` has passed; `true` when settled or stopped.
    fn run_until_stopped(&mut self, until: f64) -> bool {
        self.run_while(until, |sim| sim.settled() || sim.stopped())
    }

    fn settled(&self) -> bool {
        self.engine.is_settled() && self.arriving.is_empty()
    }

    fn stopped(&self) -> bool {
        matches!(self.engine.phase(), Phase::Paused(_))
            && self.arriving.is_empty()
            && self.sign_in_at.is_none()
            && self.engine.requests.save_in_flight.is_none()
            && !self.engine.has_unsaved()
            && self
                .engine
                .rows()
                .iter()
                .all(|r| !r.state.is_running() && r.state != RowState::Submitting)
    }

    /// Runs until `done` holds or `until` (ms after the start) has passed; `true` when it
    /// holds.
    fn run_while(&mut self, until: f64, done: impl Fn(&Sim) -> bool) -> bool {
        self.handle(Event::Tick);
        loop {
            if done(self) {
                return true;
            }
            if let Some(at) = self.sign_in_at
                && at <= self.now
            {
                self.sign_in_at = None;
                self.handle(Event::SignedIn);
            }
            let next_answer = self
                .arriving
                .iter()
                .enumerate()
                .min_by(|a, b| a.1.0.total_cmp(&b.1.0).then(a.1.1.cmp(&b.1.1)))
                .map(|(i, a)| (i, a.0));
            let wake = self
                .engine
                .wake_at(self.clock())
                .map_or(f64::INFINITY, EngineTime::as_ms);
            let wake = wake.min(self.sign_in_at.unwrap_or(f64::INFINITY));
            // Like a browser timer, the driver wakes at least once a second.
            let wake = wake.min(self.now + 1_000.0).max(self.now + 1.0);
            match next_answer {
                Some((i, at)) if at <= wake => {
                    self.now = self.now.max(at);
                    let (_, _, event) = self.arriving.swap_remove(i);
                    self.handle(event);
                }
                _ => {
                    self.now = wake;
                    self.handle(Event::Tick);
                }
            }
            if self.now - START > until {
                return false;
            }
        }
    }

    /// A reload: the page and every answer on its way are gone; the batch comes back from
    /// the store (paused, or going on with its cancel).
    fn restore_from_store(&mut self) {
        self.arriving.clear();
        self.submitting.clear();
        let summary = self
            .store
            .summary
            .clone()
            .expect("saved before anything was sent");
        let rows: Vec<BatchRow> = self.store.rows.values().cloned().collect();
        self.engine = Engine::restore(summary, rows, self.clock()).unwrap();
        self.check_spending();
    }

    /// Runs until `at` (ms after the start), if given, then reloads, unless the batch was
    /// settled by then.
    fn reload_at(&mut self, at: Option<f64>) {
        if let Some(at) = at
            && !self.run_until(at)
        {
            self.reload();
        }
    }

    /// A reload, then Resume.
    fn reload(&mut self) {
        self.restore_from_store();
        self.handle(Event::Resume);
    }

    /// The summary as saved counts what the rows saved with it charged and how many failed,
    /// so a done batch can be counted from its summary alone (a chain's steps are).
    fn check_saved_counts(&self) {
        let summary = self.store.summary.as_ref().expect("saved");
        let rows: Vec<BatchRow> = self.store.rows.values().cloned().collect();
        let counts = summary.counts.expect("counted");
        let spending = Spending::of(summary.budget, summary.charged_before, &rows, |_| false);
        assert_eq!(counts.charged, spending.charged);
        let failed = rows.iter().filter(|r| r.state == RowState::Failed).count();
        assert_eq!(counts.failed, failed);
    }

    /// Every key a row was sent with is its one key of its attempt; one run per key.
    fn check_keys_and_runs(&self) {
        for (row, key) in &self.api.keys_sent {
            let line = row + 2;
            let attempt = self.engine.rows()[*row].attempt;
            let allowed: Vec<String> = (0..=attempt)
                .map(|a| row_key(&self.engine.id, a, line))
                .collect();
            assert!(allowed.contains(key), "row {row} sent with {key}");
        }
        assert_eq!(
            self.api.by_key.len(),
            self.api.runs.len() - self.api.made_before,
            "one run per key"
        );
        for row in self.engine.rows() {
            if let (Some(run), None) = (&row.run_id, &row.reuses) {
                let key = row_key(&self.engine.id, row.attempt, row.line);
                assert_eq!(
                    self.api.by_key.get(&key).map(|&i| &self.api.runs[i].id),
                    Some(run),
                    "line {} shows the run its key made",
                    row.line
                );
            }
        }
    }
}

#[test]
fn a_batch_runs_at_the_api_rate_with_few_429s_and_reads_status_cheaply() {
    let mut sim = Sim::new(300, FakeApi::new(5.0, 10.0, 3_000.0), NO_FAULTS, 7);
    assert!(sim.run_until(120_000.0), "settled");
    assert_eq!(sim.engine.phase(), &Phase::Done);
    assert_eq!(sim.engine.tally().count(RowState::Completed), 300);
    sim.check_keys_and_runs();
    assert!(!sim.sent_before_kept);
    // 300 rows at 10/s after a burst of 5: about 30 s, plus the last run's time.
    let took = sim.now - START;
    assert!(took < 38_000.0, "{took} ms");
    assert!(sim.api.limited <= 10, "{} 429s", sim.api.limited);
    let c = sim.engine.counters();
    assert!(
        (c.status_requests as f64) < 2.0 * 300.0,
        "{} status requests",
        c.status_requests
    );
    assert!(
        c.status_bytes <= 2 * c.result_bytes,
        "status {} bytes for {} of results",
        c.status_bytes,
        c.result_bytes
    );
    // Everything final is saved.
    assert!(
        sim.store
            .rows
            .values()
            .all(|r| r.state == RowState::Completed)
    );
    // The records are kept with their rows, and left memory.
    assert!(
        sim.store
            .rows
            .values()
            .all(|r| r.records > 0 && r.output.len() == r.records)
    );
    assert!(sim.engine.rows().iter().all(|r| r.output.is_empty()));
    assert_eq!(
        sim.engine.tally().records,
        sim.store.rows.values().map(|r| r.records).sum::<usize>()
    );
    assert_eq!(sim.store.summary.as_ref().map(|s| s.done), Some(true));
    assert!(
        sim.store.summary.as_ref().unwrap().pace.is_some(),
        "the pace is kept"
    );
}

#[test]
fn repeated_rows_are_never_sent_and_stay_repeats_through_a_reload() {
    // Every third row repeats the row before it (as `check_rows` marks a repeated question).
    let mut batch = rows(90);
    for index in (2..batch.len()).step_by(3) {
        let first_line = batch[index - 1].line;
        batch[index] = BatchRow::new(CheckedRow {
            line: batch[index].line,
            cells: batch[index - 1].cells.clone(),
            body: batch[index - 1].body.clone(),
            estimate: batch[index - 1].estimate,
            errors: Vec::new(),
            repeat_of: Some(first_line),
            reuses: None,
        });
    }
    let mut sim = Sim::with_rows(
        batch,
        Some(10_000),
        FakeApi::new(5.0, 10.0, 2_000.0),
        NO_FAULTS,
        11,
    );
    sim.reload_at(Some(4_000.0));
    assert!(sim.run_until(120_000.0), "settled");
    assert_eq!(sim.engine.phase(), &Phase::Done);
    let tally = sim.engine.tally();
    assert_eq!(
        (
            tally.count(RowState::Completed),
            tally.count(RowState::Repeat),
            tally.to_send
        ),
        (60, 30, 60)
    );
    assert_eq!(sim.api.runs.len(), 60, "one run per distinct question");
    let sent: HashSet<usize> = sim.api.keys_sent.iter().map(|(row, _)| *row).collect();
    assert!(sent.iter().all(|row| row % 3 != 2), "a repeat was sent");
    assert!(
        sim.store
            .rows
            .values()
            .filter(|r| r.repeat_of.is_some())
            .all(|r| r.state == RowState::Repeat && r.run_id.is_none() && r.credits_used == 0)
    );
    sim.check_keys_and_runs();
}

#[test]
fn rows_reusing_runs_made_before_are_read_not_sent_and_charge_nothing() {
    // Ten runs made before this batch (charged then), and a run the API no longer has.
    let mut api = FakeApi::new(5.0, 10.0, 1_000.0);
    for i in 0..10 {
        api.runs.push(FakeRun {
            id: format!("earlier_{i}"),
            created_at: START - 3_600_000.0,
            ends_at: START - 3_500_000.0,
            fails: false,
            cancelled_at: None,
            records: 3,
            max_credits: 5,
            charge: 5,
        });
    }
    api.made_before = 10;
    let mut batch = rows(30);
    for (index, row) in batch.iter_mut().enumerate().take(11) {
        let reused = if index < 10 {
            format!("earlier_{index}")
        } else {
            "gone".to_owned()
        };
        *row = BatchRow::new(CheckedRow {
            line: row.line,
            cells: row.cells.clone(),
            body: row.body.clone(),
            estimate: row.estimate,
            errors: Vec::new(),
            repeat_of: None,
            reuses: Some(reused),
        });
    }
    let mut sim = Sim::with_rows(batch, Some(20 * 5), api, NO_FAULTS, 5);
    // The reused rows reserve nothing: the budget holds the 20 rows sent.
    assert_eq!(sim.engine.credits.spending.committed(), 0);
    sim.reload_at(Some(1_500.0));
    assert!(sim.run_until(120_000.0), "settled");
    assert_eq!(sim.engine.phase(), &Phase::Done);
    let sent: HashSet<usize> = sim.api.keys_sent.iter().map(|(row, _)| *row).collect();
    assert_eq!(
        sent,
        (10..30).collect(),
        "the gone run's row is sent, the others read"
    );
    assert_eq!(sim.api.runs.len(), 10 + 20);
    let rows = sim.engine.rows();
    for row in &rows[..10] {
        assert_eq!(
            (
                row.state,
                row.credits_used,
                row.records,
                row.reuses.is_some()
            ),
            (RowState::Completed, 0, 3, true),
            "line {}",
            row.line
        );
    }
    assert_eq!(
        (rows[10].reuses.as_deref(), rows[10].state),
        (None, RowState::Completed)
    );
    let charged_here: u64 = sim
        .api
        .by_key
        .values()
        .map(|&i| sim.api.runs[i].charge)
        .sum();
    assert_eq!(
        sim.engine.tally().credits_used,
        charged_here,
        "no earlier charge counted"
    );
    assert!(
        sim.store
            .rows
            .values()
            .take(10)
            .all(|r| r.records == 3 && r.output.len() == 3)
    );
    sim.check_keys_and_runs();
}

#[test]
fn the_pages_copy_told_only_the_news_shows_the_batch_as_it_is() {
    let faults = Faults {
        lost_answer: 0.1,
        server_error: 0.1,
        refused: 0.05,
        failed_run: 0.1,
        ..NO_FAULTS
    };
    let mut sim = Sim::new(120, FakeApi::new(5.0, 10.0, 2_000.0), faults, 5);
    assert!(sim.run_until(300_000.0), "settled");
    let (page, engine) = (&sim.page, &sim.engine);
    assert_eq!(page.phase(), engine.phase());
    assert_eq!(page.keeping(), Keeping::Kept);
    assert_eq!(page.counters(), engine.counters());
    assert_eq!(page.tally(), engine.tally());
    assert_eq!(page.spending(), engine.spending());
    for (shown, row) in page.rows().iter().zip(engine.rows()) {
        // Records of a kept batch are read from the store, not sent to the page.
        assert!(shown.output.is_empty());
        assert_eq!(
            shown,
            &BatchRow {
                output: Vec::new(),
                ..row.clone()
            }
        );
    }
}

#[test]
fn at_fifty_a_second_with_slow_answers_the_pace_is_learned_and_kept() {
    // Answers take up to 60 ms: one submission at a time could not reach the API's limit
    // (nor learn it); two can.
    let mut sim = Sim::new(2000, FakeApi::new(50.0, 50.0, 1_000.0), NO_FAULTS, 1);
    assert!(sim.run_until(600_000.0));
    let took = sim.now - START;
    let ideal = (2000.0 - 50.0) / 50.0 * 1000.0;
    assert!(took < ideal * 1.15, "{took} ms against {ideal}");
    assert!(sim.api.limited <= 10, "{} 429s", sim.api.limited);
    assert!(sim.engine.pace().is_some());
}

#[test]
fn a_reloaded_batch_starts_at_its_learned_pace() {
    let mut sim = Sim::new(200, FakeApi::new(5.0, 4.0, 1_000.0), NO_FAULTS, 11);
    sim.run_until(15_000.0);
    let limited_before = sim.api.limited;
    assert!(sim.store.summary.as_ref().unwrap().pace.is_some());
    sim.reload();
    assert!(sim.run_until(120_000.0));
    sim.check_keys_and_runs();
    assert_eq!(sim.engine.tally().count(RowState::Completed), 200);
    let after_reload = sim.api.limited - limited_before;
    assert!(after_reload <= 4, "{after_reload} 429s after the reload");
}

#[test]
fn nothing_is_sent_before_the_first_save_and_a_refusing_store_keeps_it_in_the_page() {
    let mut sim = Sim::new(5, FakeApi::new(5.0, 10.0, 500.0), NO_FAULTS, 3);
    let commands = sim.engine.handle(EngineTime::from_ms(START), Event::Tick);
    assert!(
        matches!(commands.as_slice(), [Command::Save(_)]),
        "{commands:?}"
    );
    assert!(
        sim.engine
            .handle(EngineTime::from_ms(START + 500.0), Event::Tick)
            .is_empty()
    );
    let commands = sim.engine.handle(
        EngineTime::from_ms(START + 600.0),
        Event::Saved(saved_as(false)),
    );
    assert_eq!(sim.engine.keeping(), Keeping::Refused);
    assert!(commands.iter().all(|c| matches!(c, Command::Submit { .. })) && !commands.is_empty());
}

#[test]
fn a_store_that_refuses_later_pauses_the_batch_and_keeps_what_was_not_saved() {
    let mut sim = Sim::new(50, FakeApi::new(5.0, 10.0, 500.0), NO_FAULTS, 5);
    sim.run_until(1_500.0);
    assert_eq!(sim.engine.keeping(), Keeping::Kept);
    sim.save_failure = 1.0;
    sim.run_until(4_000.0);
    assert!(
        matches!(sim.engine.phase(), Phase::Paused(Some(reason)) if reason.contains("storage")),
        "{:?}",
        sim.engine.phase()
    );
    // The disk has room again (the save already refused arrives first): what was not saved
    // is written, and resume sends the rest.
    sim.save_failure = 0.0;
    sim.run_until(6_000.0);
    assert!(!sim.engine.has_unsaved());
    sim.handle(Event::Resume);
    assert!(sim.run_until(60_000.0));
    assert_eq!(sim.store.rows.len(), 50);
    assert!(sim.store.rows.values().all(|r| r.state.is_final()));
}

#[test]
fn a_batch_whose_last_answer_came_is_saved_and_settled_at_once() {
    // A chain's next step waits on the settled batch: the last records and the "done" summary
    // are written as soon as nothing else can come, not at the next round of gathered saves.
    let mut sim = Sim::new(30, FakeApi::new(5.0, 10.0, 800.0), NO_FAULTS, 11);
    let all_final = |sim: &Sim| sim.engine.rows().iter().all(|r| r.state.is_final());
    assert!(sim.run_while(60_000.0, all_final));
    let last_answer_at = sim.now;
    assert!(sim.run_until(60_000.0));
    // Two saves (the last records, then the summary that says done), each answered within
    // the fake store's 60 ms.
    assert!(
        sim.now - last_answer_at <= 2.0 * 60.0,
        "settled {} ms after the last answer",
        sim.now - last_answer_at
    );
}

#[test]
fn a_store_that_keeps_refusing_is_asked_again_once_a_save_interval_not_at_once() {
    let mut sim = Sim::new(10, FakeApi::new(5.0, 10.0, 300.0), NO_FAULTS, 13);
    let all_final = |sim: &Sim| sim.engine.rows().iter().all(|r| r.state.is_final());
    assert!(sim.run_while(60_000.0, all_final));
    sim.save_failure = 1.0;
    let asked_before = sim.store.saves_asked;
    let from = sim.now;
    sim.run_until(from - START + 5_000.0);
    let asked = sim.store.saves_asked - asked_before;
    assert!(
        (1..=6).contains(&asked),
        "{asked} saves asked in 5 s of a store refusing every one"
    );
}

#[test]
fn a_lack_of_credits_pauses_with_the_api_message_and_resume_goes_on() {
    let mut api = FakeApi::new(5.0, 10.0, 500.0);
    api.credits = 10;
    let mut sim = Sim::new(20, api, NO_FAULTS, 9);
    sim.run_until(10_000.0);
    assert!(
        matches!(sim.engine.phase(), Phase::Paused(Some(reason)) if reason.contains("none left")),
        "{:?}",
        sim.engine.phase()
    );
    assert_eq!(sim.engine.tally().count(RowState::Waiting), 10);
    sim.api.credits = 100;
    sim.handle(Event::Resume);
    assert!(sim.run_until(60_000.0));
    assert_eq!(sim.engine.tally().count(RowState::Completed), 20);
    sim.check_keys_and_runs();
}

#[test]
fn a_refused_row_fails_with_its_request_id_and_retry_failed_sends_it_with_a_new_key() {
    let faults = Faults {
        refused: 0.3,
        ..NO_FAULTS
    };
    let mut sim = Sim::new(30, FakeApi::new(5.0, 10.0, 500.0), faults, 13);
    assert!(sim.run_until(60_000.0));
    let failed = sim.engine.tally().count(RowState::Failed);
    assert!(failed > 0);
    sim.check_saved_counts();
    let row = sim
        .engine
        .rows()
        .iter()
        .find(|r| r.state == RowState::Failed)
        .unwrap();
    assert_eq!(
        row.error.as_ref().unwrap().request_id.as_deref(),
        Some("req")
    );
    sim.faults = NO_FAULTS;
    sim.handle(Event::RetryFailed);
    assert!(sim.run_until(120_000.0));
    assert_eq!(sim.engine.tally().count(RowState::Completed), 30);
    assert!(sim.engine.rows().iter().any(|r| r.attempt == 1));
    sim.check_keys_and_runs();
    sim.check_saved_counts();
}

#[test]
fn a_run_that_left_the_list_is_read_on_its_own() {
    let mut sim = Sim::new(3, FakeApi::new(5.0, 10.0, 2_000.0), NO_FAULTS, 17);
    sim.run_until(300.0);
    // Another client makes 150 runs: this batch's runs leave the latest 100.
    for i in 0..150 {
        let run = FakeRun {
            id: format!("other_{i}"),
            created_at: sim.now,
            ends_at: sim.now,
            fails: false,
            cancelled_at: None,
            records: 1,
            max_credits: 1,
            charge: 1,
        };
        sim.api.runs.push(run);
    }
    assert!(sim.run_until(30_000.0));
    assert_eq!(sim.engine.tally().count(RowState::Completed), 3);
}

#[test]
fn a_store_slower_than_the_api_slows_the_batch_and_holds_memory_flat() {
    // 2,000 rows at 50/s (40 s at the rate limit), and a store that takes 100 ms to write
    // each finished row's records: 10 rows a second, so about 200 s at the store's pace.
    let mut sim = Sim::new(2_000, FakeApi::new(50.0, 50.0, 800.0), NO_FAULTS, 3);
    sim.store_ms_per_output = 100.0;
    let mut said = HashSet::new();
    while !sim.run_until(sim.now - START + 5_000.0) {
        said.extend(sim.engine.counters().paced_by);
        assert!(sim.now - START < 600_000.0, "not settled in 10 minutes");
    }
    assert_eq!(sim.engine.tally().count(RowState::Completed), 2_000);
    sim.check_keys_and_runs();
    assert!(
        sim.most_outputs_in_memory <= OUTPUTS_IN_MEMORY_AT_MOST,
        "{} runs' records in memory at once",
        sim.most_outputs_in_memory
    );
    assert!(said.contains(&PacedBy::ThisComputer), "{said:?}");
    // At the store's pace, give or take: it is kept busy.
    let c = sim.engine.counters();
    let store_pace = c.outputs_saved as f64 / (c.store_busy_ms / 1000.0);
    let took = (sim.now - START) / 1000.0;
    assert!(
        took < 2_000.0 / store_pace * 1.15,
        "{took} s at {store_pace} rows/s"
    );
    assert!(sim.store.rows.values().all(|r| r.output.len() == r.records));
}

#[test]
fn with_a_fast_store_the_rate_limit_paces_the_batch() {
    let mut sim = Sim::new(600, FakeApi::new(10.0, 20.0, 800.0), NO_FAULTS, 5);
    let mut said = HashSet::new();
    while !sim.run_until(sim.now - START + 5_000.0) {
        said.extend(sim.engine.counters().paced_by);
    }
    assert_eq!(said, HashSet::from([PacedBy::RateLimit]));
    // Said while it held; nothing held the finished batch.
    assert_eq!(sim.engine.counters().paced_by, None);
    assert!(sim.most_outputs_in_memory <= OUTPUTS_IN_MEMORY_AT_MOST);
}

/// A fake API whose runs charge their `max_credits`, so what a batch charges is known.
fn charging_in_full(burst: f64, per_sec: f64, run_ms: f64) -> FakeApi {
    let mut api = FakeApi::new(burst, per_sec, run_ms);
    api.full_charge = true;
    api
}

#[test]
fn a_budget_pauses_before_the_row_that_would_pass_it_until_it_is_raised_and_resumed() {
    let api = charging_in_full(5.0, 10.0, 500.0);
    let mut sim = Sim::with_rows(rows_costing(&[2_000; 10]), Some(11_500), api, NO_FAULTS, 21);
    assert!(sim.run_until_stopped(60_000.0));
    let reason = "Paused at the budget: line 7 may cost up to 2,000 credits and 1,500 of the \
                  11,500-credit budget is left. Raise the budget to go on.";
    assert_eq!(sim.engine.phase(), &Phase::Paused(Some(reason.to_owned())));
    assert_eq!(sim.api.runs.len(), 5, "nothing is sent past the budget");
    assert_eq!(
        sim.engine.spending(),
        &Spending {
            budget: Some(11_500),
            charged: 10_000,
            reserved: 0
        }
    );
    assert_eq!(sim.engine.take_news().spending, *sim.engine.spending());
    // Resumed with the same budget: paused again at once, for the same reason.
    sim.handle(Event::Resume);
    assert_eq!(sim.engine.phase(), &Phase::Paused(Some(reason.to_owned())));
    // Raised: the batch waits for the person's Resume.
    sim.handle(Event::SetBudget(Some(20_000)));
    sim.run_until(sim.now - START + 5_000.0);
    assert!(sim.paused_at_budget().is_some());
    assert_eq!(sim.api.runs.len(), 5);
    assert_eq!(
        sim.store.summary.as_ref().and_then(|s| s.budget),
        Some(20_000)
    );
    sim.handle(Event::Resume);
    assert!(sim.run_until(120_000.0));
    assert_eq!(sim.engine.tally().count(RowState::Completed), 10);
    assert_eq!(sim.api.runs.len(), 10);
    assert_eq!(
        sim.engine.spending(),
        &Spending {
            budget: Some(20_000),
            charged: 20_000,
            reserved: 0
        }
    );
    sim.check_keys_and_runs();
}

#[test]
fn a_row_whose_worst_case_alone_passes_the_budget_pauses_the_batch_and_is_not_skipped() {
    let api = charging_in_full(5.0, 10.0, 500.0);
    let estimates = [100, 100, 5_000, 100];
    let mut sim = Sim::with_rows(rows_costing(&estimates), Some(1_000), api, NO_FAULTS, 3);
    assert!(sim.run_until_stopped(60_000.0));
    assert_eq!(
        sim.paused_at_budget(),
        Some(
            "Paused at the budget: line 4 may cost up to 5,000 credits and 800 of the \
             1,000-credit budget is left. Raise the budget to go on."
        )
    );
    assert_eq!(sim.api.runs.len(), 2, "the row after it waits too");
    assert_eq!(sim.engine.rows()[3].state, RowState::Waiting);
}

#[test]
fn a_budget_lowered_below_what_is_committed_pauses_before_the_next_row() {
    // Runs take 5 s: rows sent in the first 2 s are all going when the budget comes.
    let api = charging_in_full(5.0, 5.0, 5_000.0);
    let mut sim = Sim::with_rows(rows_costing(&[100; 40]), Some(4_000), api, NO_FAULTS, 5);
    sim.run_until(2_000.0);
    let sent = sim.api.runs.len();
    assert!(sent > 1, "{sent} sent");
    sim.handle(Event::SetBudget(Some(50 * sent as u64)));
    assert!(
        sim.paused_at_budget()
            .is_some_and(|reason| reason.contains("none of the")),
        "{:?}",
        sim.engine.phase()
    );
    assert!(sim.run_until_stopped(60_000.0));
    assert_eq!(sim.api.runs.len(), sent, "nothing more is sent");
    // What was on its way ends: charged in full, past the lowered budget, and no more.
    assert_eq!(sim.engine.spending().charged, 100 * sent as u64);
    assert_eq!(sim.engine.spending().reserved, 0);
}

#[test]
fn retried_rows_count_their_old_runs_and_a_reload_keeps_the_budget_and_that_charge() {
    let faults = Faults {
        failed_run: 0.4,
        ..NO_FAULTS
    };
    let api = charging_in_full(5.0, 10.0, 500.0);
    let mut sim = Sim::with_rows(rows_costing(&[100; 8]), Some(800), api, faults, 23);
    assert!(sim.run_until(60_000.0));
    let failed = sim.engine.tally().count(RowState::Failed) as u64;
    assert!(failed >= 2, "{failed} failed");
    assert_eq!(sim.engine.spending().committed(), 800);
    // Room for all but one of them, counting what their first runs charged.
    sim.faults = NO_FAULTS;
    sim.handle(Event::SetBudget(Some(800 + 100 * (failed - 1))));
    sim.handle(Event::RetryFailed);
    assert!(sim.run_until_stopped(60_000.0));
    assert!(sim.paused_at_budget().is_some(), "{:?}", sim.engine.phase());
    assert_eq!(sim.engine.tally().count(RowState::Waiting), 1);
    let paused = *sim.engine.spending();
    assert_eq!(paused.charged, 800 + 100 * (failed - 1));
    assert_eq!(paused.reserved, 0);
    let summary = sim.store.summary.clone().unwrap();
    assert_eq!(
        (summary.budget, summary.charged_before),
        (Some(800 + 100 * (failed - 1)), 100 * failed)
    );
    // A reload: the same budget and spending, and still too little of it.
    sim.restore_from_store();
    assert_eq!(sim.engine.spending(), &paused);
    sim.handle(Event::Resume);
    assert!(sim.paused_at_budget().is_some(), "{:?}", sim.engine.phase());
    sim.handle(Event::SetBudget(Some(800 + 100 * failed)));
    sim.handle(Event::Resume);
    assert!(sim.run_until(120_000.0));
    assert_eq!(sim.engine.tally().count(RowState::Completed), 8);
    assert_eq!(sim.engine.spending().charged, 800 + 100 * failed);
    sim.check_keys_and_runs();
    sim.check_saved_counts();
}

#[test]
fn rows_a_raised_budget_lets_go_count_after_a_reload_however_soon() {
    // Paused at a budget of 30, raised and resumed between two saves, then reloaded a tenth
    // of a second to a second later: a row the new budget lets go is sent only once a save
    // shows it, so whatever the store kept (the old budget or the new), the batch taken up
    // again counts every run the API may charge (checked after every event and at the
    // reload).
    for tenths in 1..10 {
        let api = charging_in_full(10.0, 20.0, 3_000.0);
        let mut sim = Sim::with_rows(rows_costing(&[1; 400]), Some(30), api, NO_FAULTS, 31);
        sim.run_until(2_050.0);
        assert!(sim.paused_at_budget().is_some());
        sim.handle(Event::SetBudget(Some(300)));
        sim.handle(Event::Resume);
        sim.run_until(2_050.0 + f64::from(tenths) * 100.0);
        sim.restore_from_store();
        sim.handle(Event::Resume);
        assert!(sim.run_until_stopped(600_000.0));
        let budget = sim.engine.spending().budget.unwrap_or(0);
        assert!(sim.paused_at_budget().is_some(), "{:?}", sim.engine.phase());
        assert!(
            sim.api.runs.len() as u64 <= budget,
            "{} runs",
            sim.api.runs.len()
        );
        sim.check_keys_and_runs();
    }
}

#[test]
fn a_budget_the_batch_fits_in_costs_it_no_time() {
    let api = FakeApi::new(50.0, 50.0, 1_000.0);
    let mut sim = Sim::with_rows(rows_costing(&[5; 2000]), Some(10_000), api, NO_FAULTS, 1);
    assert!(sim.run_until(600_000.0));
    let took = sim.now - START;
    let ideal = (2000.0 - 50.0) / 50.0 * 1000.0;
    assert!(took < ideal * 1.15, "{took} ms against {ideal}");
    assert_eq!(sim.engine.tally().count(RowState::Completed), 2000);
    assert_eq!(sim.engine.spending().reserved, 0);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// However slowly the store commits, the records in memory stay bounded, every row
    /// ends with one run, and the store has every row's records at the end.
    #[test]
    fn any_store_speed_keeps_outputs_in_memory_bounded_and_one_run_per_row(
        seed in any::<u64>(),
        rows in 1usize..400,
        store_ms_per_output in 0.0f64..200.0,
        per_sec in 5.0f64..100.0,
        run_ms in 100.0f64..3_000.0,
        read_failure in 0.0f64..0.2,
        reload_after in proptest::option::of(0.0f64..20_000.0),
    ) {
        let faults = Faults { read_failure, failed_run: 0.05, ..NO_FAULTS };
        let mut sim = Sim::new(rows, FakeApi::new(per_sec, per_sec, run_ms), faults, seed);
        sim.store_ms_per_output = store_ms_per_output;
        sim.reload_at(reload_after);
        prop_assert!(sim.run_until(3_600_000.0), "settled within an hour");
        prop_assert!(sim.most_outputs_in_memory <= OUTPUTS_IN_MEMORY_AT_MOST,
            "{} runs' records in memory", sim.most_outputs_in_memory);
        sim.check_keys_and_runs();
        prop_assert_eq!(sim.api.runs.len(), rows, "one run per row");
        prop_assert!(sim.store.rows.values().all(|r| r.state.is_final() && r.output.len() == r.records));
    }

    /// Whatever the API answers and in whatever order, each row has one key per attempt,
    /// each key one run, and the batch ends with every row final; a reload at any point
    /// changes none of that.
    #[test]
    fn any_interleaving_of_answers_makes_one_run_per_row(
        seed in any::<u64>(),
        rows in 1usize..60,
        server_error in 0.0f64..0.3,
        lost_answer in 0.0f64..0.3,
        unauthorized in 0.0f64..0.05,
        no_retry_after in 0.0f64..1.0,
        read_failure in 0.0f64..0.3,
        burst in 1.0f64..10.0,
        per_sec in 1.0f64..50.0,
        reload_after in proptest::option::of(0.0f64..20_000.0),
    ) {
        let faults = Faults { server_error, lost_answer, refused: 0.0, unauthorized, no_retry_after, read_failure, failed_run: 0.1 };
        let mut sim = Sim::new(rows, FakeApi::new(burst, per_sec, 800.0), faults, seed);
        sim.reload_at(reload_after);
        prop_assert!(sim.run_until(3_600_000.0), "settled within an hour");
        prop_assert!(!sim.sent_before_kept);
        sim.check_keys_and_runs();
        prop_assert!(sim.engine.rows().iter().all(|r| matches!(r.state, RowState::Completed | RowState::Failed)));
        prop_assert_eq!(sim.api.runs.len(), rows, "one run per row");
    }

    /// A cancel at any point ends with every row final and no run left going.
    #[test]
    fn a_cancel_at_any_point_ends_with_every_row_final(
        seed in any::<u64>(),
        rows in 1usize..60,
        cancel_after in 0.0f64..10_000.0,
        server_error in 0.0f64..0.2,
        read_failure in 0.0f64..0.3,
        reload_during_cancel in any::<bool>(),
    ) {
        let faults = Faults { server_error, read_failure, ..NO_FAULTS };
        let mut sim = Sim::new(rows, FakeApi::new(5.0, 5.0, 3_000.0), faults, seed);
        if !sim.run_until(cancel_after) {
            sim.handle(Event::Cancel);
            if reload_during_cancel {
                sim.run_until(cancel_after + 50.0);
                if sim.store.summary.as_ref().is_some_and(|s| s.cancelled) {
                    sim.restore_from_store();
                }
            }
        }
        prop_assert!(sim.run_until(3_600_000.0));
        prop_assert!(sim.engine.rows().iter().all(|r| r.state.is_final()));
        let now = sim.now;
        for row in sim.engine.rows() {
            if let Some(run) = &row.run_id {
                let i = sim.api.index_of(run).unwrap();
                prop_assert!(sim.api.run(i, now).status.is_terminal());
            }
        }
        sim.check_keys_and_runs();
    }
    /// For any budget and worst cases, whatever the API answers and in whatever order,
    /// reloads and a changed budget included, the batch never commits past its budget (what
    /// the API may still charge included) unless the budget was lowered, sends no row for
    /// the first time past it, pauses only before a row that does not fit, and still makes
    /// one run per row and attempt.
    #[test]
    fn no_sequence_of_answers_takes_a_batch_past_its_budget(
        seed in any::<u64>(),
        estimates in proptest::collection::vec(0u64..40, 1..50),
        budget_share in 0.0f64..1.2,
        server_error in 0.0f64..0.3,
        lost_answer in 0.0f64..0.3,
        unauthorized in 0.0f64..0.05,
        read_failure in 0.0f64..0.3,
        failed_run in 0.0f64..0.3,
        burst in 1.0f64..10.0,
        per_sec in 1.0f64..50.0,
        reload_after in proptest::option::of(0.0f64..20_000.0),
        budget_change in proptest::option::of((0.0f64..20_000.0, 0.0f64..1.5)),
        retry_failed in any::<bool>(),
    ) {
        let worst_case: u64 = estimates.iter().sum();
        let share_of = |share: f64| (worst_case as f64 * share) as u64;
        let faults = Faults { server_error, lost_answer, refused: 0.0, unauthorized, no_retry_after: 0.5, read_failure, failed_run };
        let api = FakeApi::new(burst, per_sec, 800.0);
        let mut sim = Sim::with_rows(rows_costing(&estimates), Some(share_of(budget_share)), api, faults, seed);
        sim.reload_at(reload_after);
        if let Some((at, share)) = budget_change
            && !sim.run_until(at)
        {
            sim.handle(Event::SetBudget(Some(share_of(share))));
        }
        let mut retried = !retry_failed;
        loop {
            prop_assert!(sim.run_until_stopped(3_600_000.0), "settled or stopped within an hour");
            // Stopped only at the budget (each pause is checked when it happens).
            if sim.paused_at_budget().is_some() {
                let raised = sim.engine.spending().committed() + worst_case;
                sim.handle(Event::SetBudget(Some(raised)));
                sim.handle(Event::Resume);
                continue;
            }
            prop_assert_eq!(sim.engine.phase(), &Phase::Done);
            if retried {
                break;
            }
            retried = true;
            sim.handle(Event::RetryFailed);
        }
        prop_assert!(!sim.sent_before_kept);
        sim.check_keys_and_runs();
        prop_assert!(sim.engine.rows().iter().all(|r| matches!(r.state, RowState::Completed | RowState::Failed)));
        let attempts: usize = sim.engine.rows().iter().map(|r| r.attempt as usize + 1).sum();
        prop_assert_eq!(sim.api.runs.len(), attempts, "one run per row and attempt");
        prop_assert_eq!(sim.engine.spending().reserved, 0);
        prop_assert_eq!(sim.engine.spending().charged, sim.api.committed(sim.now));
    }
}

/// A save's answer: written, or refused with a full disk.
fn saved_as(written: bool) -> Result<(), crate::model::store_error::StoreError> {
    if written {
        Ok(())
    } else {
        Err(crate::model::store_error::StoreError::Full)
    }
}

#[test]
fn a_batch_started_at_a_pace_learned_before_keeps_it_and_counts_nothing_else() {
    use crate::model::bulk::pacer::LearnedPace;
    let pace = LearnedPace { interval_ms: 25.0 };
    let engine = |pace| {
        Engine::new(
            "0123456789abcdef0123456789abcd01".into(),
            Some("ws".into()),
            ActionId::PremiumSearchPeople,
            vec!["keywords".into()],
            rows(3),
            EngineTime::from_ms(START),
        )
        .with_pace(pace)
    };
    // A chain's next step starts at the pace its step before learned, kept with its summary.
    assert_eq!(engine(Some(pace)).summary().pace, Some(pace));
    // Without one, nothing changes: the pace is learned as before.
    assert_eq!(engine(None).summary().pace, None);
    assert_eq!(
        engine(Some(pace)).summary().to_send,
        engine(None).summary().to_send
    );
}
