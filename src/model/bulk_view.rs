//! What the bulk page shows, worked out from the prepared rows and the batch: the counts before
//! the start, the mapping's choices, the batch's headline, pace, commands and pages of rows.

use chrono::TimeDelta;

use crate::model::bulk::engine::{Counters, Keeping, Phase};
use crate::model::bulk::{
    BatchRow, CheckedRow, RowError, RowState, SameRecord, SavedBatch, Source, Spared, Tally,
    describe,
};
use crate::model::form::FormModel;
use crate::model::format::{duration, group_thousands};

/// Rows shown per page of the batch's table.
pub const PAGE_ROWS: usize = 50;
/// Invalid rows listed before "and N more".
pub const INVALID_SHOWN: usize = 50;
/// The value of the rows filter that shows every row (the others are the states' labels).
pub const ALL_ROWS: &str = "all";

/// The value of a mapping `<select>`: `-` unset, `c3` column 3, `const` a constant.
pub fn source_choice(source: &Source) -> String {
    match source {
        Source::Unset => "-".to_owned(),
        Source::Column(i) => format!("c{i}"),
        Source::Constant(_) => "const".to_owned(),
    }
}

/// The source a mapping `<select>`'s value stands for; a constant chosen anew starts empty.
pub fn source_of_choice(choice: &str) -> Source {
    match choice {
        "const" => Source::Constant(String::new()),
        c => c
            .strip_prefix('c')
            .and_then(|i| i.parse().ok())
            .map_or(Source::Unset, Source::Column),
    }
}

/// A field's label in the mapping, `Keywords (required)`; its name when the form lacks it.
pub fn mapping_label(model: Option<&FormModel>, name: &str) -> String {
    model
        .and_then(|m| m.fields.iter().find(|f| f.name == name))
        .map_or_else(
            || name.to_owned(),
            |f| {
                format!(
                    "{} ({})",
                    f.label,
                    if f.required { "required" } else { "optional" }
                )
            },
        )
}

/// The checked rows counted before the start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckedCounts {
    /// Rows that will be sent: valid, the first to ask their question, and not reusing a run.
    pub valid: usize,
    /// Rows that reuse a run made before (`CheckedRow::reuses`): read, not sent.
    pub reused: Spared,
    /// Rows that break a rule.
    pub invalid: usize,
    /// Valid rows that ask what an earlier row asks: not sent (`model::same_input`).
    pub repeats: Spared,
    /// The most the rows to send may reserve together, in credits.
    pub worst_case: u64,
}

impl CheckedCounts {
    pub fn of(rows: &[CheckedRow]) -> CheckedCounts {
        let to_send = rows
            .iter()
            .filter(|r| r.errors.is_empty() && r.repeat_of.is_none() && r.reuses.is_none());
        CheckedCounts {
            valid: to_send.clone().count(),
            reused: Spared::reused(rows),
            invalid: rows.iter().filter(|r| !r.errors.is_empty()).count(),
            repeats: Spared::repeats(rows),
            worst_case: to_send.map(|r| r.estimate).sum(),
        }
    }

    /// A batch starts with a row to send or to read, and with invalid rows only when they are
    /// left out.
    pub fn can_start(&self, leave_out_invalid: bool) -> bool {
        self.valid + self.reused.rows > 0 && (self.invalid == 0 || leave_out_invalid)
    }

    /// The words between the rows to send and the worst case.
    pub fn rows_to_send_phrase(&self) -> &'static str {
        if self.valid == 1 {
            " row to send, reserving at most "
        } else {
            " rows to send, reserving at most "
        }
    }
}

/// An invalid row as listed before the start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidLine {
    pub line: usize,
    /// The rules it breaks, for people.
    pub reason: String,
}

/// The first [`INVALID_SHOWN`] invalid rows, in the file's order.
pub fn invalid_lines(rows: &[CheckedRow]) -> Vec<InvalidLine> {
    rows.iter()
        .filter(|r| !r.errors.is_empty())
        .take(INVALID_SHOWN)
        .map(|r| InvalidLine {
            line: r.line,
            reason: describe(&r.errors),
        })
        .collect()
}

