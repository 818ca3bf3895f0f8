//! The workspace's run history kept in this browser: the API lists only a workspace's latest
//! 100 runs, so every run the console sees (the runs list, a run page, a submission, a bulk
//! batch's reads) is kept here, merged by run id, the state furthest along winning. A kept run
//! holds the run as the API last showed it, without its output (its records are counted), so
//! the history of a busy workspace stays small; never a credential.

use std::collections::HashMap;

use api_contract::{RUN_LIST_LIMIT, Run, RunCounted, RunStatus};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

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
    /// What was sent as the run's input, when this console made it (the API does not return
    /// it): searched over on the runs page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Value>,
    /// The `Idempotency-Key` this console sent it with, when it made the run: what a support
    /// person matches against the API's logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
    /// Its kept output was forgotten by the person's rule (`model::expiry`): when, and after how
    /// many days. The run keeps its facts and cost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_forgotten: Option<ForgottenOutput>,
}

/// When a kept run's output was forgotten by the expiry rule, and the rule's days then.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ForgottenOutput {
    /// ms since the epoch.
    pub at: f64,
    pub after_days: u32,
}

/// The `input` of a submission's request body (JSON text); `None` for a body without one.
pub fn input_of_body(body: &str) -> Option<Value> {
    /// A submission's body, as far as the history needs it.
    #[derive(Deserialize)]
    struct Body {
        input: Option<Value>,
    }
    serde_json::from_str::<Body>(body).ok()?.input
}

/// Every text and number of an input, lower-cased, one per line: what a search looks into.
pub fn input_text(input: &Value) -> String {
    fn collect(value: &Value, into: &mut String) {
        match value {
            Value::String(text) => {
                into.push_str(&text.to_lowercase());
                into.push('\n');
            }
            Value::Number(n) => {
                into.push_str(&n.to_string());
                into.push('\n');
            }
            Value::Array(items) => items.iter().for_each(|v| collect(v, into)),
            Value::Object(fields) => fields.values().for_each(|v| collect(v, into)),
            Value::Bool(_) | Value::Null => {}
        }
    }
    let mut text = String::new();
    collect(input, &mut text);
    text
}

/// Where a listed run comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RunSource {
    /// Among the API's latest 100 at the last read.
    Api,
    /// Older than the API's window: only this browser still has it.
    KeptHere,
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
        KeptRun::without_records(workspace, run.without_output(), run.output.len(), seen_at)
    }

    /// `run` as a list read with its records counted (`RunCounted`) saw it now, for `workspace`.
    pub fn seen_counted(workspace: &str, run: RunCounted, seen_at: f64) -> KeptRun {
        let records = run.records;
        KeptRun::without_records(workspace, run.into_run(), records, seen_at)
    }

    /// `run`, its output left out, which held `records` records.
    fn without_records(workspace: &str, run: Run, records: usize, seen_at: f64) -> KeptRun {
        KeptRun {
            workspace: workspace.to_owned(),
            run,
            records,
            seen_at,
            input: None,
            idempotency_key: None,
            output_forgotten: None,
        }
    }

    /// With what this console sent to make the run: its input and its idempotency key.
    pub fn made_here(self, input: Option<Value>, idempotency_key: &str) -> KeptRun {
        KeptRun {
            input,
            idempotency_key: Some(idempotency_key.to_owned()),
            ..self
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
        // The input is known from the sighting that made the run, not from later ones.
        kept.input = kept.input.or(other.input);
        kept.idempotency_key = kept.idempotency_key.or(other.idempotency_key);
        kept.output_forgotten = kept.output_forgotten.or(other.output_forgotten);
        kept
    }
}

/// How much of runs' outputs this browser keeps, by default (all workspaces together).
pub const DEFAULT_OUTPUT_ALLOWANCE: u64 = 200 * 1_000_000;

/// One kept output: where it is stored, its size (its JSON text, in bytes), and when it was kept.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KeptOutput {
    pub key: String,
    pub bytes: u64,
    /// When this browser kept it, ms since the epoch; `None` for an output kept by a console
    /// before the expiry rule, dated when the rule is first applied ([`OutputIndex::date_unknown`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept_at: Option<f64>,
}

/// The outputs this browser keeps, oldest first, so the oldest go first when the allowance is
/// exceeded (kept in the store's meta, written with the outputs in one transaction).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OutputIndex {
    pub outputs: Vec<KeptOutput>,
}

/// What changed in the kept outputs: the ones to write and the ones dropped for room.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OutputChanges {
    pub added: Vec<KeptOutput>,
    pub dropped: Vec<String>,
}

impl OutputIndex {
    pub fn bytes(&self) -> u64 {
        self.outputs.iter().map(|o| o.bytes).sum()
    }

