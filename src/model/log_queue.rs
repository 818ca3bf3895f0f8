//! What a request logger has heard and not yet written, as data: when it writes, what each write
//! carries, and what the page writes as it goes away (`request_log::RequestLogger` does the I/O).
//!
//! An exchange stays here until a write that carried it has finished, so that a page that goes
//! away while a write is under way (its transaction not committed yet, and so never) still has
//! it to write; its entry id was given when it was heard (`Heard`), so an exchange written by
//! both keeps one entry.

use std::collections::{BTreeSet, HashMap};

use api_contract::Workspace;

use super::request_log::{Exchange, Heard};

/// Exchanges held while the workspace is not known yet (a credential being checked); past
/// this, the oldest go.
pub const WAITING_AT_MOST: usize = 100;

/// How a keeper writes exchanges in the log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteMode {
    /// Reads the person's switch in the write's own transaction (nothing is written while the
    /// log is stopped), then drops the oldest entries past the log's limit.
    Checked,
    /// The page is going away (`pagehide`): one transaction, created and committed before any
    /// read could answer (a page that is going gets no more answers), without reading the
    /// switch: only asked for when the last write found the log kept.
    Leaving,
}

/// What a write found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteFound {
    /// The log is kept, and the exchanges are in it.
    Kept,
    /// The person stopped the log: nothing was written.
    Stopped,
    /// Nothing was written: the store refused, or the code that writes did not arrive.
    Failed,
}

/// A write to make: the exchanges, and the workspace whose log they go in.
#[derive(Clone, Debug, PartialEq)]
pub struct LogWrite {
    pub workspace: String,
    pub heard: Vec<Heard>,
}

/// One logger's exchanges between hearing and writing.
#[derive(Debug, Default)]
pub struct LogQueue {
    workspace: Option<String>,
    /// Heard and not written yet, oldest first: those the write under way carries first.
    unwritten: Vec<Heard>,
    /// How many of `unwritten` the write under way carries; `None`: no write is under way.
    in_write: Option<usize>,
    /// Whether the last write that reached the store found the log kept.
    found_kept: bool,
    /// Signed out: nothing more is kept, not even what was waiting (a workspace forgotten at
    /// sign-out stays forgotten).
    closed: bool,
}

impl LogQueue {
    /// From now on, exchanges go in `workspace`'s log (with those waiting for it).
    pub fn workspace_known(&mut self, workspace: String) {
        self.workspace = Some(workspace);
    }

    /// Takes an exchange, under the entry id made from its time and `random`. An answer of
    /// `GET /v1/workspace` names the workspace.
    pub fn heard(&mut self, exchange: Exchange, random: u32) {
        if self.closed {
            return;
        }
        let workspace_route = api_contract::Endpoint::GetWorkspace;
        if exchange.status == Some(200)
            && exchange.method == workspace_route.method().as_str()
            && exchange.path == workspace_route.path()
            && let Ok(workspace) = serde_json::from_str::<Workspace>(&exchange.answer)
        {
            self.workspace = Some(workspace.workspace_id);
        }
        self.unwritten.push(Heard::new(exchange, random));
        if self.workspace.is_none() && self.unwritten.len() > WAITING_AT_MOST {
            self.unwritten.remove(0);
        }
    }

    /// Stops for good, dropping what waits to be written: at sign-out.
    pub fn close(&mut self) {
        self.closed = true;
        self.unwritten.clear();
    }

    /// The next write, if one is due: everything heard, when no write is under way, the
    /// workspace is known and the logger open. The exchanges stay until [`LogQueue::written`].
    pub fn next_write(&mut self) -> Option<LogWrite> {
        if self.in_write.is_some() || self.closed || self.unwritten.is_empty() {
            return None;
        }
        let workspace = self.workspace.clone()?;
        self.in_write = Some(self.unwritten.len());
        Some(LogWrite {
            workspace,
            heard: self.unwritten.clone(),
        })
    }

    /// The write under way finished: what it carried is done with (a refused write's exchanges
    /// are not written again: the page's work goes on, the refusal is told).
    pub fn written(&mut self, found: WriteFound) {
        let carried = self.in_write.take().unwrap_or_default();
        self.unwritten.drain(..carried.min(self.unwritten.len()));
        match found {
            WriteFound::Kept => self.found_kept = true,
            WriteFound::Stopped => self.found_kept = false,
            // The switch was not read: what the last write found still stands.
            WriteFound::Failed => {}
        }
    }

    /// Whether a write is under way.
    pub fn is_writing(&self) -> bool {
        self.in_write.is_some()
    }