/// A repeated row as listed before the start: its line, the first row asking the same, and its
/// input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepeatLine {
    pub line: usize,
    pub first_line: usize,
    /// The row's cells, `a · b · c`.
    pub input: String,
}

/// The first [`INVALID_SHOWN`] repeated rows, in the file's order.
pub fn repeat_lines(rows: &[CheckedRow]) -> Vec<RepeatLine> {
    rows.iter()
        .filter_map(|r| {
            Some(RepeatLine {
                line: r.line,
                first_line: r.repeat_of?,
                input: r.cells.join(" · "),
            })
        })
        .take(INVALID_SHOWN)
        .collect()
}

/// "300 rows repeat earlier rows: each question is sent once; up to 300 credits saved."
pub fn repeats_sentence(repeats: Spared) -> String {
    let rows = if repeats.rows == 1 {
        "1 row repeats an earlier row".to_owned()
    } else {
        format!(
            "{} rows repeat earlier rows",
            group_thousands(repeats.rows as u64)
        )
    };
    format!(
        "{rows} (the same input, perhaps written another way): each is sent once, and a repeated \
         row shows the results of its first row; up to {} credits saved.",
        group_thousands(repeats.credits_saved_at_most)
    )
}

/// Rows that could reuse a kept run, and how many do with the window chosen.
pub fn reuse_sentences(answered: usize, reused: Spared) -> (String, String) {
    let answered = if answered == 0 {
        "No row asks what a completed run kept in this browser asked.".to_owned()
    } else if answered == 1 {
        "1 row asks what a completed run kept in this browser asked.".to_owned()
    } else {
        format!(
            "{} rows ask what completed runs kept in this browser asked.",
            group_thousands(answered as u64)
        )
    };
    let reused = match reused.rows {
        0 => "Every row is sent.".to_owned(),
        n => format!(
            "{} instead of being sent: up to {} credits saved. The batch reads those runs from \
             the API (which costs nothing) and shows their records.",
            if n == 1 {
                "1 row reuses those results".to_owned()
            } else {
                format!("{} rows reuse those results", group_thousands(n as u64))
            },
            group_thousands(reused.credits_saved_at_most)
        ),
    };
    (answered, reused)
}

/// How many rows to send (valid, not repeats) have a kept run of their question, whatever its
/// age (`answers` by position).
pub fn rows_with_kept_answers<T>(rows: &[CheckedRow], answers: &[Option<T>]) -> usize {
    rows.iter()
        .zip(answers)
        .filter(|(row, answer)| {
            answer.is_some() && row.errors.is_empty() && row.repeat_of.is_none()
        })
        .count()
}

/// The invalid rows not listed ("…and N more"), if any.
pub fn invalid_not_listed(invalid: usize) -> Option<usize> {
    (invalid > INVALID_SHOWN).then(|| invalid - INVALID_SHOWN)
}

/// `12 rows, columns: keywords, max_results`: what was read of the file.
pub fn table_summary(rows: usize, headers: &[String]) -> String {
    format!(
        "{} rows, columns: {}",
        group_thousands(rows as u64),
        headers.join(", ")
    )
}

/// `1,200 of 5,000 rows finished`.
pub fn rows_finished(finished: usize, to_send: usize) -> String {
    format!(
        "{} of {} rows finished",
        group_thousands(finished as u64),
        group_thousands(to_send as u64)
    )
}

/// The batch's state in a word; empty without a batch.
pub fn headline(phase: Option<&Phase>, cancelled: bool) -> &'static str {
    match phase {
        Some(Phase::Running) => "Running",
        Some(Phase::Paused(_)) => "Paused",
        Some(Phase::Cancelling) => "Cancelling",
        Some(Phase::Done) if cancelled => "Cancelled",
        Some(Phase::Done) => "Done",
        None => "",
    }
}