    pub fn holds(&self, key: &str) -> bool {
        self.outputs.iter().any(|o| o.key == key)
    }

    /// Adds `new` outputs (those not kept yet), newest last, then drops the oldest until the
    /// whole fits `allowance`. An output larger than the allowance by itself is not kept.
    pub fn keep(&mut self, new: Vec<KeptOutput>, allowance: u64) -> OutputChanges {
        let mut changes = OutputChanges::default();
        for output in new {
            if output.bytes <= allowance && !self.holds(&output.key) {
                changes.added.push(output.clone());
                self.outputs.push(output);
            }
        }
        changes.dropped = self.fit(allowance);
        // An output added and dropped at once is never written.
        changes
            .added
            .retain(|added| !changes.dropped.contains(&added.key));
        changes
    }

    /// Drops the oldest outputs until the rest fit `allowance`; their keys.
    pub fn fit(&mut self, allowance: u64) -> Vec<String> {
        let mut total = self.bytes();
        let mut dropped = Vec::new();
        while total > allowance && !self.outputs.is_empty() {
            let oldest = self.outputs.remove(0);
            total -= oldest.bytes;
            dropped.push(oldest.key);
        }
        dropped
    }

    /// Dates the outputs of unknown age (kept before the expiry rule existed) as kept at `now`,
    /// so a rule counts their days from its first application, never forgets them at once;
    /// whether any was dated (the index is then written).
    pub fn date_unknown(&mut self, now: f64) -> bool {
        let mut dated = false;
        for output in self.outputs.iter_mut().filter(|o| o.kept_at.is_none()) {
            output.kept_at = Some(now);
            dated = true;
        }
        dated
    }

    /// The outputs kept before `cutoff` (ms since the epoch), oldest first: those an expiry rule
    /// forgets. An output of unknown age is never among them.
    pub fn kept_before(&self, cutoff: f64) -> Vec<KeptOutput> {
        self.outputs
            .iter()
            .filter(|o| o.kept_at.is_some_and(|at| at < cutoff))
            .cloned()
            .collect()
    }

    /// Removes the outputs named by `keys` from the index.
    pub fn remove(&mut self, keys: &[String]) {
        self.outputs.retain(|o| !keys.contains(&o.key));
    }

    /// Forgets the outputs whose keys start with `{prefix}/` (a workspace's); their keys.
    pub fn forget_under(&mut self, prefix: &str) -> Vec<String> {
        let under = format!("{prefix}/");
        let (gone, kept): (Vec<KeptOutput>, Vec<KeptOutput>) = std::mem::take(&mut self.outputs)
            .into_iter()
            .partition(|o| o.key.starts_with(&under));
        self.outputs = kept;
        gone.into_iter().map(|o| o.key).collect()
    }
}

/// A line of a history file that was not imported, and why (lines count from 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedLine {
    pub line: usize,
    pub reason: String,
}

/// What a history file (JSON Lines, one [`KeptRun`] per line as the store keeps it: `archive::export_history`)
/// holds for a workspace: its runs, merged by id, and the lines left out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HistoryFile {
    pub runs: Vec<KeptRun>,
    pub skipped: Vec<SkippedLine>,
}

