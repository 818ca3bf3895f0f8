//! The request log in this browser (`model::request_log` is what an entry is).
//!
//! A [`RequestLogger`] hears every exchange of the clients it is attached to (the page's, per
//! credential; the bulk worker's) and hands them at once to the function that keeps them under
//! the workspace, one write at a time (`model::log_queue` decides what each carries). The
//! workspace is learned from the answer to `GET /v1/workspace` (the page) or told (the worker);
//! exchanges made before it is known wait in memory, and go with the logger when the
//! credential was refused. As the page goes away, [`RequestLogger::leaving`] writes what has not
//! been written yet in a transaction committed at once. The functions below it keep, list, read
//! and clear the log in the store, and honour the person's switch to stop keeping it.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use crate::api::ExchangeObserver;
use crate::model::expiry::ForgetAfter;
use crate::model::log_queue::{LogQueue, LogWrite, WriteFound, WriteMode};
use crate::model::request_log::{
    Entry, Exchange, Heard, KEPT_ENTRIES, KeptBody, Origin, WHOLE_BODIES_KEPT,
};
pub use crate::model::store_table::WholeBody;
use crate::model::store_table::{FactKey, LogKey, WholeBodyKey, WorkspaceFact};
use crate::store::{
    self, Change, Decided, Keyed, LOG_ANSWER_BODIES, LOG_ENTRIES, LOG_PAUSED, LOG_WHOLE_BODIES,
    StoreError,
};

/// Keeps exchanges under a workspace: [`keep`] in the worker, the same through the pages' chunk
/// in the page (`pages::lazy::keep_log`, handed to `Session::provide` by the app), so the
/// store's code stays out of the first load.
/// `Err`: the store refused the write; `Ok(WriteFound::Failed)`: the code that writes did not
/// arrive, and nothing was written.
pub type Keeper = fn(
    LogWrite,
    Origin,
    WriteMode,
) -> Pin<Box<dyn Future<Output = Result<WriteFound, StoreError>>>>;

/// Tells how a write of the log under a workspace went (`Ok` after a refusal: it is kept again),
/// so a refusal reaches the person; given by who made the logger (the page's: `state::session`).
pub type RefusalTeller = Arc<dyn Fn(&str, Result<(), StoreError>) + Send + Sync>;

/// Collects one credential's (or the worker's) exchanges for the log. Clones share the same
/// collection.
#[derive(Clone)]
pub struct RequestLogger {
    queue: Arc<Mutex<LogQueue>>,
    origin: Origin,
    keeper: Keeper,
    /// None in the worker: its keeper hands the writes to the batch's writer, which tells the
    /// page of a refusal itself.
    refusals: Option<RefusalTeller>,
}

impl PartialEq for RequestLogger {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.queue, &other.queue)
    }
}

impl Eq for RequestLogger {}

impl RequestLogger {
    pub fn new(origin: Origin, keeper: Keeper) -> Self {
        RequestLogger {
            queue: Arc::default(),
            origin,
            keeper,
            refusals: None,
        }
    }

    /// The same logger, telling how each write went to `refusals`.
    pub fn telling(self, refusals: RefusalTeller) -> Self {
        RequestLogger {
            refusals: Some(refusals),
            ..self
        }
    }

    /// What the keeper found, once told to whoever listens for refusals.
    fn told(
        refusals: Option<&RefusalTeller>,
        workspace: &str,
        kept: Result<WriteFound, StoreError>,
    ) -> WriteFound {
        if let Some(tell) = refusals {
            tell(workspace, kept.as_ref().map(|_| ()).map_err(Clone::clone));
        }
        kept.unwrap_or(WriteFound::Failed)
    }

    /// From now on, exchanges are kept under `workspace` (with those waiting for it).
    pub fn workspace_known(&self, workspace: String) {
        if let Ok(mut queue) = self.queue.lock() {
            queue.workspace_known(workspace);
        }
        self.write_next();
    }

    /// Stops logging for good, dropping what waits to be written: at sign-out.
    pub fn close(&self) {
        if let Ok(mut queue) = self.queue.lock() {
            queue.close();
        }
    }

