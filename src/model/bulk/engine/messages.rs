//! What goes into the engine (events, the API's answers) and what comes out (commands).

use api_contract::{ActionId, Run};

use crate::model::bulk::{BatchRow, RowError, SavedBatch};

/// How a submission was answered, as the engine needs to know it.
#[derive(Clone, Debug, PartialEq)]
pub enum SubmitAnswer {
    /// 200 or 202 with the run.
    Accepted(Run),
    /// 429, with the seconds the API asked to wait.
    RateLimited { retry_after: Option<f64> },
    /// 401: wait for the person to sign in again, then send the row again with its key.
    Unauthorized,
    /// 409 `insufficient_credits`, with the API's message.
    InsufficientCredits { message: Option<String> },
    /// A 5xx or no answer: try again later with the same key.
    Transient,
    /// Any other refusal (400, 403, an answer that is not the contract's): the row fails.
    Refused(RowError),
}

/// How a status read (the run list or one run) was answered.
#[derive(Clone, Debug, PartialEq)]
pub enum ReadAnswer<T> {
    Read {
        value: T,
        /// The answer's size, for choosing between list and single reads.
        bytes: usize,
    },
    Unauthorized,
    /// 404: the run is gone (the workspace's runs were reset).
    NotFound,
    /// Anything else: try again at the next round.
    Failed,
}

/// How a cancel was answered.
#[derive(Clone, Debug, PartialEq)]
pub enum CancelAnswer {
    Cancelled(Run),
    /// 409: the run finished meanwhile.
    AlreadyFinished,
    Unauthorized,
    Failed,
}

/// Something that happened to the batch.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// Time passed (the driver's timer).
    Tick,
    /// The workspace the batch runs in became known.
    WorkspaceKnown(String),
    /// A credential is there again after a 401.
    SignedIn,
    Pause,
    Resume,
    Cancel,
    RetryFailed,
    Submitted {
        row: usize,
        key: String,
        answer: SubmitAnswer,
    },
    RunListRead(ReadAnswer<Vec<Run>>),
    RunRead {
        row: usize,
        answer: ReadAnswer<Run>,
    },
    CancelAnswered {
        row: usize,
        answer: CancelAnswer,
    },
    /// The save asked for last was written (`true`) or refused.
    Saved(Result<(), crate::model::store_error::StoreError>),
    /// The person set the batch's credit budget (`None`: none). It does not resume a batch
    /// paused at the budget: Resume does, and pauses again at once if it is still too small.
    SetBudget(Option<u64>),
}

/// A run this batch made, for the store of submissions ("Run again with changes").
#[derive(Clone, Debug, PartialEq)]
pub struct NewRun {
    pub run_id: String,
    pub body: String,
}

/// What to write to this browser's store in one transaction.
#[derive(Clone, Debug, PartialEq)]
pub struct Saving {
    pub summary: SavedBatch,
    pub rows: Vec<BatchRow>,
    pub new_runs: Vec<NewRun>,
}

/// What the driver does next.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Submit {
        row: usize,
        action: ActionId,
        key: String,
        body: String,
    },
    ReadRunList,
    ReadRun {
        row: usize,
        run_id: String,
    },
    CancelRun {
        row: usize,
        run_id: String,
    },
    /// Boxed: a summary is larger than every other command.
    Save(Box<Saving>),
    RefreshWorkspace,
}
