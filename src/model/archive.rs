//! The workspace's run history kept in this browser: the API lists only a workspace's latest
//! 100 runs, so every run the console sees (the runs list, a run page, a submission, a bulk
//! batch's reads) is kept here, merged by run id, the state furthest along winning. A kept run
//! holds the run as the API last showed it, without its output (its records are counted), so
//! the history of a busy workspace stays small; never a credential.

use api_contract::{RUN_LIST_LIMIT, Run, RunStatus};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// How often the workspace's runs list is read in the background, at most (any tab).
pub const READ_LIST_EVERY_MS: f64 = 60_000.0;

/// A stretch of time whose runs this browser may have missed: more runs than the API's list
/// holds were made between two reads of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MissedSpan {
    /// The newest run seen by the read before.
    #[serde(with = "api_contract::timestamp")]
    pub after: DateTime<Utc>,
    /// The oldest run of the read that found the gap.
    #[serde(with = "api_contract::timestamp")]
    pub before: DateTime<Utc>,
}

/// What this browser knows of its reads of a workspace's runs list (kept with the history).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ListReads {
    /// When a tab last read the list, ms since the epoch.
    pub last_read_at: f64,
    /// The creation time of the newest run it has listed so far.
    #[serde(default, with = "api_contract::timestamp::option")]
    pub newest: Option<DateTime<Utc>>,
    pub missed: Vec<MissedSpan>,
}

impl ListReads {
    /// Whether the background read is due at `now` (no tab read the list for a while).
    pub fn due(&self, now: f64) -> bool {
        now - self.last_read_at >= READ_LIST_EVERY_MS
    }

    /// After a read at `now` that listed `runs` (the latest, at most the list's length): a full
    /// list whose oldest run is newer than the newest seen before means runs in between were
    /// never listed here.
    pub fn after_read(mut self, runs: &[Run], now: f64) -> ListReads {
        let oldest = runs.iter().map(|r| r.created_at).min();
        if let (Some(after), Some(before)) = (self.newest, oldest)
            && runs.len() >= RUN_LIST_LIMIT
            && before > after
        {
            self.missed.push(MissedSpan { after, before });
        }
        self.newest = runs.iter().map(|r| r.created_at).max().max(self.newest);
        self.last_read_at = now;
        self
    }
}

/// A run as this browser keeps it for a workspace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KeptRun {
    pub workspace: String,
    /// The run as last seen, its output left out.
    pub run: Run,
    /// How many records its output held when last seen with one.
    pub records: usize,
    /// When this browser last saw the run, ms since the epoch.
    pub seen_at: f64,
}

/// Where a listed run comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunSource {
    /// Among the API's latest 100 at the last read.
    Api,
    /// Older than the API's window: only this browser still has it.
    KeptHere,
}

/// The store key of a workspace's kept run: a workspace's runs are one key range.
pub fn kept_run_key(workspace: &str, run_id: &str) -> String {
    format!("{workspace}/{run_id}")
}

/// How far along a run is: a run only moves forward (queued, processing, then one final state).
fn progress(status: RunStatus) -> u8 {
    match status {
        RunStatus::Queued => 0,
        RunStatus::Processing => 1,
        RunStatus::Completed | RunStatus::Failed | RunStatus::Cancelled => 2,
    }
}

impl KeptRun {
    /// `run` as seen now, for `workspace`.
    pub fn seen(workspace: &str, run: &Run, seen_at: f64) -> KeptRun {
        KeptRun {
            workspace: workspace.to_owned(),
            run: Run {
                output: Vec::new(),
                ..run.clone()
            },
            records: run.output.len(),
            seen_at,
        }
    }

