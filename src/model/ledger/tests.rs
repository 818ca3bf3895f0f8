use super::*;
use api_contract::{Completeness, Run, RunStatus};
use chrono::FixedOffset;
use proptest::prelude::*;

/// 2026-11-20 10:00:00 UTC, ms since the epoch.
fn start() -> f64 {
    Utc.with_ymd_and_hms(2026, 11, 20, 10, 0, 0)
        .unwrap()
        .timestamp_millis() as f64
}

/// `seconds` after [`start`], ms since the epoch.
fn at(seconds: f64) -> f64 {
    start() + seconds * 1_000.0
}

/// A reading asked `seconds` after the start, answered 20 ms later.
fn reading(seconds: f64, balance: u64, reserved: u64) -> BalanceReading {
    BalanceReading {
        asked_at: at(seconds),
        answered_at: at(seconds) + 20.0,
        balance,
        reserved,
    }
}

fn time(ms: f64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(ms.round() as i64).unwrap()
}

fn run(id: &str, status: RunStatus, used: u64, created: f64, completed: Option<f64>) -> KeptRun {
    let run = Run {
        id: id.to_owned(),
        action: "premium-search-people".to_owned(),
        status,
        output: Vec::new(),
        credits_used: used,
        credits_reserved: if status.is_terminal() { 0 } else { 50 },
        created_at: time(created),
        completed_at: completed.map(time),
        completeness: Completeness::single_page(false),
        error: None,
    };
    KeptRun::seen("ws", &run, completed.unwrap_or(created) + 500.0)
}

/// A run seen ended `seconds` after the start, charged `used`.
fn ended(id: &str, used: u64, seconds: f64) -> KeptRun {
    ended_at(id, used, at(seconds))
}

/// A run seen ended at `ms` (since the epoch), charged `used`.
fn ended_at(id: &str, used: u64, ms: f64) -> KeptRun {
    run(id, RunStatus::Completed, used, ms - 2_000.0, Some(ms))
}

/// What each interval shows: (explained, unexplained, added).
fn shown(intervals: &[Interval]) -> Vec<(u64, u64, u64)> {
    intervals
        .iter()
        .map(|i| (i.explained, i.unexplained, i.added))
        .collect()
}

#[test]
fn a_run_seen_here_explains_its_interval_and_a_run_never_seen_shows_as_exactly_its_cost() {
    let readings = [
        reading(0.0, 1_000, 0),
        reading(60.0, 990, 0),
        // 7 credits spent by a run this browser never saw.
        reading(120.0, 983, 0),
    ];
    let runs = [ended("seen", 10, 30.0)];
    let intervals = intervals(&readings, &runs);
    assert_eq!(shown(&intervals), [(10, 0, 0), (0, 7, 0)]);
    assert_eq!(intervals[0].runs, 1);
    assert_eq!(intervals[1].spent(), 7);
}

#[test]
fn a_run_in_progress_at_a_reading_counts_in_the_interval_where_it_ends() {
    // Reserved at the second reading: the balance has not moved; charged 30 at 40 s.
    let readings = [
        reading(0.0, 1_000, 0),
        reading(20.0, 1_000, 50),
        reading(60.0, 970, 0),
    ];
    let finished = [run("r", RunStatus::Completed, 30, at(10.0), Some(at(40.0)))];
    assert_eq!(
        shown(&intervals(&readings, &finished)),
        [(0, 0, 0), (30, 0, 0)]
    );

    // Seen only in progress: its charge is not known here, so the drop is unexplained, and
    // the ledger says a run seen here may be behind it.
    let in_progress = [run("r", RunStatus::Processing, 0, at(10.0), None)];
    assert_eq!(
        shown(&intervals(&readings, &in_progress)),
        [(0, 0, 0), (0, 30, 0)]
    );
    let ledger = Ledger::of(&readings, &in_progress, &Utc);
    assert_eq!(ledger.unfinished, 1);
    assert_eq!(Ledger::of(&readings, &finished, &Utc).unfinished, 0);
}