    /// What the page writes as it goes away: every exchange not known to be written (those of
    /// a write under way too), when the last write found the log kept. Before any write has,
    /// nothing: the switch cannot be read any more, and a stopped log keeps nothing.
    pub fn leaving(&self) -> Option<LogWrite> {
        if self.closed || !self.found_kept || self.unwritten.is_empty() {
            return None;
        }
        Some(LogWrite {
            workspace: self.workspace.clone()?,
            heard: self.unwritten.clone(),
        })
    }
}

/// Entries the bulk worker logs into a workspace's log before it trims the log back to its
/// limit: trimming counts the whole log, so it is done once in a while rather than at every
/// write. Not much more often than that: the page's own keeper trims the same log after its
/// requests, on the main thread, and deletes whatever the worker logged past the limit since its
/// last trim (at 500, up to 2,000 keys a time, 300 ms and more of the page's main thread at 4×
/// CPU throttling).
pub const TRIM_EVERY_ENTRIES: usize = 100;

/// When the bulk worker trims the request log: after every [`TRIM_EVERY_ENTRIES`] entries it
/// wrote into a workspace's log, and one trim at a time. Trims that overlapped (each started
/// after a write, while the one before was still deleting) each listed the same oldest keys
/// again: with a store slower than a batch's requests they piled up, with their lists, until the
/// worker's memory passed a gigabyte. A trim due while one runs waits for it, and is made once
/// however often it came due meanwhile.
#[derive(Debug, Default)]
pub struct TrimSchedule {
    /// Entries written since the workspace's log was last trimmed.
    since_trim: HashMap<String, usize>,
    /// Workspaces whose log is due a trim, after the one under way.
    due: BTreeSet<String>,
    /// A trim is under way.
    trimming: bool,
}

impl TrimSchedule {
    /// A write put `entries` into `workspace`'s log.
    pub fn written(&mut self, workspace: &str, entries: usize) {
        let since = self.since_trim.entry(workspace.to_owned()).or_default();
        *since += entries;
        if *since >= TRIM_EVERY_ENTRIES {
            *since = 0;
            self.due.insert(workspace.to_owned());
        }
    }

    /// The workspace whose log to trim now, if one is due and no trim is under way; the trim
    /// is under way until [`TrimSchedule::finished`].
    pub fn start_next(&mut self) -> Option<String> {
        if self.trimming {
            return None;
        }
        let workspace = self.due.pop_first()?;
        self.trimming = true;
        Some(workspace)
    }

