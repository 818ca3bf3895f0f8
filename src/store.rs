//! The console's store in this browser (IndexedDB, database `console`): bulk batches and their
//! rows, so a batch survives a reload, the submissions the console made, so a run can be run
//! again with changes, and the workspace's runs as this browser saw them (`crate::archive`).
//! Keys are strings and values JSON text; a credential never goes in.
//!
//! Every function answers `Err` with a [`StoreError`] saying why: the browser keeps nothing
//! (IndexedDB missing or refused, as in some private windows), the disk is full, an older
//! console tab holds the store open, …; callers then go on in memory and tell the person its
//! sentence. It works in the page and in the bulk worker (`src/runner.rs`), each with its own
//! connection.

use std::cell::RefCell;

use wasm_bindgen::{JsCast, JsValue, closure::Closure};
use wasm_bindgen_futures::JsFuture;
use web_sys::{IdbDatabase, IdbKeyRange, IdbObjectStore, IdbRequest, IdbTransactionMode};

pub use crate::model::store_error::StoreError;
pub use crate::model::store_table::Listed;
use crate::model::store_table::{RowKey, StoreKey};

mod tables;
pub use tables::*;

const NAME: &str = "console";
/// 1: batches, rows, submissions. 2: runs (the kept history). 3: meta. 4: outputs. 5: the
/// request log. What an older version kept stays as it is.
const VERSION: u32 = 5;
/// Batch summaries by batch id.
pub const BATCHES: &str = "batches";
/// Batch rows by `{batch id}/{line, ten digits}`: a batch's rows are one key range, in order.
pub const ROWS: &str = "rows";
/// What the console submitted, by run id.
pub const SUBMISSIONS: &str = "submissions";
/// The runs this browser saw, by `{workspace}/{run id}` (`model::archive::KeptRun`).
pub const RUNS: &str = "runs";
/// What the console knows about the rest, by `{workspace}/{what}` (the reads of the runs list),
/// and for the whole browser by a name without `/` (the outputs' index and allowance).
pub const META: &str = "meta";
/// Kept runs' outputs, by `{workspace}/{run id}`, within an allowance (`crate::archive`).
pub const OUTPUTS: &str = "outputs";
/// The request log's entries (`model::request_log::Entry`), by `{workspace}/{entry id}`.
pub const LOG: &str = "log";
/// Each entry's answer body (shortened past 64 KB), by the entry's key.
pub const LOG_ANSWERS: &str = "log_answers";
/// The newest long bodies, whole, by `{workspace}/{entry id}/request` or `/answer`.
pub const LOG_WHOLE: &str = "log_whole";
const STORES: [&str; 9] = [
    BATCHES,
    ROWS,
    SUBMISSIONS,
    RUNS,
    META,
    OUTPUTS,
    LOG,
    LOG_ANSWERS,
    LOG_WHOLE,
];

thread_local! {
    static DB: RefCell<Option<IdbDatabase>> = const { RefCell::new(None) };
}

/// Settles when the request does. Listened to at once: a request issued in a transaction may
/// succeed before the code that issued it awaits it.
fn settled(request: &IdbRequest) -> JsFuture {
    JsFuture::from(js_sys::Promise::new(&mut |resolve, reject| {
        request.set_onsuccess(Some(&resolve));
        request.set_onerror(Some(&reject));
    }))
}

/// Resolves with the request's result once it succeeds.
async fn finished(request: &IdbRequest) -> Result<JsValue, JsValue> {
    settled(request).await?;
    request.result()
}

/// What the browser answered, as a [`StoreError`]: a `DOMException`, or the event of a failed
/// request or an aborted transaction, whose target holds the `DOMException`.
impl From<JsValue> for StoreError {
    fn from(answer: JsValue) -> StoreError {
        let exception = match answer.dyn_ref::<web_sys::Event>() {
            Some(event) => event
                .target()
                .and_then(|target| js_sys::Reflect::get(&target, &JsValue::from_str("error")).ok())
                .and_then(|error| error.dyn_into::<web_sys::DomException>().ok()),
            None => answer.dyn_into::<web_sys::DomException>().ok(),
        };
        match exception {
            Some(exception) => StoreError::from_dom(&exception.name(), &exception.message()),
            None => StoreError::Failed("no reason given".to_owned()),
        }
    }
}