/// Reads a history file for `workspace`. Blank lines are ignored; a line that is not a kept
/// run, or is one of another workspace, is skipped with its number and the reason; a run's
/// output, if an edited file has one, is counted and left out, as a kept run's is.
pub fn read_history_file(text: &str, workspace: &str) -> HistoryFile {
    let mut file = HistoryFile::default();
    let mut index_of: HashMap<String, usize> = HashMap::new();
    for (index, line) in text.lines().enumerate() {
        let line_number = index + 1;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let mut skip = |reason: String| {
            file.skipped.push(SkippedLine {
                line: line_number,
                reason,
            })
        };
        let kept = match serde_json::from_str::<KeptRun>(line) {
            Ok(kept) => kept,
            Err(error) => {
                // serde counts lines within the text it was given: one line of the file.
                let what = error.to_string();
                let what = what.split(" at line ").next().unwrap_or_default();
                skip(format!(
                    "not a run of an exported history ({what}, at character {})",
                    error.column()
                ));
                continue;
            }
        };
        if kept.run.id.trim().is_empty() {
            skip("a run without an id".to_owned());
            continue;
        }
        if kept.workspace != workspace {
            skip(format!(
                "a run of workspace {}, not of the one signed in to",
                kept.workspace
            ));
            continue;
        }
        let kept = KeptRun {
            records: kept.records.max(kept.run.output.len()),
            run: Run {
                output: Vec::new(),
                ..kept.run
            },
            ..kept
        };
        match index_of.get(&kept.run.id) {
            Some(&at) => {
                let earlier = std::mem::replace(&mut file.runs[at], kept);
                let later = file.runs[at].clone();
                file.runs[at] = earlier.merged(later);
            }
            None => {
                index_of.insert(kept.run.id.clone(), file.runs.len());
                file.runs.push(kept);
            }
        }
    }
    file
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
    fn the_input_sent_stays_with_the_run_and_is_searchable_as_text() {
        let input = input_of_body(
            r#"{"input":{"keywords":"Ada Lovelace","limit":[3,"X"]},"max_results":5}"#,
        );
        let submitted =
            KeptRun::seen("ws", &run(RunStatus::Queued, 0), 10.0).made_here(input, "key-1");
        let listed = KeptRun::seen("ws", &run(RunStatus::Completed, 2), 20.0);
        let merged = submitted.merged(listed);
        assert_eq!(merged.run.status, RunStatus::Completed);
        assert_eq!(
            input_text(merged.input.as_ref().unwrap()),
            "ada lovelace\n3\nx\n"
        );
        assert_eq!(input_of_body("not json"), None);
        assert_eq!(input_of_body(r#"{"max_results":5}"#), None);
    }

    #[test]
    fn a_later_sighting_without_the_output_keeps_the_record_count() {
        let with_output = KeptRun::seen("ws", &run(RunStatus::Completed, 7), 10.0);
        let without = KeptRun::seen("ws", &run(RunStatus::Completed, 0), 30.0);
        let merged = with_output.merged(without);
        assert_eq!(merged.records, 7);
        assert_eq!(merged.seen_at, 30.0);
    }

    #[test]
    fn a_history_file_is_read_line_by_line_and_bad_lines_are_reported_by_number() {
        let line = |kept: &KeptRun| serde_json::to_string(kept).unwrap();
        let done = KeptRun::seen("ws", &run(RunStatus::Completed, 4), 20.0);
        let earlier = KeptRun::seen("ws", &run(RunStatus::Processing, 0), 10.0);
        let second = Run {
            id: "run_2".into(),
            ..made_at(7)
        };
        let mut with_output = line(&KeptRun::seen("ws", &second, 5.0));
        with_output = with_output.replace(r#""output":[]"#, r#""output":[{"a":1},{"a":2}]"#);
        let other_workspace = line(&KeptRun::seen("ws_other", &made_at(8), 5.0));
        let text = [
            line(&done),
            String::new(),
            "{not json".to_owned(),
            other_workspace,
            line(&earlier),
            with_output,
            r#"{"workspace":"ws"}"#.to_owned(),
        ]
        .join("\n");
        let file = read_history_file(&text, "ws");
        assert_eq!(
            file.skipped.iter().map(|s| s.line).collect::<Vec<_>>(),
            vec![3, 4, 7]
        );
        assert_eq!(
            file.skipped[0].reason,
            "not a run of an exported history (key must be a string, at character 2)"
        );
        assert!(file.skipped[1].reason.contains("ws_other"));
        // run_1 twice: merged, the finished state winning; run_2's edited output counted and
        // left out.
        assert_eq!(file.runs.len(), 2);
        let run_1 = &file.runs[0];
        assert_eq!(run_1.run.status, RunStatus::Completed);
        assert_eq!(run_1.records, 4);
        assert_eq!(run_1.seen_at, 20.0);
        assert_eq!(file.runs[1].records, 2);
        assert!(file.runs.iter().all(|k| k.run.output.is_empty()));
        assert!(read_history_file("", "ws") == HistoryFile::default());
    }

    #[test]
    fn outputs_are_kept_within_the_allowance_the_oldest_dropped_first() {
        let output = |key: &str, bytes| KeptOutput {
            key: key.into(),
            bytes,
            kept_at: None,
        };
        let mut index = OutputIndex::default();
        let first = index.keep(vec![output("ws/a", 40), output("ws/b", 40)], 100);
        assert_eq!(first.added.len(), 2);
        assert!(first.dropped.is_empty());
        // A third does not fit with both: the oldest goes.
        let second = index.keep(vec![output("ws/c", 40), output("ws/a", 40)], 100);
        assert_eq!(second.added, vec![output("ws/c", 40)], "a is kept already");
        assert_eq!(second.dropped, vec!["ws/a".to_owned()]);
        assert_eq!(index.bytes(), 80);
        // Larger than the allowance by itself: not kept, nothing dropped for it.
        assert_eq!(
            index.keep(vec![output("ws/huge", 101)], 100),
            OutputChanges::default()
        );
        // A smaller allowance drops the oldest until the rest fit.
        assert_eq!(index.fit(50), vec!["ws/b".to_owned()]);
        index.keep(vec![output("other/d", 10)], 100);
        assert_eq!(index.forget_under("ws"), vec!["ws/c".to_owned()]);
        assert_eq!(index.outputs, vec![output("other/d", 10)]);
    }
}