#[test]
fn a_charge_on_the_reading_itself_counts_on_the_side_the_balance_shows() {
    let runs = [ended("on-the-reading", 25, 60.0)];
    // The API took its figures after the charge: the reading shows it.
    let shows_it = [
        reading(0.0, 500, 0),
        reading(60.0, 475, 0),
        reading(120.0, 475, 0),
    ];
    assert_eq!(shown(&intervals(&shows_it, &runs)), [(25, 0, 0), (0, 0, 0)]);
    // It took them before: the next one does.
    let shows_it_later = [
        reading(0.0, 500, 0),
        reading(60.0, 500, 0),
        reading(120.0, 475, 0),
    ];
    assert_eq!(
        shown(&intervals(&shows_it_later, &runs)),
        [(0, 0, 0), (25, 0, 0)]
    );
    // Within the slack of the clocks, on either side of the request.
    for off in [-CLOCK_SLACK_MS + 1.0, CLOCK_SLACK_MS - 1.0] {
        let runs = [ended("near", 25, 60.0 + off / 1_000.0)];
        assert_eq!(shown(&intervals(&shows_it, &runs)), [(25, 0, 0), (0, 0, 0)]);
        assert_eq!(
            shown(&intervals(&shows_it_later, &runs)),
            [(0, 0, 0), (25, 0, 0)]
        );
    }
}

#[test]
fn runs_charged_near_a_reading_are_split_where_the_balance_says() {
    // Five runs charged within the second reading's request, 4 ms apart.
    let runs: Vec<KeptRun> = (0..5)
        .map(|i| ended(&format!("r{i}"), 10 + i, 60.0 + f64::from(i as u32) * 0.004))
        .collect();
    // The clocks would say three (charged before the middle of the request); the balance
    // says two.
    let readings = [
        reading(0.0, 1_000, 0),
        reading(60.0, 1_000 - 10 - 11, 0),
        reading(120.0, 1_000 - 10 - 11 - 12 - 13 - 14, 0),
    ];
    let intervals = intervals(&readings, &runs);
    assert_eq!(shown(&intervals), [(21, 0, 0), (39, 0, 0)]);
    assert_eq!((intervals[0].runs, intervals[1].runs), (2, 3));
}

#[test]
fn a_balance_that_rises_is_credit_added_not_negative_spend() {
    let readings = [
        reading(0.0, 1_000, 0),
        // 500 added, 20 spent by a run seen here.
        reading(60.0, 1_480, 0),
        // 300 added, nothing else.
        reading(120.0, 1_780, 0),
    ];
    let runs = [ended("seen", 20, 30.0)];
    let intervals = intervals(&readings, &runs);
    assert_eq!(shown(&intervals), [(20, 0, 500), (0, 0, 300)]);
    assert_eq!(intervals[0].spent(), 20);
    let totals = Ledger::of(&readings, &runs, &Utc).totals();
    assert_eq!(
        totals,
        LedgerTotals {
            spent: 20,
            explained: 20,
            made_here: 0,
            unexplained: 0,
            added: 800
        }
    );
}

#[test]
fn runs_this_console_made_are_told_from_runs_it_only_listed() {
    let readings = [
        reading(0.0, 1_000, 0),
        reading(60.0, 930, 0),
        reading(120.0, 900, 0),
    ];
    // Made here (with this console's key), then two runs of another key that the list showed.
    let runs = [
        ended("mine", 20, 10.0).made_here(None, "console-key-1"),
        ended("script-1", 50, 30.0),
        ended("script-2", 30, 90.0),
    ];
    let intervals = intervals(&readings, &runs);
    assert_eq!(shown(&intervals), [(70, 0, 0), (30, 0, 0)]);
    assert_eq!(
        intervals.iter().map(|i| i.made_here).collect::<Vec<_>>(),
        [20, 0]
    );
    let ledger = Ledger::of(&readings, &runs, &Utc);
    let totals = ledger.totals();
    assert_eq!((totals.made_here, totals.listed_only()), (20, 80));
    let day = &ledger.days[0];
    assert_eq!(
        (day.made_here, day.listed_only(), day.explained),
        (20, 80, 100)
    );
    // The CSV has both, in the page's columns.
    let csv = ledger.csv();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header, LEDGER_COLUMNS);
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name: &str| row[header.iter().position(|h| *h == name).unwrap()];
    assert_eq!(column("By runs this console made"), "20");
    assert_eq!(column("By other runs it listed"), "80");
    assert_eq!(column("By runs this browser did not see"), "0");
}

#[test]
fn readings_in_any_order_and_twice_make_the_same_ledger() {
    let readings = [
        reading(0.0, 1_000, 0),
        reading(60.0, 990, 0),
        reading(120.0, 970, 5),
        reading(180.0, 960, 0),
    ];
    let runs = [
        ended("a", 10, 30.0),
        ended("b", 15, 90.0),
        ended("c", 10, 150.0),
    ];
    let in_order = Ledger::of(&readings, &runs, &Utc);
    let mut shuffled = vec![readings[2], readings[0], readings[3], readings[2]];
    shuffled.extend([readings[1], readings[0]]);
    assert_eq!(Ledger::of(&shuffled, &runs, &Utc), in_order);
    assert_eq!(
        shown(&intervals(&shuffled, &runs)),
        [(10, 0, 0), (15, 5, 0), (10, 0, 0)]
    );
}