async fn database() -> Result<IdbDatabase, StoreError> {
    if let Some(db) = DB.with_borrow(Clone::clone) {
        return Ok(db);
    }
    // `indexedDB` of the global scope: the page's window, or the bulk worker's scope.
    let factory: web_sys::IdbFactory =
        js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("indexedDB"))
            .ok()
            .and_then(|factory| factory.dyn_into().ok())
            .ok_or(StoreError::Unavailable)?;
    // Firefox's private windows (before 115) throw here.
    let request = factory
        .open_with_u32(NAME, VERSION)
        .map_err(|_| StoreError::Unavailable)?;
    // Opening an older version (or none) adds the stores it lacks; a store's values keep their
    // shape across versions, so nothing is rewritten.
    let upgrade = Closure::once_into_js(move |event: web_sys::Event| {
        let db = event
            .target()
            .and_then(|t| t.dyn_into::<IdbRequest>().ok())
            .and_then(|r| r.result().ok())
            .and_then(|r| r.dyn_into::<IdbDatabase>().ok());
        if let Some(db) = db {
            let existing = db.object_store_names();
            for name in STORES {
                if !existing.contains(name) {
                    let _ = db.create_object_store(name);
                }
            }
        }
    });
    request.set_onupgradeneeded(Some(upgrade.unchecked_ref()));
    // A tab holding an older version open that does not close when asked (a console tab of a
    // version before this one) blocks the upgrade: the open waits until that tab goes, as
    // writes then do (a batch stays unsent rather than unsaved).
    let db: IdbDatabase = finished(&request).await?.dyn_into()?;
    keep_open(&db);
    Ok(db)
}

/// Keeps `db` for the next calls, until a console tab of a newer version asks to upgrade it:
/// then it is closed, so that tab is not blocked, and the next call here opens it again (and is
/// told the data is newer, `StoreError::NewerVersion`).
fn keep_open(db: &IdbDatabase) {
    let closing = db.clone();
    let on_version_change = Closure::<dyn Fn()>::new(move || {
        closing.close();
        DB.with_borrow_mut(|kept| {
            if kept.as_ref() == Some(&closing) {
                *kept = None;
            }
        });
    });
    db.set_onversionchange(Some(on_version_change.as_ref().unchecked_ref()));
    on_version_change.forget();
    DB.with_borrow_mut(|kept| *kept = Some(db.clone()));
}

/// Every key that starts with `{prefix}/`: from `{prefix}/` up to `{prefix}0` (`0` follows `/`).
/// A batch's rows, a workspace's kept runs.
fn keys_under(prefix: &str) -> Result<IdbKeyRange, JsValue> {
    IdbKeyRange::bound(
        &JsValue::from_str(&format!("{prefix}/")),
        &JsValue::from_str(&format!("{prefix}0")),
    )
}

/// One change in a [`write`].
pub enum Change {
    Put {
        store: &'static str,
        key: String,
        json: String,
    },
    Delete {
        store: &'static str,
        key: String,
    },
    /// A batch's summary and all its rows.
    DeleteBatch(String),
    /// Every value of `store` whose key starts with `{prefix}/` (a workspace's kept runs).
    DeleteUnder {
        store: &'static str,
        prefix: String,
    },
}

/// Writes the changes in one transaction: all of them, or none. Resolves once they are on disk
/// as far as the browser promises (`complete`).
pub async fn write(changes: Vec<Change>) -> Result<(), StoreError> {
    if changes.is_empty() {
        return Ok(());
    }
    let tx = writing(&database().await?)?;
    commit(&tx, changes).await
}

/// A value read by [`update`]: where, and under which key.
pub struct Read {
    pub store: &'static str,
    pub key: String,
}

/// What an [`update`]'s `decide` makes of the values it read: the changes to write, and what
/// the caller is answered once they are written.
pub struct Decided<T> {
    pub changes: Vec<Change>,
    pub answer: T,
}

impl Decided<()> {
    /// Changes to write, and nothing else to answer.
    pub fn to_write(changes: Vec<Change>) -> Decided<()> {
        Decided {
            changes,
            answer: (),
        }
    }
}

