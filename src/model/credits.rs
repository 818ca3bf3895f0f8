//! Credits over time: spending per hour, day, week or month, split by action group, with a
//! per-action breakdown and the credits still reserved by runs in progress.
//!
//! From the API's latest 100 runs (the workspace page: the bucket fits the span of the data), or
//! from the history this browser keeps over a chosen range (`/credits`). A finished run counts at
//! its completion time (when it was charged); failed and cancelled runs cost nothing but are
//! still counted as runs of their action.

use api_contract::{ActionGroup, ActionId, Run, RunCounted};
use chrono::{
    DateTime, Datelike, Duration, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Timelike, Utc,
};

/// The width of one bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bucket {
    Hour,
    Day,
    Week,
    Month,
}

impl Bucket {
    /// Hours while the data spans two days at most, days up to about two months, then weeks.
    pub fn for_span(span: Duration) -> Bucket {
        if span <= Duration::hours(48) {
            Bucket::Hour
        } else if span <= Duration::days(62) {
            Bucket::Day
        } else {
            Bucket::Week
        }
    }

    /// "per hour", for sentences.
    pub fn per(self) -> &'static str {
        match self {
            Bucket::Hour => "per hour",
            Bucket::Day => "per day",
            Bucket::Week => "per week",
            Bucket::Month => "per month",
        }
    }

    /// The start of the bucket that holds `at` (local time); weeks start on Monday.
    fn start(self, at: NaiveDateTime) -> NaiveDateTime {
        let date = at.date();
        match self {
            Bucket::Hour => {
                date.and_time(NaiveTime::from_hms_opt(at.hour(), 0, 0).unwrap_or_default())
            }
            Bucket::Day => date.and_time(NaiveTime::MIN),
            Bucket::Week => {
                let monday =
                    date - Duration::days(i64::from(date.weekday().num_days_from_monday()));
                monday.and_time(NaiveTime::MIN)
            }
            Bucket::Month => date.with_day(1).unwrap_or(date).and_time(NaiveTime::MIN),
        }
    }

    /// The start of the bucket after the one starting at `start`.
    fn next(self, start: NaiveDateTime) -> NaiveDateTime {
        match self {
            Bucket::Hour => start + Duration::hours(1),
            Bucket::Day => start + Duration::days(1),
            Bucket::Week => start + Duration::weeks(1),
            Bucket::Month => start
                .checked_add_months(chrono::Months::new(1))
                .unwrap_or(start + Duration::days(31)),
        }
    }
}

/// A run as the chart reads it, with the records it returned (a run kept in this browser has
/// its count, not its output).
#[derive(Clone, Copy, Debug)]
pub struct SpentRun<'a> {
    pub run: &'a Run,
    pub records: u64,
}

/// A chosen span for the chart (local time): bars of `bucket` from `from` to `until`, empty
/// ones included; finished runs outside it are left out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub bucket: Bucket,
    pub from: NaiveDateTime,
    pub until: NaiveDateTime,
}

/// The series the bars are split into: the action groups in their order, then actions this
/// console does not know.
pub const SERIES: [&str; 4] = [
    ActionGroup::ALL[0].label(),
    ActionGroup::ALL[1].label(),
    ActionGroup::ALL[2].label(),
    "Other",
];

fn series_of(action: &str) -> usize {
    ActionId::parse(action)
        .and_then(|a| ActionGroup::ALL.iter().position(|g| *g == a.group()))
        .unwrap_or(SERIES.len() - 1)
}

/// One bar: its bucket's start (local time) and the credits spent in it per series.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    pub start: NaiveDateTime,
    pub credits: [u64; SERIES.len()],
}

impl Column {
    pub fn total(&self) -> u64 {
        self.credits.iter().sum()
    }
}

/// One action's share of the finished runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionTotal {
    pub action: String,
    pub series: usize,
    pub runs: usize,
    pub records: u64,
    pub credits: u64,
}

/// Everything the workspace page draws and tabulates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CreditsOverTime {
    pub bucket: Bucket,
    /// Consecutive buckets from the first finished run to the last, empty ones included.
    pub columns: Vec<Column>,
    /// By credits spent, most first.
    pub by_action: Vec<ActionTotal>,
    pub total: u64,
    /// Credits held by runs still queued or processing, and how many such runs.
    pub reserved: u64,
    pub in_progress: usize,
    /// How many runs the numbers come from.
    pub runs: usize,
}