    /// Resolves once no write of this logger is under way (after [`RequestLogger::close`],
    /// none starts again): forgetting the workspace waits for it.
    pub async fn settled(&self) {
        while self.queue.lock().is_ok_and(|queue| queue.is_writing()) {
            crate::browser::sleep(std::time::Duration::from_millis(20)).await;
        }
    }

    /// What an `ApiClient` calls with each exchange.
    pub fn observer(&self) -> ExchangeObserver {
        let logger = self.clone();
        Arc::new(move |exchange: Exchange| logger.heard(exchange))
    }

    fn heard(&self, exchange: Exchange) {
        if let Ok(mut queue) = self.queue.lock() {
            queue.heard(exchange, uuid::Uuid::new_v4().as_u128() as u32);
        }
        self.write_next();
    }

    /// Starts the next write, unless one is under way: one at a time, so writes never pile up
    /// behind a slow store (what arrives meanwhile goes with the next one). It starts in a task
    /// of its own, so the exchanges of one turn of the page go together.
    fn write_next(&self) {
        let Some(write) = self.queue.lock().ok().and_then(|mut q| q.next_write()) else {
            return;
        };
        let logger = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let workspace = write.workspace.clone();
            let kept = (logger.keeper)(write, logger.origin, WriteMode::Checked).await;
            let found = Self::told(logger.refusals.as_ref(), &workspace, kept);
            if let Ok(mut queue) = logger.queue.lock() {
                queue.written(found);
            }
            logger.write_next();
        });
    }

    /// The page is going away (`pagehide`): writes every exchange not known to be written, in a
    /// transaction committed before the page goes (`WriteMode::Leaving`), when the last write
    /// found the log kept. An exchange the write under way carries too is written under the
    /// same entry id, so it is kept once. Should the page stay (the browser's back-forward
    /// cache), the writes go on as before.
    pub fn leaving(&self) {
        let Some(write) = self.queue.lock().ok().and_then(|q| q.leaving()) else {
            return;
        };
        // The write's transaction is made and committed in this task's microtasks, which run
        // before the page goes; what it answers later nobody hears.
        let (keeper, origin, refusals) = (self.keeper, self.origin, self.refusals.clone());
        wasm_bindgen_futures::spawn_local(async move {
            // Told, should the page stay; nobody is left to read what it found.
            let workspace = write.workspace.clone();
            let kept = keeper(write, origin, WriteMode::Leaving).await;
            Self::told(refusals.as_ref(), &workspace, kept);
        });
    }
}

/// The meta key of a workspace's "stop keeping the request log" switch (set: not kept).
fn paused_key(workspace: &str) -> FactKey {
    FactKey {
        workspace: workspace.to_owned(),
        fact: WorkspaceFact::LogPaused,
    }
}

/// The read of the workspace's switch, for a writer that reads it in its own transaction
/// before [`entry_changes`] (a value there: not kept).
pub fn paused_read(workspace: &str) -> store::Read {
    LOG_PAUSED.read(&paused_key(workspace))
}

fn log_key(workspace: &str, entry_id: &str) -> LogKey {
    LogKey {
        workspace: workspace.to_owned(),
        id: entry_id.to_owned(),
    }
}