/// Reads values and writes what `decide` makes of them (`None` where there is no value) in one
/// transaction: no other write (another tab, the bulk worker) comes between the read and the
/// write, so two writers merging into the same value both count. The writes are issued from
/// the reads' success, while the transaction is still active (a future's continuation runs in
/// the same microtask checkpoint). `decide`'s error (a value that cannot be written) writes
/// nothing and is answered; otherwise its `answer`, once its changes are written.
pub async fn update<T>(
    reads: Vec<Read>,
    decide: impl FnOnce(Vec<Option<String>>) -> Result<Decided<T>, StoreError>,
) -> Result<T, StoreError> {
    let tx = writing(&database().await?)?;
    let requests = reads
        .iter()
        .map(|read| {
            let request = tx
                .object_store(read.store)?
                .get(&JsValue::from_str(&read.key))?;
            let done = settled(&request);
            Ok((request, done))
        })
        .collect::<Result<Vec<_>, JsValue>>()?;
    let mut values = Vec::with_capacity(requests.len());
    for (request, done) in requests {
        done.await?;
        values.push(request.result()?.as_string());
    }
    // Refused, or nothing to write: the reads' transaction ends by itself (and may have ended
    // already, so waiting for its `complete` could wait for ever).
    let Decided { changes, answer } = decide(values)?;
    if !changes.is_empty() {
        commit(&tx, changes).await?;
    }
    Ok(answer)
}

/// Reads one value and writes the change `change` makes of it (`None` where there is none) in
/// one transaction, as [`update`]; `change`'s error (a value that cannot be written) writes
/// nothing and is answered.
pub async fn update_one(
    read: Read,
    change: impl FnOnce(Option<String>) -> Result<Change, StoreError>,
) -> Result<(), StoreError> {
    update(vec![read], |values| {
        let change = change(values.into_iter().next().flatten())?;
        Ok(Decided::to_write(vec![change]))
    })
    .await
}

/// A read-write transaction over every store.
fn writing(db: &IdbDatabase) -> Result<web_sys::IdbTransaction, JsValue> {
    let names = js_sys::Array::new();
    for name in STORES {
        names.push(&JsValue::from_str(name));
    }
    db.transaction_with_str_sequence_and_mode(&names, IdbTransactionMode::Readwrite)
}

/// Issues the changes in `tx` and resolves once it completes: all of them, or none.
async fn commit(tx: &web_sys::IdbTransaction, changes: Vec<Change>) -> Result<(), StoreError> {
    let issued = changes.into_iter().try_for_each(|change| {
        match change {
            Change::Put { store, key, json } => {
                tx.object_store(store)?
                    .put_with_key(&JsValue::from_str(&json), &JsValue::from_str(&key))?;
            }
            Change::Delete { store, key } => {
                tx.object_store(store)?.delete(&JsValue::from_str(&key))?;
            }
            Change::DeleteBatch(id) => {
                tx.object_store(BATCHES)?.delete(&JsValue::from_str(&id))?;
                tx.object_store(ROWS)?.delete(&keys_under(&id)?.into())?;
            }
            Change::DeleteUnder { store, prefix } => {
                tx.object_store(store)?
                    .delete(&keys_under(&prefix)?.into())?;
            }
        }
        Ok::<(), JsValue>(())
    });
    if let Err(refused) = issued {
        // A request the browser refused (a full disk) must not leave the ones before it to
        // commit: none of the changes, as the caller is told.
        let _ = tx.abort();
        return Err(refused.into());
    }
    // Committed now, not when its requests have run and the page's tasks let it end by itself:
    // a page that goes away (a reload, a closed tab) before then would have the transaction
    // aborted, and these changes lost. A browser without `commit` (before 2021) throws; its
    // transaction still ends by itself. (web-sys marks `commit` deprecated after its WebIDL
    // source; it is in IndexedDB 3.0 and in every current engine.)
    #[allow(deprecated)]
    let _ = tx.commit();
    let done = js_sys::Promise::new(&mut |resolve, reject| {
        tx.set_oncomplete(Some(&resolve));
        tx.set_onerror(Some(&reject));
        tx.set_onabort(Some(&reject));
    });
    JsFuture::from(done).await?;
    Ok(())
}

/// Asks `store` one read-only request and resolves with its result.
async fn ask(
    store: &'static str,
    request: impl FnOnce(&IdbObjectStore) -> Result<IdbRequest, JsValue>,
) -> Result<JsValue, StoreError> {
    let db = database().await?;
    let objects = db.transaction_with_str(store)?.object_store(store)?;
    Ok(finished(&request(&objects)?).await?)
}

