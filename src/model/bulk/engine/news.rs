//! What the page is told: where the batch stands, its measures, and the rows that changed.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::Engine;
use crate::model::archive::ForgottenOutput;
use crate::model::bulk::budget::Spending;
use crate::model::bulk::pacer::LearnedPace;
use crate::model::bulk::{BatchRow, Tally};

/// Where the batch as a whole stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    Running,
    /// Stopped by the person (`None`) or by the engine, with the reason.
    Paused(Option<String>),
    /// Cancel asked: nothing more is sent, the runs still going are being cancelled.
    Cancelling,
    /// Every row is final (or, paused, nothing is left to send).
    Done,
}

/// Whether this browser keeps the batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Keeping {
    /// Not written yet: nothing is sent.
    Pending,
    /// Written as of the last save.
    Kept,
    /// The browser keeps nothing (IndexedDB missing or refused at the first write): the batch
    /// lives in this page only.
    Refused,
}

/// What holds the batch back, as the page says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PacedBy {
    /// Submissions wait for the API's rate limit (its tokens, or a 429's wait).
    RateLimit,
    /// Reads and submissions wait for this browser's store to write the records already
    /// received: the computer is slower than the API.
    ThisComputer,
}

impl PacedBy {
    /// What the batch page says while this holds the batch back.
    pub fn sentence(self) -> &'static str {
        match self {
            PacedBy::RateLimit => "paced by the API's rate limit",
            PacedBy::ThisComputer => {
                "paced by this computer: it stores results more slowly than the API sends them"
            }
        }
    }

    /// For `data-paced-by`.
    pub fn as_str(self) -> &'static str {
        match self {
            PacedBy::RateLimit => "rate-limit",
            PacedBy::ThisComputer => "this-computer",
        }
    }
}

/// The measures of a batch's progress that the page shows and the bench reads.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Counters {
    /// When the batch (or its latest resume) started sending, ms since the epoch.
    pub started_at: f64,
    /// Submissions the API accepted since `started_at`.
    pub accepted: usize,
    /// `429` answers so far.
    pub limited: usize,
    /// Status requests so far (list and single runs).
    pub status_requests: usize,
    /// Bytes of those requests' answers.
    pub status_bytes: usize,
    /// Bytes of the finished runs' answers, each counted once: what the results weigh.
    pub result_bytes: usize,
    /// What held the batch back in the last few seconds, if anything did.
    #[serde(default)]
    pub paced_by: Option<PacedBy>,
    /// Time the store spent on the batch's saves (from the save's command to its answer), ms.
    #[serde(default)]
    pub store_busy_ms: f64,
    /// Finished rows whose records those saves wrote.
    #[serde(default)]
    pub outputs_saved: usize,
}

/// Where a batch stands, with the rows that changed since it was last said: what the worker
/// running a batch tells its page (after every change), and what the running tab tells the
/// other tabs showing the batch (after every save).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BatchNews {
    pub batch: String,
    pub phase: Phase,
    pub keeping: Keeping,
    pub cancelled: bool,
    pub counters: Counters,
    pub rows: Vec<BatchRow>,
    /// The credits against the budget (absent from news of workers before budgets).
    #[serde(default)]
    pub spending: Spending,
}

impl Engine {
    pub fn rows(&self) -> &[BatchRow] {
        &self.rows
    }

    pub fn phase(&self) -> &Phase {
        &self.standing.phase
    }

    pub fn keeping(&self) -> Keeping {
        self.standing.keeping
    }

    /// Whether cancel was asked (a finished batch says "cancelled" rather than "done").
    pub fn cancelled(&self) -> bool {
        self.standing.cancelled
    }

    pub fn counters(&self) -> &Counters {
        &self.standing.counters
    }

    /// When the expiry rule forgot the batch's records, as it was opened (`None`: it has not).
    pub fn records_forgotten(&self) -> Option<ForgottenOutput> {
        self.store.expiry.records_forgotten
    }

    pub fn tally(&self) -> &Tally {
        &self.tally
    }

    pub fn pace(&self) -> Option<LearnedPace> {
        self.pacing.pacer.learned()
    }

    /// The credits against the budget.
    pub fn spending(&self) -> &Spending {
        &self.credits.spending
    }

    /// Waiting for the person to sign in again after a 401.
    pub fn awaiting_sign_in(&self) -> bool {
        self.standing.awaiting_sign_in
    }

    /// Whether the engine has nothing more to do: every row final and everything saved.
    pub fn is_settled(&self) -> bool {
        self.standing.phase == Phase::Done
            && self.requests.save_in_flight.is_none()
            && (self.standing.keeping == Keeping::Refused || !self.has_unsaved())
    }

    /// What to tell the tabs that show this batch, with `rows` (as just saved).
    pub fn news(&self, rows: Vec<BatchRow>) -> BatchNews {
        let rows = rows
            .into_iter()
            .map(|row| self.without_kept_records(row))
            .collect();
        self.news_of(rows)
    }

    /// The batch's state with these rows, as they are.
    fn news_of(&self, rows: Vec<BatchRow>) -> BatchNews {
        BatchNews {
            batch: self.id.clone(),
            phase: self.standing.phase.clone(),
            keeping: self.standing.keeping,
            cancelled: self.standing.cancelled,
            counters: self.standing.counters.clone(),
            rows,
            spending: self.credits.spending,
        }
    }

    /// Where the batch stands, with the rows changed since the last call: what the page that
    /// shows a batch run by its worker needs after a change. Once the batch is kept, a finished
    /// row is told once the store has its records (`saved` marks it unshown again then), and
    /// without them: the page never holds records, and an export reads every finished row it
    /// was told of from the store. A batch this browser does not keep lives in memory only, so
    /// its rows go with their records.
    pub fn take_news(&mut self) -> BatchNews {
        let (waiting_for_store, told): (BTreeSet<usize>, BTreeSet<usize>) =
            std::mem::take(&mut self.telling.unshown)
                .into_iter()
                .partition(|&index| {
                    self.standing.keeping == Keeping::Kept && !self.rows[index].output.is_empty()
                });
        self.telling.unshown = waiting_for_store;
        let rows = told
            .into_iter()
            .map(|index| self.rows[index].clone())
            .collect();
        self.news_of(rows)
    }

    /// A row as told to other tabs after a save: once the batch is kept, records are read from
    /// the store (where exports read them), so they are not sent around; until then they go
    /// with the row, as a batch the browser does not keep lives in memory only.
    fn without_kept_records(&self, row: BatchRow) -> BatchRow {
        match self.standing.keeping {
            Keeping::Kept => BatchRow {
                output: Vec::new(),
                ..row
            },
            Keeping::Pending | Keeping::Refused => row,
        }
    }

    /// Takes what the tab running this batch reported: a tab that only shows the batch keeps its
    /// copy up to date this way, and sends nothing.
    pub fn absorb(&mut self, news: BatchNews) {
        if news.batch != self.id {
            return;
        }
        for row in news.rows {
            if let Ok(index) = self.rows.binary_search_by_key(&row.line, |r| r.line) {
                self.tally.remove(&self.rows[index]);
                self.tally.add(&row);
                self.rows[index] = row;
            }
        }
        self.standing.phase = news.phase;
        self.standing.keeping = news.keeping;
        self.standing.cancelled = news.cancelled;
        self.standing.counters = news.counters;
        self.credits.spending = news.spending;
        self.telling.changed = true;
    }

    /// Whether anything the page shows changed since the last call.
    pub fn take_changed(&mut self) -> bool {
        std::mem::take(&mut self.telling.changed)
    }
}