/// Keeps the exchanges in the workspace's log, unless the person stopped it (the switch is read
/// in the write's transaction); then, for a [`WriteMode::Checked`] write, drops the oldest
/// entries past [`KEPT_ENTRIES`] and the oldest whole bodies past [`WHOLE_BODIES_KEPT`]. A
/// [`WriteMode::Leaving`] write reads nothing: its transaction is committed as it is made, as
/// the page goes. A store that refuses loses the entries, never the page's work; the refusal is
/// answered (the logger tells it: [`RequestLogger::telling`]).
pub async fn keep(
    write: LogWrite,
    origin: Origin,
    mode: WriteMode,
) -> Result<WriteFound, StoreError> {
    let LogWrite { workspace, heard } = write;
    match mode {
        WriteMode::Leaving => {
            store::write(entry_changes(&workspace, heard, origin)).await?;
            Ok(WriteFound::Kept)
        }
        WriteMode::Checked => {
            let found = store::update(vec![paused_read(&workspace)], |switch| {
                Ok(if switch.first().is_some_and(Option::is_some) {
                    Decided {
                        changes: Vec::new(),
                        answer: WriteFound::Stopped,
                    }
                } else {
                    Decided {
                        changes: entry_changes(&workspace, heard, origin),
                        answer: WriteFound::Kept,
                    }
                })
            })
            .await?;
            if found == WriteFound::Kept {
                trim(&workspace, TrimPace::Page).await?;
            }
            Ok(found)
        }
    }
}

/// What a refused [`keep`] or [`trim`] leaves, as `state::refusals` tells it.
pub const LOG_NOT_KEPT: &str = "The latest requests were not kept in this browser's request \
    log (or its oldest entries were not dropped).";

/// The changes that add the exchanges to the workspace's log, each under the entry id it was
/// heard with: for a writer that puts them in a transaction with other changes (the bulk
/// worker's), after it read [`paused_read`]. An exchange that cannot be written is left out.
pub fn entry_changes(workspace: &str, heard: Vec<Heard>, origin: Origin) -> Vec<Change> {
    let mut changes = Vec::with_capacity(heard.len() * 3);
    for Heard { entry_id, exchange } in heard {
        let key = log_key(workspace, &entry_id);
        let recorded = exchange.recorded(entry_id, origin);
        let (Ok(entry), Ok(answer)) = (
            LOG_ENTRIES.put_change(&key, &recorded.entry),
            LOG_ANSWER_BODIES.put_change(&key, &recorded.answer),
        ) else {
            continue;
        };
        for (which, whole) in [
            (WholeBody::Request, recorded.whole_request),
            (WholeBody::Answer, recorded.whole_answer),
        ] {
            if let Some(text) = whole {
                let whole_key = WholeBodyKey {
                    entry: key.clone(),
                    which,
                };
                changes.extend(LOG_WHOLE_BODIES.put_change(&whole_key, &text));
            }
        }
        changes.push(answer);
        changes.push(entry);
    }
    changes
}

/// Entries (and whole bodies) a trim drops at most. A log far past its limit (a store that fell
/// behind a fast batch's requests) is brought back over several trims, each holding a bounded
/// list of keys, rather than by one that lists them all.
const TRIM_ENTRIES_AT_MOST: usize = 1_000;

/// Who trims, and so how its deletes are sliced into transactions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrimPace {
    /// The page, on its main thread: small transactions, a task apart.
    Page,
    /// The bulk worker: nothing to draw, and its log grows with a batch's requests.
    Worker,
}

impl TrimPace {
    /// The most deletes issued in one transaction: a multiple of an entry's four, so an entry
    /// goes with its bodies. The page's 40 take about 10 ms of its main thread at 4× CPU
    /// throttling; a page's trim while a bulk batch's worker logs deletes what the worker
    /// logged past the limit since its own last trim (up to 400 keys), and issued in one task,
    /// 2,000 of them kept the page's main thread busy for 300 ms and more at 4×.
    fn changes_at_once(self) -> usize {
        match self {
            TrimPace::Page => 40,
            TrimPace::Worker => 400,
        }
    }
}