#[test]
fn a_run_known_only_partly_is_placed_where_the_balance_shows_it() {
    // Final, without its end time: charged between its making and when this browser saw it.
    let mut partly = run("p", RunStatus::Completed, 25, at(10.0), None);
    partly.seen_at = at(200.0);
    let readings = [
        reading(0.0, 1_000, 0),
        reading(60.0, 1_000, 0),
        reading(120.0, 975, 0),
        reading(180.0, 975, 0),
    ];
    assert_eq!(
        shown(&intervals(&readings, &[partly])),
        [(0, 0, 0), (25, 0, 0), (0, 0, 0)]
    );
}

#[test]
fn runs_charged_before_the_first_reading_or_after_the_last_are_not_in_the_ledger() {
    let readings = [reading(100.0, 900, 0), reading(200.0, 880, 0)];
    let runs = [
        ended("before", 100, 50.0),
        ended("between", 20, 150.0),
        ended("after", 30, 250.0),
    ];
    assert_eq!(shown(&intervals(&readings, &runs)), [(20, 0, 0)]);
    assert!(intervals(&readings[..1], &runs).is_empty());
    let ledger = Ledger::of(&[], &runs, &Utc);
    assert!(ledger.days.is_empty());
    assert_eq!(
        (ledger.first, ledger.last, ledger.unfinished),
        (None, None, 0)
    );
}

#[test]
fn days_are_local_and_a_gap_counts_on_the_day_the_balance_was_read_again() {
    // UTC+1: 22:30 UTC is 23:30 local, 23:30 UTC is 00:30 the next day.
    let zone = FixedOffset::east_opt(3_600).unwrap();
    let utc = |d: u32, h: u32, m: u32| {
        Utc.with_ymd_and_hms(2026, 11, d, h, m, 0)
            .unwrap()
            .timestamp_millis() as f64
    };
    let read = |ms: f64, balance| BalanceReading {
        asked_at: ms,
        answered_at: ms + 20.0,
        balance,
        reserved: 0,
    };
    let readings = [
        read(utc(20, 22, 0), 1_000),
        read(utc(20, 22, 30), 990),
        read(utc(20, 23, 30), 985),
        // Nobody read the balance for two days.
        read(utc(23, 9, 0), 900),
    ];
    let runs = [ended("seen", 10, (utc(20, 22, 10) - start()) / 1_000.0)];
    let ledger = Ledger::of(&readings, &runs, &zone);
    let days: Vec<(String, String, u64, u64, u64)> = ledger
        .days
        .iter()
        .map(|d| {
            (
                d.day.to_string(),
                d.since.to_string(),
                d.spent,
                d.explained,
                d.unexplained,
            )
        })
        .collect();
    assert_eq!(
        days,
        [
            (
                "2026-11-20".to_owned(),
                "2026-11-20 23:00:00.020".to_owned(),
                10,
                10,
                0
            ),
            (
                "2026-11-21".to_owned(),
                "2026-11-20 23:30:00.020".to_owned(),
                5,
                0,
                5
            ),
            (
                "2026-11-23".to_owned(),
                "2026-11-21 00:30:00.020".to_owned(),
                85,
                0,
                85
            ),
        ]
    );
    assert_eq!(ledger.days[2].readings, 1);
}

#[test]
fn the_table_exports_as_csv_as_the_page_shows_it() {
    let readings = [
        reading(0.0, 1_000, 0),
        reading(60.0, 990, 0),
        reading(120.0, 983, 0),
        reading(180.0, 1_483, 0),
        // The next day.
        reading(86_400.0 + 60.0, 1_480, 0),
    ];
    let runs = [
        ended("seen", 10, 30.0).made_here(None, "console-key"),
        ended("next-day", 3, 86_400.0 + 30.0),
    ];
    let csv = Ledger::of(&readings, &runs, &Utc).csv();
    assert_eq!(
        csv,
        "Day,Since,Spent,By runs this console made,By other runs it listed,By runs this browser did not see,Credits added,Runs seen charged,Readings\r\n\
         2026-11-21,2026-11-20 10:03:00,3,0,3,0,0,1,1\r\n\
         2026-11-20,2026-11-20 10:00:00,17,10,0,7,500,1,3\r\n"
    );
}