/// Why a paused batch is paused: the engine's reason, or the person's pause explained.
pub fn paused_reason(phase: Option<&Phase>) -> Option<String> {
    match phase {
        Some(Phase::Paused(reason)) => Some(reason.clone().unwrap_or_else(|| {
            "Paused: nothing is sent until you resume. Runs already submitted go on.".to_owned()
        })),
        _ => None,
    }
}

/// The rate since the batch (or its latest resume) started sending, and the time left to send
/// the rest at that rate: only while it runs, with something left to send and enough measured
/// (two accepted rows, a second).
pub fn pace_sentence(
    phase: &Phase,
    counters: &Counters,
    tally: &Tally,
    now_ms: f64,
) -> Option<String> {
    let elapsed = (now_ms - counters.started_at) / 1000.0;
    let unsent = tally.count(RowState::Waiting) + tally.count(RowState::Submitting);
    if *phase != Phase::Running || counters.accepted < 2 || elapsed < 1.0 || unsent == 0 {
        return None;
    }
    let per_second = counters.accepted as f64 / elapsed;
    let left = unsent as f64 / per_second;
    // Tenths by integer arithmetic: float formatting would add its own code to the bundle.
    let tenths = (per_second * 10.0).round() as u64;
    Some(format!(
        "{}.{} runs per second; about {} left to send",
        tenths / 10,
        tenths % 10,
        duration(TimeDelta::milliseconds((left * 1000.0) as i64))
    ))
}

/// What the page says of the batch being kept in this browser.
pub fn keeping_note(keeping: Keeping, in_chain: bool) -> &'static str {
    match keeping {
        Keeping::Pending => "Saving the batch in this browser before the first row is sent…",
        Keeping::Kept if in_chain => {
            "Kept in this browser: after a reload, sign in and the chain's address shows it again \
                    (or open it on Chains), to take up when you go on. Forgetting the chain \
                    deletes its steps' inputs and results from this browser."
        }
        Keeping::Kept => {
            "Kept in this browser: after a reload, sign in and open Bulk to take it up. \
                    Clearing the batch deletes its inputs and results from this browser."
        }
        Keeping::Refused => {
            "This browser does not keep the batch (its storage is unavailable): \
                    leaving or reloading the page stops it."
        }
    }
}

/// The commands the page offers for the batch: only the tab that runs it offers any.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchCommands {
    pub pause: bool,
    pub resume: bool,
    pub cancel: bool,
    /// Send the failed rows again, with new keys: once the batch is done and some failed.
    pub retry_failed: bool,
    /// Delete the finished batch from this browser.
    pub clear: bool,
}

impl BatchCommands {
    /// `runs_here`: this tab runs the batch; `failed`: its failed rows.
    pub fn offered(phase: Option<&Phase>, runs_here: bool, failed: usize) -> BatchCommands {
        if !runs_here {
            return BatchCommands::default();
        }
        let done = phase == Some(&Phase::Done);
        BatchCommands {
            pause: phase == Some(&Phase::Running),
            resume: matches!(phase, Some(Phase::Paused(_))),
            cancel: matches!(phase, Some(Phase::Running | Phase::Paused(_))),
            retry_failed: done && failed > 0,
            clear: done,
        }
    }
}

/// `Exporting… 200 of 1,000 rows`.
pub fn export_progress(rows_done: usize, rows: usize) -> String {
    format!(
        "Exporting… {} of {} rows",
        group_thousands(rows_done as u64),
        group_thousands(rows as u64)
    )
}

/// Which records the merged exports hold: every record, or each record once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordsChoice {
    Every,
    /// Once per `network_profile_identifier` or `social_id` (the contract's ids).
    ByContractIds,
    /// Once per value of a column the person names.
    ByColumn,
}

impl RecordsChoice {
    pub const ALL: [RecordsChoice; 3] = [
        RecordsChoice::Every,
        RecordsChoice::ByContractIds,
        RecordsChoice::ByColumn,
    ];