/// Drops the oldest entries past [`KEPT_ENTRIES`] and the oldest whole bodies past
/// [`WHOLE_BODIES_KEPT`], [`TRIM_ENTRIES_AT_MOST`] of each at a time.
pub async fn trim(workspace: &str, pace: TrimPace) -> Result<(), StoreError> {
    let mut changes = Vec::new();
    let kept = LOG_ENTRIES.count_under(workspace).await? as usize;
    if kept > KEPT_ENTRIES {
        let past = (kept - KEPT_ENTRIES).min(TRIM_ENTRIES_AT_MOST);
        let oldest = LOG_ENTRIES.first_keys_under(workspace, past as u32).await?;
        for entry in oldest {
            for which in [WholeBody::Request, WholeBody::Answer] {
                changes.push(LOG_WHOLE_BODIES.delete_change(&WholeBodyKey {
                    entry: entry.clone(),
                    which,
                }));
            }
            changes.push(LOG_ANSWER_BODIES.delete_change(&entry));
            changes.push(LOG_ENTRIES.delete_change(&entry));
        }
    }
    let whole = LOG_WHOLE_BODIES.count_under(workspace).await? as usize;
    if whole > WHOLE_BODIES_KEPT {
        let past = (whole - WHOLE_BODIES_KEPT).min(TRIM_ENTRIES_AT_MOST);
        let oldest = LOG_WHOLE_BODIES
            .first_keys_under(workspace, past as u32)
            .await?;
        changes.extend(oldest.iter().map(|key| LOG_WHOLE_BODIES.delete_change(key)));
    }
    write_in_slices(changes, pace.changes_at_once()).await
}

/// Writes `changes` in transactions of `at_once`, yielding between them. A slice that fails
/// stops the trim: the entries left go at the next one.
async fn write_in_slices(changes: Vec<Change>, at_once: usize) -> Result<(), StoreError> {
    let mut changes = changes.into_iter().peekable();
    while changes.peek().is_some() {
        store::write(changes.by_ref().take(at_once).collect()).await?;
        if changes.peek().is_some() {
            crate::browser::sleep(std::time::Duration::ZERO).await;
        }
    }
    Ok(())
}

/// Whether the workspace's requests are being kept (they are, unless the person stopped it).
pub async fn is_keeping(workspace: &str) -> bool {
    // A switch that does not read back (damaged) is still set: not kept.
    !matches!(
        LOG_PAUSED.get(&paused_key(workspace)).await,
        Ok(Some(_)) | Err(StoreError::Damaged)
    )
}

/// Starts or stops keeping the workspace's requests.
pub async fn set_keeping(workspace: &str, keeping: bool) -> Result<(), StoreError> {
    let key = paused_key(workspace);
    if keeping {
        store::write(vec![LOG_PAUSED.delete_change(&key)]).await
    } else {
        LOG_PAUSED.put(&key, &true).await
    }
}

/// The workspace's entries, oldest first; `Err` when the browser keeps nothing. An entry that
/// does not read back (damaged) is left out (`LOG_ENTRIES.all_under` counts them).
pub async fn entries(workspace: &str) -> Result<Vec<Entry>, StoreError> {
    Ok(LOG_ENTRIES.all_under(workspace).await?.items)
}

/// One entry and its answer's body, if kept. An answer body that does not read back is shown
/// empty (the entry's own fields still are).
pub async fn entry(workspace: &str, id: &str) -> Result<Option<(Entry, KeptBody)>, StoreError> {
    let key = log_key(workspace, id);
    let Some(entry) = LOG_ENTRIES.get(&key).await? else {
        return Ok(None);
    };
    let answer = LOG_ANSWER_BODIES
        .get(&key)
        .await
        .or_else(|error| match error {
            StoreError::Damaged => Ok(None),
            error => Err(error),
        })?
        .unwrap_or(KeptBody {
            text: String::new(),
            whole_bytes: 0,
        });
    Ok(Some((entry, answer)))
}

/// A long body kept whole, if it still is (only the newest are).
pub async fn whole_body(workspace: &str, id: &str, which: WholeBody) -> Option<String> {
    let key = WholeBodyKey {
        entry: log_key(workspace, id),
        which,
    };
    LOG_WHOLE_BODIES.get(&key).await.ok().flatten()
}

/// Deletes the workspace's log (the switch stays as it is).
pub async fn clear(workspace: &str) -> Result<(), StoreError> {
    store::write(forget_changes(workspace)).await
}

/// The changes that delete the workspace's log, for [`clear`] and for forgetting a workspace.
pub fn forget_changes(workspace: &str) -> Vec<Change> {
    vec![
        LOG_ENTRIES.delete_under_change(workspace),
        LOG_ANSWER_BODIES.delete_under_change(workspace),
        LOG_WHOLE_BODIES.delete_under_change(workspace),
    ]
}