impl CreditsOverTime {
    /// Reads `runs` (the API's latest, any order), bucketing by the local time in `zone`, in
    /// buckets that fit the span of the data.
    pub fn from_runs<Tz: TimeZone>(runs: &[Run], zone: &Tz) -> CreditsOverTime {
        let spent: Vec<SpentRun> = runs
            .iter()
            .map(|run| SpentRun {
                run,
                records: run.output.len() as u64,
            })
            .collect();
        CreditsOverTime::from_spent(&spent, zone, None)
    }

    /// [`CreditsOverTime::from_runs`] for a list read with each run's records counted, not
    /// kept (`RunCounted`): what a chart of the latest runs needs of them.
    pub fn from_counted<Tz: TimeZone>(runs: Vec<RunCounted>, zone: &Tz) -> CreditsOverTime {
        let records: Vec<u64> = runs.iter().map(|run| run.records as u64).collect();
        let runs: Vec<Run> = runs.into_iter().map(RunCounted::into_run).collect();
        let spent: Vec<SpentRun> = runs
            .iter()
            .zip(records)
            .map(|(run, records)| SpentRun { run, records })
            .collect();
        CreditsOverTime::from_spent(&spent, zone, None)
    }

    /// Reads `runs` (any order) in the local time of `zone`: over `span` when given, else from
    /// the first finished run to the last in buckets that fit.
    pub fn from_spent<Tz: TimeZone>(
        runs: &[SpentRun<'_>],
        zone: &Tz,
        span: Option<Span>,
    ) -> CreditsOverTime {
        let mut finished: Vec<(NaiveDateTime, SpentRun)> = Vec::new();
        let (mut reserved, mut in_progress) = (0, 0);
        for spent in runs {
            let run = spent.run;
            if run.status.is_terminal() {
                let at: DateTime<Utc> = run.completed_at.unwrap_or(run.created_at);
                let at = at.with_timezone(zone).naive_local();
                if span.is_none_or(|span| span.from <= at && at <= span.until) {
                    finished.push((at, *spent));
                }
            } else {
                reserved += run.credits_reserved;
                in_progress += 1;
            }
        }
        let first = finished.iter().map(|(at, _)| *at).min();
        let last = finished.iter().map(|(at, _)| *at).max();
        let (bucket, bounds) = match (span, first, last) {
            (Some(span), ..) => (span.bucket, Some((span.from, span.until))),
            (None, Some(first), Some(last)) => {
                (Bucket::for_span(last - first), Some((first, last)))
            }
            _ => (Bucket::Hour, None),
        };
        let mut columns = Vec::new();
        if let Some((first, last)) = bounds {
            let (mut start, end) = (bucket.start(first), bucket.start(last));
            while start <= end {
                columns.push(Column {
                    start,
                    credits: [0; SERIES.len()],
                });
                start = bucket.next(start);
            }
        }
        let mut by_action: Vec<ActionTotal> = Vec::new();
        for (at, spent) in &finished {
            let run = spent.run;
            let series = series_of(&run.action);
            let start = bucket.start(*at);
            if let Some(column) = columns.iter_mut().find(|c| c.start == start) {
                column.credits[series] += run.credits_used;
            }
            let entry = match by_action.iter().position(|a| a.action == run.action) {
                Some(i) => &mut by_action[i],
                None => {
                    by_action.push(ActionTotal {
                        action: run.action.clone(),
                        series,
                        runs: 0,
                        records: 0,
                        credits: 0,
                    });
                    by_action.last_mut().expect("just pushed")
                }
            };
            entry.runs += 1;
            entry.records += spent.records;
            entry.credits += run.credits_used;
        }
        by_action.sort_by(|a, b| b.credits.cmp(&a.credits).then(a.action.cmp(&b.action)));
        CreditsOverTime {
            bucket,
            total: by_action.iter().map(|a| a.credits).sum(),
            columns,
            by_action,
            reserved,
            in_progress,
            runs: finished.len() + in_progress,
        }
    }

    /// The largest bar, for the scale.
    pub fn peak(&self) -> u64 {
        self.columns.iter().map(Column::total).max().unwrap_or(0)
    }
}

/// A bucket for a table: `2026-11-20 14:00`, `2026-11-20`, `week of 2026-11-16`.
pub fn bucket_label(bucket: Bucket, start: NaiveDateTime) -> String {
    let day = |d: NaiveDate| format!("{:04}-{:02}-{:02}", d.year(), d.month(), d.day());
    match bucket {
        Bucket::Hour => format!("{} {:02}:00", day(start.date()), start.hour()),
        Bucket::Day => day(start.date()),
        Bucket::Week => format!("week of {}", day(start.date())),
        Bucket::Month => format!("{:04}-{:02}", start.year(), start.month()),
    }
}

/// A bucket under a bar, short: `14:00` (the date where the day changes), `11-20`, `11-16`.
pub fn axis_label(bucket: Bucket, start: NaiveDateTime, first_of_day: bool) -> String {
    let md = format!("{:02}-{:02}", start.month(), start.day());
    match bucket {
        Bucket::Hour if first_of_day => format!("{md} {:02}h", start.hour()),
        Bucket::Hour => format!("{:02}h", start.hour()),
        Bucket::Day | Bucket::Week => md,
        Bucket::Month => format!("{:04}-{:02}", start.year(), start.month()),
    }
}

/// A round number at least `peak`, for the top of the scale: 1, 2 or 5 × 10ⁿ.
pub fn nice_ceiling(peak: u64) -> u64 {
    let mut unit = 1;
    loop {
        for step in [1, 2, 5] {
            if step * unit >= peak {
                return step * unit;
            }
        }
        unit *= 10;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use api_contract::{Completeness, RunStatus};
    use chrono::FixedOffset;
    use serde_json::json;

    fn run(action: &str, status: RunStatus, done: Option<&str>, used: u64, reserved: u64) -> Run {
        Run {
            id: format!("{action}-{done:?}"),
            action: action.to_owned(),
            status,
            output: vec![json!({}); used as usize % 7],
            credits_used: used,
            credits_reserved: reserved,
            created_at: "2026-11-01T00:00:00Z".parse().unwrap(),
            completed_at: done.map(|d| d.parse().unwrap()),
            completeness: Completeness::single_page(false),
            error: None,
        }
    }

    /// A run of `action` completed at `done` that used `used` credits.
    fn completed(action: &str, done: &str, used: u64) -> Run {
        run(action, RunStatus::Completed, Some(done), used, 0)
    }

    #[test]
    fn runs_read_with_their_records_counted_chart_as_the_runs_themselves() {
        use RunStatus::*;
        let runs = vec![
            completed("premium-search-people", "2026-11-20T09:10:00Z", 10),
            completed("network-extract-people", "2026-11-21T09:50:00Z", 20),
            run("premium-search-people", Processing, None, 0, 40),
        ];
        let counted: Vec<RunCounted> =
            serde_json::from_value(serde_json::to_value(&runs).unwrap()).unwrap();
        assert_eq!(
            CreditsOverTime::from_counted(counted, &Utc),
            CreditsOverTime::from_runs(&runs, &Utc)
        );
    }

    #[test]
    fn the_bucket_fits_the_span() {
        assert_eq!(Bucket::for_span(Duration::hours(3)), Bucket::Hour);
        assert_eq!(Bucket::for_span(Duration::hours(48)), Bucket::Hour);
        assert_eq!(Bucket::for_span(Duration::hours(49)), Bucket::Day);
        assert_eq!(Bucket::for_span(Duration::days(62)), Bucket::Day);
        assert_eq!(Bucket::for_span(Duration::days(63)), Bucket::Week);
    }

    #[test]
    fn spending_is_bucketed_by_local_completion_time_and_split_by_group() {
        use RunStatus::*;
        let runs = vec![
            completed("premium-search-people", "2026-11-20T09:10:00Z", 10),
            completed("network-extract-people", "2026-11-20T09:50:00Z", 20),
            completed("premium-search-people", "2026-11-20T11:05:00Z", 5),
            run(
                "network-search-groups",
                Failed,
                Some("2026-11-20T10:00:00Z"),
                0,
                0,
            ),
            completed("not-known-yet", "2026-11-20T11:30:00Z", 3),
            run("premium-search-people", Processing, None, 0, 40),
            run("network-search-content", Queued, None, 0, 50),
        ];
        // UTC+1: 09:10Z is 10:10 local.
        let zone = FixedOffset::east_opt(3600).unwrap();
        let c = CreditsOverTime::from_runs(&runs, &zone);
        assert_eq!(c.bucket, Bucket::Hour);
        let hours: Vec<String> = c
            .columns
            .iter()
            .map(|col| bucket_label(c.bucket, col.start))
            .collect();
        assert_eq!(
            hours,
            ["2026-11-20 10:00", "2026-11-20 11:00", "2026-11-20 12:00"]
        );
        assert_eq!(c.columns[0].credits, [10, 0, 20, 0]);
        assert_eq!(
            c.columns[1].credits,
            [0, 0, 0, 0],
            "the failed run cost nothing"
        );
        assert_eq!(c.columns[2].credits, [5, 0, 0, 3]);
        assert_eq!(c.total, 38);
        assert_eq!(c.total, c.columns.iter().map(Column::total).sum::<u64>());
        assert_eq!((c.reserved, c.in_progress, c.runs), (90, 2, 7));
        assert_eq!(c.peak(), 30);
        let actions: Vec<(&str, usize, u64)> = c
            .by_action
            .iter()
            .map(|a| (a.action.as_str(), a.runs, a.credits))
            .collect();
        assert_eq!(
            actions,
            [
                ("network-extract-people", 1, 20),
                ("premium-search-people", 2, 15),
                ("not-known-yet", 1, 3),
                ("network-search-groups", 1, 0),
            ]
        );
    }

    #[test]
    fn days_and_weeks_include_empty_buckets() {
        let days = vec![
            completed("premium-search-people", "2026-11-01T12:00:00Z", 4),
            completed("premium-search-people", "2026-11-04T12:00:00Z", 6),
        ];
        let c = CreditsOverTime::from_runs(&days, &Utc);
        assert_eq!(c.bucket, Bucket::Day);
        assert_eq!(c.columns.len(), 4);
        assert_eq!(
            c.columns.iter().map(Column::total).collect::<Vec<_>>(),
            [4, 0, 0, 6]
        );
        let weeks = vec![
            completed("premium-search-people", "2026-08-05T12:00:00Z", 4),
            completed("premium-search-people", "2026-11-22T12:00:00Z", 6),
        ];
        let c = CreditsOverTime::from_runs(&weeks, &Utc);
        assert_eq!(c.bucket, Bucket::Week);
        assert_eq!(
            bucket_label(c.bucket, c.columns[0].start),
            "week of 2026-08-03"
        );
        assert_eq!(
            c.columns.last().unwrap().start.weekday(),
            chrono::Weekday::Mon
        );
        assert_eq!(c.total, 10);
    }

    #[test]
    fn a_chosen_span_has_its_bucket_and_leaves_out_what_is_outside_it() {
        let runs = [
            completed("premium-search-people", "2026-09-30T12:00:00Z", 3),
            completed("premium-search-people", "2026-10-15T12:00:00Z", 4),
            completed("network-search-groups", "2026-11-20T12:00:00Z", 6),
        ];
        let spent: Vec<SpentRun> = runs
            .iter()
            .map(|run| SpentRun { run, records: 9 })
            .collect();
        let at = |text: &str| text.parse::<NaiveDateTime>().unwrap();
        let span = Span {
            bucket: Bucket::Month,
            from: at("2026-10-01T00:00:00"),
            until: at("2026-12-10T00:00:00"),
        };
        let c = CreditsOverTime::from_spent(&spent, &Utc, Some(span));
        assert_eq!(
            c.columns
                .iter()
                .map(|col| (bucket_label(c.bucket, col.start), col.total()))
                .collect::<Vec<_>>(),
            [
                ("2026-10".to_owned(), 4),
                ("2026-11".to_owned(), 6),
                ("2026-12".to_owned(), 0)
            ]
        );
        assert_eq!((c.total, c.runs), (10, 2), "September's run is outside");
        assert_eq!(c.by_action.iter().map(|a| a.records).sum::<u64>(), 18);
    }

    #[test]
    fn no_finished_run_means_no_columns() {
        let c = CreditsOverTime::from_runs(&[], &Utc);
        assert!(c.columns.is_empty());
        assert_eq!((c.total, c.peak(), c.runs), (0, 0, 0));
    }

    #[test]
    fn scales_end_on_round_numbers() {
        let tops: Vec<u64> = [0, 1, 3, 7, 20, 21, 480, 5001]
            .into_iter()
            .map(nice_ceiling)
            .collect();
        assert_eq!(tops, [1, 1, 5, 10, 20, 50, 500, 10_000]);
    }
}