    /// The `<option>`'s value.
    pub fn value(self) -> &'static str {
        match self {
            RecordsChoice::Every => "every",
            RecordsChoice::ByContractIds => "contract-ids",
            RecordsChoice::ByColumn => "column",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            RecordsChoice::Every => "every record, repeats included",
            RecordsChoice::ByContractIds => {
                "each record once, by network_profile_identifier or social_id"
            }
            RecordsChoice::ByColumn => "each record once, by a column you name",
        }
    }
}

/// How the exports tell records apart for the choice `value` (and the column typed for
/// [`RecordsChoice::ByColumn`]); `None` keeps every record; an error when no column is named.
pub fn same_record_of(value: &str, column: &str) -> Result<Option<SameRecord>, String> {
    if value == RecordsChoice::ByContractIds.value() {
        Ok(Some(SameRecord::ContractIds))
    } else if value == RecordsChoice::ByColumn.value() {
        let column = column.trim();
        if column.is_empty() {
            Err("Name the column that tells records apart (for example profile_url).".to_owned())
        } else {
            Ok(Some(SameRecord::Column(column.to_owned())))
        }
    } else {
        Ok(None)
    }
}

/// What an export without duplicates left out.
pub fn export_done_note(duplicates_removed: usize) -> String {
    match duplicates_removed {
        0 => "Exported: no record appeared twice.".to_owned(),
        1 => "Exported: 1 duplicate record left out.".to_owned(),
        n => format!(
            "Exported: {} duplicate records left out.",
            group_thousands(n as u64)
        ),
    }
}

/// The explore button's words: reading, never read, or read already.
pub fn explore_label(reading: bool, read: bool) -> &'static str {
    match (reading, read) {
        (true, _) => "Reading the results…",
        (false, false) => "Explore the results",
        (false, true) => "Read the results again",
    }
}

/// What the explored results hold: the batch's `total` records, read into the page at once, or
/// (`kept`) read from this browser's storage as the table reaches them.
pub fn explored_note(total: usize, kept: bool) -> String {
    if kept {
        format!(
            "The batch's {} records as they stood just now, each with its row's line, input and run, read from this browser's storage as you scroll; a sort or a filter reads them all.",
            group_thousands(total as u64)
        )
    } else {
        "The batch's records as read just now, each with its row's line, input and run.".to_owned()
    }
}

/// Whether a row in `state` passes the rows filter (`all`, or a state's label).
pub fn row_matches(filter: &str, state: RowState) -> bool {
    filter == ALL_ROWS || filter == state.label()
}

/// How many rows pass the filter.
pub fn matching_rows(rows: &[BatchRow], filter: &str) -> usize {
    rows.iter().filter(|r| row_matches(filter, r.state)).count()
}

/// Pages of [`PAGE_ROWS`] for `matching` rows: at least one, empty as it may be.
pub fn page_count(matching: usize) -> usize {
    matching.div_ceil(PAGE_ROWS).max(1)
}

/// The rows passing the filter on page `page` (from 0), a repeated row with its first row's
/// results.
pub fn rows_on_page(rows: &[BatchRow], filter: &str, page: usize) -> Vec<ShownRow> {
    rows.iter()
        .filter(|r| row_matches(filter, r.state))
        .skip(page * PAGE_ROWS)
        .take(PAGE_ROWS)
        .map(
            |row| match row.repeat_of.and_then(|line| row_at_line(rows, line)) {
                Some(first) => ShownRow::repeating(row, first),
                None => ShownRow::of(row),
            },
        )
        .collect()
}

/// The row of `line` in a batch's rows (kept in line order).
pub fn row_at_line(rows: &[BatchRow], line: usize) -> Option<&BatchRow> {
    rows.binary_search_by_key(&line, |row| row.line)
        .ok()
        .map(|index| &rows[index])
}