/// The request log's bodies an expiry rule drops: entries, and their bodies' bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BodiesFreed {
    pub entries: usize,
    pub bytes: u64,
}

/// The log's entries (all workspaces) older than the rule's days at `now` whose bodies are still
/// kept, oldest first.
async fn entries_with_old_bodies(
    rule: ForgetAfter,
    now: f64,
) -> Result<Vec<Keyed<LogKey, Entry>>, StoreError> {
    let Some(cutoff) = rule.cutoff(now) else {
        return Ok(Vec::new());
    };
    Ok(LOG_ENTRIES
        .entries()
        .await?
        .items
        .into_iter()
        .filter(|entry| {
            (entry.value.at.timestamp_millis() as f64) < cutoff
                && entry.value.bodies_forgotten_after_days.is_none()
        })
        .collect())
}

fn body_bytes(entry: &Entry) -> u64 {
    let request = entry.request_body.as_ref().map_or(0, |b| b.whole_bytes);
    (request + entry.answer_bytes) as u64
}

/// What the rule would drop from the log at `now` (for `/storage` to say).
pub async fn bodies_older_than(rule: ForgetAfter, now: f64) -> Result<BodiesFreed, StoreError> {
    let old = entries_with_old_bodies(rule, now).await?;
    Ok(BodiesFreed {
        entries: old.len(),
        bytes: old.iter().map(|entry| body_bytes(&entry.value)).sum(),
    })
}

/// Entries whose bodies are dropped in one transaction, at most.
const FORGET_BODIES_SLICE: usize = 500;

/// Drops the bodies of the log's entries older than the rule's days at `now` (the request's,
/// the answer's, the whole ones): each entry stays, with method, path, status and times, marked
/// (`Entry::bodies_forgotten_after_days`), which `/log` explains. Part of
/// `archive::forget_outputs_older_than`, the one place the rule is applied. Each slice is read
/// again in its transaction, so an entry trimmed meanwhile is not written back.
pub async fn forget_bodies_older_than(
    rule: ForgetAfter,
    now: f64,
) -> Result<BodiesFreed, StoreError> {
    let Some(days) = rule.0 else {
        return Ok(BodiesFreed::default());
    };
    let old = entries_with_old_bodies(rule, now).await?;
    let mut freed = BodiesFreed::default();
    for slice in old.chunks(FORGET_BODIES_SLICE) {
        let keys: Vec<LogKey> = slice.iter().map(|entry| entry.key.clone()).collect();
        let reads = keys.iter().map(|key| LOG_ENTRIES.read(key)).collect();
        let decide = |values: Vec<Option<String>>| {
            let mut changes = Vec::new();
            let mut slice_freed = BodiesFreed::default();
            for (key, value) in keys.iter().zip(values) {
                // Trimmed meanwhile, or damaged: left as it is.
                let Some(mut entry) = LOG_ENTRIES.decode_read(value.as_deref()).ok().flatten()
                else {
                    continue;
                };
                if entry.bodies_forgotten_after_days.is_some() {
                    continue;
                }
                slice_freed.entries += 1;
                slice_freed.bytes += body_bytes(&entry);
                entry.request_body = None;
                entry.bodies_forgotten_after_days = Some(days);
                changes.push(LOG_ENTRIES.put_change(key, &entry)?);
                changes.push(LOG_ANSWER_BODIES.delete_change(key));
                for which in [WholeBody::Request, WholeBody::Answer] {
                    changes.push(LOG_WHOLE_BODIES.delete_change(&WholeBodyKey {
                        entry: key.clone(),
                        which,
                    }));
                }
            }
            Ok(Decided {
                changes,
                answer: slice_freed,
            })
        };
        let slice_freed = store::update(reads, decide).await?;
        freed.entries += slice_freed.entries;
        freed.bytes += slice_freed.bytes;
    }
    Ok(freed)
}