/// The texts under `keys` of one store, in their order (`None` where there is none), asked
/// together in one read-only transaction.
pub async fn get_many(
    store: &'static str,
    keys: &[String],
) -> Result<Vec<Option<String>>, StoreError> {
    if keys.is_empty() {
        return Ok(Vec::new());
    }
    let db = database().await?;
    let objects = db.transaction_with_str(store)?.object_store(store)?;
    let requests = keys
        .iter()
        .map(|key| objects.get(&JsValue::from_str(key)))
        .collect::<Result<Vec<_>, JsValue>>()?;
    let mut values = Vec::with_capacity(requests.len());
    for request in requests {
        values.push(finished(&request).await?.as_string());
    }
    Ok(values)
}

/// The text under `key`, if any.
pub async fn get(store: &'static str, key: &str) -> Result<Option<String>, StoreError> {
    let value = ask(store, |objects| objects.get(&JsValue::from_str(key))).await?;
    Ok(value.as_string())
}

/// Every value of `store` whose key starts with `{prefix}/`, in key order, left as the
/// browser's array of JavaScript strings: a caller with many values (a large history) turns
/// them into Rust strings a slice at a time.
pub async fn all_under_unread(
    store: &'static str,
    prefix: &str,
) -> Result<js_sys::Array, StoreError> {
    let range = keys_under(prefix)?;
    let values = ask(store, |objects| objects.get_all_with_key(&range)).await?;
    Ok(js_sys::Array::from(&values))
}

/// How many values of `store` have a key under `{prefix}/`.
pub async fn count_under(store: &'static str, prefix: &str) -> Result<u32, StoreError> {
    let range = keys_under(prefix)?;
    let count = ask(store, |objects| objects.count_with_key(&range)).await?;
    Ok(count.as_f64().unwrap_or_default() as u32)
}

/// The first `count` keys under `{prefix}/`, in key order (the oldest, where keys sort by time).
pub async fn first_keys_under(
    store: &'static str,
    prefix: &str,
    count: u32,
) -> Result<Vec<String>, StoreError> {
    let range = keys_under(prefix)?;
    let keys = ask(store, |objects| {
        objects.get_all_keys_with_key_and_limit(&range, count)
    })
    .await?;
    Ok(strings(keys))
}

/// Every key of a store, in order, without the values.
pub async fn all_keys(store: &'static str) -> Result<Vec<String>, StoreError> {
    Ok(strings(ask(store, IdbObjectStore::get_all_keys).await?))
}

/// A stored value with its key.
pub struct Entry {
    pub key: String,
    pub json: String,
}

/// Every key and value of a store, in key order (one transaction, so the two lists agree).
pub async fn entries(store: &'static str) -> Result<Vec<Entry>, StoreError> {
    let db = database().await?;
    let objects = db.transaction_with_str(store)?.object_store(store)?;
    let keys = objects.get_all_keys()?;
    let values = objects.get_all()?;
    let (keys_done, values_done) = (settled(&keys), settled(&values));
    keys_done.await?;
    values_done.await?;
    Ok(strings(keys.result()?)
        .into_iter()
        .zip(strings(values.result()?))
        .map(|(key, json)| Entry { key, json })
        .collect())
}

/// Every value of a store (the batch summaries: a few per workspace).
pub async fn all(store: &'static str) -> Result<Vec<String>, StoreError> {
    Ok(strings(ask(store, IdbObjectStore::get_all).await?))
}

/// Up to `count` of a batch's rows in line order, from line `first_line` on: a large batch is
/// read a slice at a time.
pub async fn batch_rows_from(
    batch: &str,
    first_line: usize,
    count: u32,
) -> Result<Vec<String>, StoreError> {
    let first = RowKey {
        batch: batch.to_owned(),
        line: first_line,
    };
    let range = IdbKeyRange::bound(
        &JsValue::from_str(&first.text()),
        &JsValue::from_str(&format!("{batch}0")),
    )?;
    let rows = ask(ROWS, |objects| {
        objects.get_all_with_key_and_limit(&range, count)
    })
    .await?;
    Ok(strings(rows))
}

fn strings(array: JsValue) -> Vec<String> {
    js_sys::Array::from(&array)
        .iter()
        .filter_map(|v| v.as_string())
        .collect()
}