/// One line of the batch's table: what it shows of a row. The table keys its lines by `line`,
/// and a line's cells follow what it shows as it changes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ShownRow {
    pub line: usize,
    /// The row's cells, `a · b · c`.
    pub input: String,
    pub state: RowState,
    pub run_id: Option<String>,
    pub credits: u64,
    pub records: usize,
    pub error: Option<RowError>,
    /// For a repeated row, the row whose results it shows.
    pub same_as: Option<SameAs>,
    /// The row shows a run made before, reused rather than sent again.
    pub reused: bool,
}

/// The first row asking what a repeated row asks: its line and where it stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SameAs {
    pub line: usize,
    pub state: RowState,
}

impl ShownRow {
    pub fn of(row: &BatchRow) -> ShownRow {
        ShownRow {
            line: row.line,
            input: row.cells.join(" · "),
            state: row.state,
            run_id: row.run_id.clone(),
            credits: row.credits_used,
            records: row.records,
            error: row.error.clone(),
            same_as: None,
            reused: row.reuses.is_some(),
        }
    }

    /// A repeated row: its own line and input, `first`'s run, records and error, no credits.
    pub fn repeating(row: &BatchRow, first: &BatchRow) -> ShownRow {
        ShownRow {
            state: RowState::Repeat,
            same_as: Some(SameAs {
                line: first.line,
                state: first.state,
            }),
            ..ShownRow::of(&row.with_results_of(first))
        }
    }
}

/// The start of a run id, enough to tell runs apart in the table (the link has the rest).
pub fn short_run_id(id: &str) -> String {
    id.chars().take(8).collect()
}