#[test]
fn kept_readings_coalesce_what_shows_no_change() {
    let kept = BalanceReadings::default().with(
        [
            reading(0.0, 1_000, 0),
            reading(10.0, 1_000, 40),
            reading(20.0, 1_000, 40),
            reading(30.0, 1_000, 10),
            reading(40.0, 960, 0),
            reading(50.0, 960, 0),
        ],
        &Utc,
    );
    assert_eq!(
        kept.readings,
        [
            reading(0.0, 1_000, 0),
            reading(30.0, 1_000, 10),
            reading(40.0, 960, 0),
            reading(50.0, 960, 0),
        ],
        "the first and last of each stretch of the same balance, the last with its reservation"
    );
    // A reading from another tab, older, and one read again: in order, once.
    let again = kept
        .clone()
        .with([reading(5.0, 1_000, 0), reading(50.0, 960, 0)], &Utc);
    assert_eq!(again, kept);
}

#[test]
fn kept_readings_stay_bounded_and_keep_each_days_totals() {
    // Three days; the balance moves at every reading, by a run seen here each time.
    let per_day = READINGS_KEPT_AT_MOST / 3 + 14;
    let mut readings = Vec::new();
    let mut runs = Vec::new();
    let mut balance = 1_000_000;
    for day in 0..3 {
        for minute in 0..per_day {
            let seconds = f64::from(day) * 86_400.0 + minute as f64 * 60.0;
            readings.push(reading(seconds, balance, 0));
            balance -= 3;
            runs.push(ended(&format!("r{day}-{minute}"), 3, seconds + 30.0));
        }
    }
    let kept = BalanceReadings::default().with(readings.clone(), &Utc);
    assert_eq!(kept.readings.len(), READINGS_KEPT_AT_MOST);
    let all = Ledger::of(&readings, &runs, &Utc);
    let bounded = Ledger::of(&kept.readings, &runs, &Utc);
    // The oldest detail went, within the first day; each day's totals are as they were.
    assert_eq!(kept.readings[0], in_order(readings.clone())[0]);
    for (a, b) in all.days.iter().zip(&bounded.days) {
        assert_eq!(
            (a.day, a.since, a.spent, a.explained, a.unexplained, a.added),
            (b.day, b.since, b.spent, b.explained, b.unexplained, b.added)
        );
    }
    assert_eq!(all.days.len(), bounded.days.len());
    assert!(bounded.days[0].readings < all.days[0].readings);
    assert_eq!(bounded.totals().unexplained, 0);
}

/// A workspace's life on the API's clock: runs charged, credits added, and balances read by a
/// browser whose clock is `skew` ms off, each read at a moment within its request's flight.
#[derive(Clone, Debug)]
struct Session {
    /// Seen here: (charged at, credits).
    seen: Vec<(u32, u64)>,
    /// Never seen here.
    unseen: Vec<(u32, u64)>,
    /// Credits added: (at, credits).
    added: Vec<(u32, u64)>,
    /// Requests: (asked at, flight, where in the flight the API took its figures, 0–1).
    reads: Vec<(u32, u32, f64)>,
    skew: f64,
}

const OPENING: u64 = 1_000_000;

impl Session {
    /// The readings, in the browser's clock, and each one's moment on the API's.
    fn readings(&self) -> Vec<(BalanceReading, f64)> {
        let mut reads = self.reads.clone();
        reads.sort_by_key(|r| r.0);
        reads
            .iter()
            .map(|&(asked, flight, share)| {
                let figures_at = f64::from(asked) + f64::from(flight) * share;
                let by = |events: &[(u32, u64)]| -> u64 {
                    events
                        .iter()
                        .filter(|(t, _)| f64::from(*t) <= figures_at)
                        .map(|(_, c)| c)
                        .sum()
                };
                let balance = OPENING + by(&self.added) - by(&self.seen) - by(&self.unseen);
                let reading = BalanceReading {
                    asked_at: start() + f64::from(asked) + self.skew,
                    answered_at: start() + f64::from(asked + flight) + self.skew,
                    balance,
                    reserved: 0,
                };
                (reading, figures_at)
            })
            .collect()
    }

    fn seen_runs(&self) -> Vec<KeptRun> {
        self.seen
            .iter()
            .enumerate()
            .map(|(i, &(t, credits))| {
                ended_at(&format!("run-{i}"), credits, start() + f64::from(t))
            })
            .collect()
    }
}