    /// The trim under way has ended (done or refused).
    pub fn finished(&mut self) {
        self.trimming = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trim_comes_due_every_so_many_entries_and_never_runs_beside_another() {
        let mut schedule = TrimSchedule::default();
        schedule.written("ws_a", TRIM_EVERY_ENTRIES - 1);
        assert_eq!(schedule.start_next(), None);
        schedule.written("ws_a", 1);
        assert_eq!(schedule.start_next().as_deref(), Some("ws_a"));
        // Due again, several times over, while the first runs: none starts beside it.
        for _ in 0..5 {
            schedule.written("ws_a", TRIM_EVERY_ENTRIES);
            assert_eq!(schedule.start_next(), None);
        }
        schedule.finished();
        // Then one trim for all of that, and nothing after it.
        assert_eq!(schedule.start_next().as_deref(), Some("ws_a"));
        schedule.finished();
        assert_eq!(schedule.start_next(), None);
    }

    #[test]
    fn each_workspace_is_trimmed_in_turn() {
        let mut schedule = TrimSchedule::default();
        schedule.written("ws_b", TRIM_EVERY_ENTRIES);
        schedule.written("ws_a", TRIM_EVERY_ENTRIES);
        let first = schedule.start_next().expect("one due");
        schedule.written("ws_a", 3);
        schedule.finished();
        let second = schedule.start_next().expect("the other due");
        assert_ne!(first, second);
        schedule.finished();
        assert_eq!(schedule.start_next(), None);
    }

    fn exchange(path: &str, answer: &str) -> Exchange {
        Exchange {
            at: "2026-11-28T10:00:00Z".parse().unwrap(),
            duration_ms: 12,
            method: "GET".into(),
            base_url: String::new(),
            path: path.into(),
            idempotency_key: None,
            request_body: None,
            status: Some(200),
            network_error: None,
            request_id: Some("req_1".into()),
            answer: answer.into(),
        }
    }

    const WORKSPACE: &str = r#"{"workspace_id":"ws_acme","name":"Acme","credits_balance":10,"credits_reserved":0,"usage_today":{"profiles":0,"premium_lines":0}}"#;

    fn paths(write: &LogWrite) -> Vec<&str> {
        write
            .heard
            .iter()
            .map(|h| h.exchange.path.as_str())
            .collect()
    }

    /// A queue whose workspace is known and whose first write found the log kept.
    fn kept_queue() -> LogQueue {
        let mut queue = LogQueue::default();
        queue.heard(exchange("/v1/workspace", WORKSPACE), 1);
        queue.next_write().expect("the first write");
        queue.written(WriteFound::Kept);
        queue
    }

    #[test]
    fn the_workspace_answer_names_the_workspace_and_the_write_carries_everything_heard() {
        let mut queue = LogQueue::default();
        queue.heard(exchange("/v1/actions", "[]"), 1);
        assert_eq!(queue.next_write(), None, "no workspace yet");
        queue.heard(exchange("/v1/workspace", WORKSPACE), 2);
        let write = queue.next_write().expect("due");
        assert_eq!(write.workspace, "ws_acme");
        assert_eq!(paths(&write), ["/v1/actions", "/v1/workspace"]);
        assert!(queue.is_writing());
    }

    #[test]
    fn one_write_at_a_time_and_what_comes_meanwhile_goes_next() {
        let mut queue = kept_queue();
        queue.heard(exchange("/v1/runs", "{}"), 3);
        let first = queue.next_write().expect("due");
        queue.heard(exchange("/v1/runs/r1", "{}"), 4);
        assert_eq!(queue.next_write(), None, "a write is under way");
        queue.written(WriteFound::Kept);
        let second = queue.next_write().expect("what came meanwhile");
        assert_eq!(paths(&first), ["/v1/runs"]);
        assert_eq!(paths(&second), ["/v1/runs/r1"]);
        queue.written(WriteFound::Kept);
        assert_eq!(queue.next_write(), None, "nothing left");
        assert_eq!(queue.leaving(), None, "nothing left to write on leaving");
    }

    #[test]
    fn leaving_writes_what_a_write_under_way_carries_under_the_same_ids() {
        let mut queue = kept_queue();
        queue.heard(exchange("/v1/runs", "{}"), 3);
        let under_way = queue.next_write().expect("due");
        queue.heard(exchange("/v1/runs/r1", "{}"), 4);
        let leaving = queue.leaving().expect("the log was kept at the last write");
        assert_eq!(paths(&leaving), ["/v1/runs", "/v1/runs/r1"]);
        assert_eq!(
            leaving.heard[0].entry_id, under_way.heard[0].entry_id,
            "the same entry, written twice at most"
        );
    }

    #[test]
    fn leaving_writes_nothing_before_a_write_found_the_log_kept_nor_once_one_found_it_stopped() {
        let mut queue = LogQueue::default();
        queue.workspace_known("ws_acme".into());
        queue.heard(exchange("/v1/runs", "{}"), 1);
        assert_eq!(queue.leaving(), None, "the switch was never read");
        queue.next_write().expect("due");
        queue.written(WriteFound::Failed);
        queue.heard(exchange("/v1/runs", "{}"), 2);
        assert_eq!(queue.leaving(), None, "a failed write read no switch");
        queue.next_write().expect("due");
        queue.written(WriteFound::Kept);
        queue.heard(exchange("/v1/runs", "{}"), 3);
        assert!(queue.leaving().is_some());
        queue.next_write().expect("due");
        queue.written(WriteFound::Stopped);
        queue.heard(exchange("/v1/runs", "{}"), 4);
        assert_eq!(queue.leaving(), None, "the person stopped the log");
    }

    #[test]
    fn closing_drops_what_waits_and_keeps_nothing_more() {
        let mut queue = kept_queue();
        queue.heard(exchange("/v1/runs", "{}"), 3);
        queue.close();
        queue.heard(exchange("/v1/runs", "{}"), 4);
        assert_eq!(queue.next_write(), None);
        assert_eq!(queue.leaving(), None);
    }

    #[test]
    fn while_the_workspace_is_unknown_only_the_newest_wait() {
        let mut queue = LogQueue::default();
        for n in 0..(WAITING_AT_MOST as u32 + 5) {
            queue.heard(exchange(&format!("/v1/runs/r{n}"), "{}"), n);
        }
        queue.workspace_known("ws_acme".into());
        let write = queue.next_write().expect("due");
        assert_eq!(write.heard.len(), WAITING_AT_MOST);
        assert_eq!(write.heard[0].exchange.path, "/v1/runs/r5");
    }

    #[test]
    fn an_entry_id_is_given_when_heard_and_sorts_by_time() {
        let mut queue = LogQueue::default();
        queue.workspace_known("ws_acme".into());
        queue.heard(exchange("/v1/runs", "{}"), 0xabc);
        let write = queue.next_write().expect("due");
        assert_eq!(write.heard[0].entry_id, "1795860000000-00000abc");
    }
}