    /// This kept run after another sighting of it: the state further along wins, so an answer
    /// that arrives late (a list read before the run finished) never takes a finished run
    /// back; between equals, the later sighting. The record count is kept from a sighting that
    /// had the output when the later one did not (a finished run seen in a list without it).
    pub fn merged(self, later: KeptRun) -> KeptRun {
        let seen_at = self.seen_at.max(later.seen_at);
        let (mut kept, other) = if progress(later.run.status) >= progress(self.run.status) {
            (later, self)
        } else {
            (self, later)
        };
        if kept.records == 0 && other.run.status == kept.run.status {
            kept.records = other.records;
        }
        kept.seen_at = seen_at;
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use api_contract::Completeness;
    use chrono::{TimeZone, Utc};

    fn run(status: RunStatus, records: usize) -> Run {
        Run {
            id: "run_1".into(),
            action: "premium-search-people".into(),
            status,
            output: vec![serde_json::json!({"name": "Ada"}); records],
            credits_used: records as u64,
            credits_reserved: 0,
            created_at: Utc.with_ymd_and_hms(2026, 11, 24, 9, 0, 0).unwrap(),
            completed_at: None,
            completeness: Completeness {
                has_more: false,
                scope: Completeness::SINGLE_PAGE.into(),
            },
            error: None,
        }
    }

    #[test]
    fn a_kept_run_leaves_its_output_out_and_counts_its_records() {
        let kept = KeptRun::seen("ws", &run(RunStatus::Completed, 3), 10.0);
        assert!(kept.run.output.is_empty());
        assert_eq!(kept.records, 3);
        assert_eq!(kept_run_key("ws", "run_1"), "ws/run_1");
    }

    #[test]
    fn the_state_furthest_along_wins_whatever_the_order_of_sightings() {
        let processing = KeptRun::seen("ws", &run(RunStatus::Processing, 0), 20.0);
        let completed = KeptRun::seen("ws", &run(RunStatus::Completed, 5), 10.0);
        // A list read before the run finished answers after its run page did.
        let merged = completed.clone().merged(processing.clone());
        assert_eq!(merged.run.status, RunStatus::Completed);
        assert_eq!(merged.records, 5);
        assert_eq!(merged.seen_at, 20.0);
        assert_eq!(
            processing.merged(completed).run.status,
            RunStatus::Completed
        );
    }

    fn made_at(second: u32) -> Run {
        Run {
            created_at: Utc.with_ymd_and_hms(2026, 11, 24, 9, 0, second).unwrap(),
            ..run(RunStatus::Completed, 0)
        }
    }

    #[test]
    fn a_full_list_newer_than_the_last_read_says_runs_may_be_missing_and_when() {
        let first = ListReads::default().after_read(&[made_at(5), made_at(1)], 1_000.0);
        assert!(
            first.missed.is_empty(),
            "nothing was known before the first read"
        );
        assert_eq!(first.newest, Some(made_at(5).created_at));
        assert!(!first.due(1_000.0 + READ_LIST_EVERY_MS - 1.0));
        assert!(first.due(1_000.0 + READ_LIST_EVERY_MS));

        // The next read lists 100 runs, all made after the newest seen: some may be missing.
        let full: Vec<Run> = (0..RUN_LIST_LIMIT as u32)
            .map(|i| made_at(10 + i % 50))
            .collect();
        let second = first.clone().after_read(&full, 70_000.0);
        assert_eq!(
            second.missed,
            vec![MissedSpan {
                after: made_at(5).created_at,
                before: made_at(10).created_at,
            }]
        );
        assert_eq!(second.last_read_at, 70_000.0);

        // A full list that reaches back to what was seen misses nothing; neither does a short one.
        let mut overlapping = full.clone();
        overlapping[99] = made_at(5);
        assert!(
            first
                .clone()
                .after_read(&overlapping, 70_000.0)
                .missed
                .is_empty()
        );
        assert!(first.after_read(&full[..99], 70_000.0).missed.is_empty());
    }

    #[test]
    fn a_later_sighting_without_the_output_keeps_the_record_count() {
        let with_output = KeptRun::seen("ws", &run(RunStatus::Completed, 7), 10.0);
        let without = KeptRun::seen("ws", &run(RunStatus::Completed, 0), 30.0);
        let merged = with_output.merged(without);
        assert_eq!(merged.records, 7);
        assert_eq!(merged.seen_at, 30.0);
    }
}