/// A kept batch's state in a word, as listed and in `data-state`.
pub fn saved_state(batch: &SavedBatch) -> &'static str {
    match (batch.done, batch.cancelled) {
        (true, true) => "cancelled",
        (true, false) => "done",
        (false, true) => "cancelling",
        (false, false) => "unfinished",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::form::FormError;
    use api_contract::ActionId;

    #[test]
    fn the_reuse_notice_counts_rows_answered_and_reused_in_words() {
        let none = Spared::default();
        assert_eq!(
            reuse_sentences(0, none),
            (
                "No row asks what a completed run kept in this browser asked.".to_owned(),
                "Every row is sent.".to_owned()
            )
        );
        assert_eq!(
            reuse_sentences(1, none).0,
            "1 row asks what a completed run kept in this browser asked."
        );
        let (answered, reused) = reuse_sentences(
            1_200,
            Spared {
                rows: 1,
                credits_saved_at_most: 20,
            },
        );
        assert_eq!(
            answered,
            "1,200 rows ask what completed runs kept in this browser asked."
        );
        assert!(
            reused.starts_with("1 row reuses those results instead of being sent: up to 20"),
            "{reused}"
        );
    }

    fn checked(line: usize, estimate: u64, broken: bool) -> CheckedRow {
        CheckedRow {
            line,
            cells: vec![format!("cell {line}")],
            body: "{}".to_owned(),
            estimate,
            errors: if broken {
                vec![FormError::of_field("keywords", "is required")]
            } else {
                Vec::new()
            },
            repeat_of: None,
            reuses: None,
        }
    }

    fn row(line: usize, state: RowState) -> BatchRow {
        let mut row = BatchRow::new(checked(line, 10, false));
        row.state = state;
        row
    }

    #[test]
    fn mapping_choices_read_back_as_the_source_they_stand_for() {
        for source in [Source::Unset, Source::Column(0), Source::Column(12)] {
            assert_eq!(source_of_choice(&source_choice(&source)), source);
        }
        assert_eq!(source_choice(&Source::Constant("x".into())), "const");
        assert_eq!(source_of_choice("const"), Source::Constant(String::new()));
        assert_eq!(source_of_choice("cx"), Source::Unset);
    }

    #[test]
    fn mapping_labels_say_whether_a_field_is_required() {
        let mut form =
            FormModel::from_entry(&ActionId::PremiumSearchPeople.sandbox_registry_entry());
        let field = form.fields[0].clone();
        form.fields[0].required = true;
        assert_eq!(
            mapping_label(Some(&form), &field.name),
            format!("{} (required)", field.label)
        );
        form.fields[0].required = false;
        assert_eq!(
            mapping_label(Some(&form), &field.name),
            format!("{} (optional)", field.label)
        );
        assert_eq!(mapping_label(Some(&form), "unknown"), "unknown");
        assert_eq!(mapping_label(None, "keywords"), "keywords");
    }

    #[test]
    fn checked_rows_count_what_can_be_sent_and_its_worst_case() {
        let rows = [
            checked(2, 30, false),
            checked(3, 99, true),
            checked(4, 12, false),
        ];
        let counts = CheckedCounts::of(&rows);
        assert_eq!(
            counts,
            CheckedCounts {
                valid: 2,
                reused: Spared::default(),
                invalid: 1,
                repeats: Spared::default(),
                worst_case: 42
            }
        );
        assert!(!counts.can_start(false));
        assert!(counts.can_start(true));
        assert!(!CheckedCounts::of(&[checked(2, 1, true)]).can_start(true));
        assert!(CheckedCounts::of(&[checked(2, 1, false)]).can_start(false));
        assert_eq!(
            CheckedCounts::of(&[checked(2, 1, false)]).rows_to_send_phrase(),
            " row to send, reserving at most "
        );
        assert_eq!(
            counts.rows_to_send_phrase(),
            " rows to send, reserving at most "
        );
    }

    #[test]
    fn invalid_rows_are_listed_up_to_the_limit() {
        let rows: Vec<_> = (0..60)
            .map(|i| checked(i + 2, 1, i % 2 == 0 || i > 9))
            .collect();
        let listed = invalid_lines(&rows);
        assert_eq!(listed.len(), INVALID_SHOWN);
        assert_eq!(
            listed[0],
            InvalidLine {
                line: 2,
                reason: "keywords is required".to_owned()
            }
        );
        assert_eq!(listed[1].line, 4);
        assert_eq!(invalid_not_listed(55), Some(5));
        assert_eq!(invalid_not_listed(INVALID_SHOWN), None);
    }

    #[test]
    fn counts_are_grouped_for_people() {
        assert_eq!(rows_finished(1200, 10_000), "1,200 of 10,000 rows finished");
        assert_eq!(
            table_summary(1500, &["keywords".into(), "max_results".into()]),
            "1,500 rows, columns: keywords, max_results"
        );
        assert_eq!(export_progress(0, 2000), "Exporting… 0 of 2,000 rows");
    }

    #[test]
    fn the_headline_tells_a_cancelled_batch_from_a_done_one() {
        assert_eq!(headline(Some(&Phase::Running), false), "Running");
        assert_eq!(headline(Some(&Phase::Paused(None)), false), "Paused");
        assert_eq!(headline(Some(&Phase::Cancelling), true), "Cancelling");
        assert_eq!(headline(Some(&Phase::Done), true), "Cancelled");
        assert_eq!(headline(Some(&Phase::Done), false), "Done");
        assert_eq!(headline(None, false), "");
    }

    #[test]
    fn a_pause_gives_the_engines_reason_or_explains_the_persons() {
        assert_eq!(
            paused_reason(Some(&Phase::Paused(Some("Out of credits.".into())))).as_deref(),
            Some("Out of credits.")
        );
        assert!(
            paused_reason(Some(&Phase::Paused(None)))
                .unwrap()
                .starts_with("Paused: nothing is sent until you resume.")
        );
        assert_eq!(paused_reason(Some(&Phase::Running)), None);
        assert_eq!(paused_reason(None), None);
    }

    #[test]
    fn the_pace_is_the_rate_since_the_start_and_the_time_left_at_it() {
        let rows: Vec<_> = (0..30)
            .map(|i| {
                row(
                    i,
                    if i < 20 {
                        RowState::Completed
                    } else {
                        RowState::Waiting
                    },
                )
            })
            .collect();
        let tally = Tally::of(&rows);
        let counters = Counters {
            started_at: 1_000.0,
            accepted: 20,
            ..Counters::default()
        };
        // 20 accepted in 8 s: 2.5 per second, so 10 unsent take 4 s.
        assert_eq!(
            pace_sentence(&Phase::Running, &counters, &tally, 9_000.0).as_deref(),
            Some("2.5 runs per second; about 4.0 s left to send")
        );
        assert_eq!(
            pace_sentence(&Phase::Paused(None), &counters, &tally, 9_000.0),
            None
        );
        // Too early to tell: under a second, or fewer than two accepted.
        assert_eq!(
            pace_sentence(&Phase::Running, &counters, &tally, 1_500.0),
            None
        );
        let one = Counters {
            accepted: 1,
            ..counters.clone()
        };
        assert_eq!(pace_sentence(&Phase::Running, &one, &tally, 9_000.0), None);
        // Nothing left to send.
        let sent = Tally::of(&rows[..20]);
        assert_eq!(
            pace_sentence(&Phase::Running, &counters, &sent, 9_000.0),
            None
        );
    }

    #[test]
    fn keeping_notes_differ_per_state() {
        assert!(keeping_note(Keeping::Pending, false).starts_with("Saving"));
        assert_eq!(
            keeping_note(Keeping::Kept, false),
            "Kept in this browser: after a reload, sign in and open Bulk to take it up. Clearing the \
             batch deletes its inputs and results from this browser."
        );
        assert!(
            keeping_note(Keeping::Refused, false)
                .contains("leaving or reloading the page stops it.")
        );
        // A chain's step is taken up from its chain, and forgotten with it.
        assert!(keeping_note(Keeping::Kept, true).contains("the chain's address shows it again"));
    }

    #[test]
    fn only_the_tab_that_runs_the_batch_offers_commands_fitting_its_phase() {
        let running = BatchCommands::offered(Some(&Phase::Running), true, 0);
        assert!(running.pause && running.cancel && !running.resume && !running.clear);
        let paused = BatchCommands::offered(Some(&Phase::Paused(None)), true, 0);
        assert!(paused.resume && paused.cancel && !paused.pause);
        let done = BatchCommands::offered(Some(&Phase::Done), true, 3);
        assert!(done.retry_failed && done.clear && !done.cancel);
        assert!(!BatchCommands::offered(Some(&Phase::Done), true, 0).retry_failed);
        assert_eq!(
            BatchCommands::offered(Some(&Phase::Running), false, 3),
            BatchCommands::default()
        );
        assert_eq!(
            BatchCommands::offered(Some(&Phase::Cancelling), true, 3),
            BatchCommands::default()
        );
    }

    #[test]
    fn exploring_words_follow_the_reading() {
        assert_eq!(explore_label(true, true), "Reading the results…");
        assert_eq!(explore_label(false, false), "Explore the results");
        assert_eq!(explore_label(false, true), "Read the results again");
        assert!(
            explored_note(12_500, true)
                .starts_with("The batch's 12,500 records as they stood just now")
        );
        assert!(explored_note(40, false).starts_with("The batch's records as read just now"));
    }

    #[test]
    fn rows_are_filtered_by_state_and_paged() {
        let rows: Vec<_> = (0..120)
            .map(|i| {
                row(
                    i + 2,
                    if i % 3 == 0 {
                        RowState::Failed
                    } else {
                        RowState::Completed
                    },
                )
            })
            .collect();
        assert_eq!(matching_rows(&rows, ALL_ROWS), 120);
        assert_eq!(matching_rows(&rows, "failed"), 40);
        assert_eq!(page_count(120), 3);
        assert_eq!(page_count(40), 1);
        assert_eq!(page_count(0), 1);
        let third = rows_on_page(&rows, ALL_ROWS, 2);
        assert_eq!(third.len(), 20);
        assert_eq!(third[0].line, 102);
        let failed = rows_on_page(&rows, "failed", 0);
        assert_eq!(failed.len(), 40);
        assert!(failed.iter().all(|r| r.state == RowState::Failed));
        assert_eq!(failed[1].line, 5);
        assert!(rows_on_page(&rows, "failed", 1).is_empty());
    }

    #[test]
    fn a_shown_row_joins_its_cells_and_shortens_its_run() {
        let mut r = row(7, RowState::Completed);
        r.cells = vec!["rust".into(), "10".into()];
        r.run_id = Some("run_0123456789".into());
        r.credits_used = 12;
        r.records = 3;
        let shown = ShownRow::of(&r);
        assert_eq!(shown.input, "rust · 10");
        assert_eq!((shown.line, shown.credits, shown.records), (7, 12, 3));
        assert_eq!(short_run_id("run_0123456789"), "run_0123");
        assert_eq!(short_run_id("r1"), "r1");
    }

    #[test]
    fn a_repeated_row_shows_its_first_rows_results_and_no_credits() {
        let mut first = row(2, RowState::Completed);
        first.run_id = Some("run_first".into());
        first.credits_used = 20;
        first.records = 1;
        let mut repeat = row(3, RowState::Repeat);
        repeat.repeat_of = Some(2);
        let rows = vec![first, repeat, row(4, RowState::Waiting)];
        let shown = rows_on_page(&rows, ALL_ROWS, 0);
        assert_eq!(
            (
                shown[1].state,
                shown[1].run_id.as_deref(),
                shown[1].credits,
                shown[1].records
            ),
            (RowState::Repeat, Some("run_first"), 0, 1)
        );
        assert_eq!(
            shown[1].same_as,
            Some(SameAs {
                line: 2,
                state: RowState::Completed
            })
        );
        assert_eq!(shown[0].same_as, None);
        assert_eq!(rows_on_page(&rows, "repeat", 0).len(), 1);
    }

    #[test]
    fn repeated_rows_are_counted_apart_and_listed() {
        let mut rows = vec![
            checked(2, 5, false),
            checked(3, 5, false),
            checked(4, 5, true),
        ];
        rows[1].repeat_of = Some(2);
        let counts = CheckedCounts::of(&rows);
        assert_eq!((counts.valid, counts.invalid, counts.worst_case), (1, 1, 5));
        assert_eq!(counts.repeats.rows, 1);
        assert_eq!(
            repeat_lines(&rows),
            [RepeatLine {
                line: 3,
                first_line: 2,
                input: "cell 3".into()
            }]
        );
        assert_eq!(
            repeats_sentence(counts.repeats),
            "1 row repeats an earlier row (the same input, perhaps written another way): each \
             is sent once, and a repeated row shows the results of its first row; up to 5 \
             credits saved."
        );
    }

    #[test]
    fn the_records_choice_names_how_records_are_told_apart() {
        assert_eq!(same_record_of("every", "x"), Ok(None));
        assert_eq!(
            same_record_of("contract-ids", ""),
            Ok(Some(SameRecord::ContractIds))
        );
        assert_eq!(
            same_record_of("column", " profile_url "),
            Ok(Some(SameRecord::Column("profile_url".into())))
        );
        assert!(same_record_of("column", "  ").is_err());
        assert_eq!(
            export_done_note(1200),
            "Exported: 1,200 duplicate records left out."
        );
    }

    #[test]
    fn kept_batches_are_named_by_where_they_stand() {
        let mut batch = SavedBatch {
            id: "b".into(),
            workspace: "w".into(),
            action: "premium_search_people".into(),
            headers: Vec::new(),
            created_at: 0.0,
            cancelled: false,
            done: false,
            to_send: 1,
            finished: 0,
            pace: None,
            budget: None,
            charged_before: 0,
            may_have_run: None,
            counts: None,
            expiry: Default::default(),
        };
        assert_eq!(saved_state(&batch), "unfinished");
        batch.cancelled = true;
        assert_eq!(saved_state(&batch), "cancelling");
        batch.done = true;
        assert_eq!(saved_state(&batch), "cancelled");
        batch.cancelled = false;
        assert_eq!(saved_state(&batch), "done");
    }
}