/// Requests far enough apart that their flights never overlap (one tab reads at a time).
fn reads() -> impl Strategy<Value = Vec<(u32, u32, f64)>> {
    prop::collection::btree_set(0u32..1_200, 2..25).prop_flat_map(|slots| {
        let n = slots.len();
        (
            Just(slots),
            prop::collection::vec((0u32..400, 0.0f64..=1.0), n),
        )
            .prop_map(|(slots, flights)| {
                slots
                    .into_iter()
                    .zip(flights)
                    .map(|(slot, (flight, share))| (slot * 500, flight, share))
                    .collect()
            })
    })
}

fn events(most: usize) -> impl Strategy<Value = Vec<(u32, u64)>> {
    prop::collection::vec((0u32..600_000, 1u64..60), 0..=most)
}

fn session(unseen: usize, added: usize) -> impl Strategy<Value = Session> {
    (
        events(60),
        events(unseen),
        events(added),
        reads(),
        -2_000.0f64..2_000.0,
    )
        .prop_map(|(seen, unseen, added, reads, skew)| Session {
            seen,
            unseen,
            added,
            reads,
            skew,
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// With only runs seen here, however the clocks disagree (within the slack), wherever the
    /// API took its figures within each request, and in whatever order the readings come,
    /// nothing is unexplained or added, and the runs explain every credit the balance lost.
    #[test]
    fn with_only_runs_seen_here_nothing_is_unexplained(session in session(0, 0)) {
        let read = session.readings();
        let mut readings: Vec<BalanceReading> = read.iter().map(|(r, _)| *r).collect();
        readings.reverse();
        readings.push(readings[0]);
        let intervals = intervals(&readings, &session.seen_runs());
        prop_assert!(intervals.iter().all(|i| i.unexplained == 0 && i.added == 0), "{intervals:?}");
        let lost = read[0].0.balance - read[read.len() - 1].0.balance;
        prop_assert_eq!(intervals.iter().map(|i| i.explained).sum::<u64>(), lost);
        prop_assert_eq!(Ledger::of(&readings, &session.seen_runs(), &Utc).totals().unexplained, 0);
    }

    /// Runs never seen here show as exactly their cost over the readings (those charged between
    /// the first reading and the last), as long as no run seen here ended within the slack of
    /// the first or last reading (where a seen run could stand for an unseen one).
    #[test]
    fn runs_never_seen_here_show_as_exactly_their_cost(mut session in session(20, 0)) {
        let read = session.readings();
        let (first, last) = (read[0], read[read.len() - 1]);
        let near = |t: u32, (reading, _): (BalanceReading, f64)| {
            let t = start() + f64::from(t);
            t >= reading.asked_at - 2.0 * CLOCK_SLACK_MS && t <= reading.answered_at + 2.0 * CLOCK_SLACK_MS
        };
        session.seen.retain(|&(t, _)| !near(t, first) && !near(t, last));
        let read = session.readings();
        let (from, until) = (read[0].1, read[read.len() - 1].1);
        let cost: u64 = session
            .unseen
            .iter()
            .filter(|(t, _)| f64::from(*t) > from && f64::from(*t) <= until)
            .map(|(_, c)| c)
            .sum();
        let readings: Vec<BalanceReading> = read.iter().map(|(r, _)| *r).collect();
        let totals = Ledger::of(&readings, &session.seen_runs(), &Utc).totals();
        prop_assert_eq!(totals.unexplained, cost);
        prop_assert_eq!(totals.added, 0);
    }

    /// With runs seen and unseen and credits added, each interval adds up: what was spent less
    /// what was added is what the balance lost, and the days hold every interval.
    #[test]
    fn every_interval_adds_up(session in session(10, 5)) {
        let readings: Vec<BalanceReading> = session.readings().iter().map(|(r, _)| *r).collect();
        let runs = session.seen_runs();
        let intervals = intervals(&readings, &runs);
        for interval in &intervals {
            let lost = i128::from(interval.from.balance) - i128::from(interval.until.balance);
            prop_assert_eq!(i128::from(interval.spent()) - i128::from(interval.added), lost);
            prop_assert!(interval.unexplained == 0 || interval.added == 0);
        }
        let ledger = Ledger::of(&readings, &runs, &Utc);
        prop_assert_eq!(ledger.totals().spent, intervals.iter().map(Interval::spent).sum::<u64>());
        prop_assert_eq!(ledger.days.iter().map(|d| d.readings).sum::<usize>(), intervals.len());
    }
}
