//! The credit ledger: every workspace balance this browser reads is kept, and between two
//! readings the balance's drop is matched with the runs this browser saw charged in between;
//! what no seen run explains is spend by runs this browser did not see, per local day. What the
//! seen runs explain is split between the runs this console made (they carry its idempotency
//! keys) and those it only listed, so another key's spend stands out even when the list showed
//! it.
//!
//! The rule, from the contract's workspace (`credits_balance`, `credits_reserved`) as the console
//! reads it everywhere (available = balance − reserved): a run's reservation holds credits out of
//! what is available but does not lower the balance; when the run ends, its reservation is
//! released and its `credits_used` is taken from the balance, at its `completed_at`. So between
//! two readings the balance falls by exactly the `credits_used` of the runs that ended between
//! them, whatever was reserved or released meanwhile; a run in progress at a reading counts in
//! the interval in which it ends. A balance that rises more than runs explain had credits added.
//!
//! A reading's times are this browser's clock when the request left and when its answer came;
//! a run's are the API's. A run that ended close to a reading (within the request's flight and
//! [`CLOCK_SLACK_MS`] either side) may be in that reading or not: such runs are placed on the side
//! the balances agree with ([`intervals`]), so that when every run was seen here, every interval
//! is explained exactly, and a run never seen shows as exactly its cost.

use api_contract::Workspace;
use chrono::{DateTime, NaiveDate, NaiveDateTime, TimeZone, Utc};
use serde::{Deserialize, Serialize};

use crate::model::archive::KeptRun;
use crate::model::format::wall_clock;
use crate::model::output::CsvText;

/// How far this browser's clock and the API's may disagree, ms: a run that ended this close to
/// a reading's request may be on either side of it.
pub const CLOCK_SLACK_MS: f64 = 5_000.0;

/// Readings kept per workspace, at most. Readings that show no change are coalesced first
/// ([`BalanceReadings::with`]); past this, the oldest detail within a day goes.
pub const READINGS_KEPT_AT_MOST: usize = 1_000;

/// Where a reading may split the runs near it, at most: past this (thousands of runs charged
/// within seconds of one reading), only the placements closest to the clocks are weighed.
const PLACEMENTS_AT_MOST: usize = 200;

/// The workspace's balance as one answer to `GET /v1/workspace` gave it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BalanceReading {
    /// When the request left, ms since the epoch (this browser's clock).
    pub asked_at: f64,
    /// When its answer came, ms since the epoch: the API took its figures in between.
    pub answered_at: f64,
    /// `credits_balance`.
    pub balance: u64,
    /// `credits_reserved`: held by runs in progress, not yet taken from the balance.
    pub reserved: u64,
}

impl BalanceReading {
    /// The reading of `workspace`, asked at `asked_at` and answered at `answered_at`.
    pub fn of(workspace: &Workspace, asked_at: f64, answered_at: f64) -> BalanceReading {
        BalanceReading {
            asked_at,
            answered_at: answered_at.max(asked_at),
            balance: workspace.credits_balance,
            reserved: workspace.credits_reserved,
        }
    }

    /// The middle of the request's flight: the reading's time on a clock that agrees.
    fn middle(&self) -> f64 {
        (self.asked_at + self.answered_at) / 2.0
    }

    fn same_request(&self, other: &BalanceReading) -> bool {
        self.asked_at == other.asked_at && self.answered_at == other.answered_at
    }
}

/// Readings in time order, without the same request twice (a tab's reading written again, or
/// held in memory and read back).
fn in_order(readings: impl IntoIterator<Item = BalanceReading>) -> Vec<BalanceReading> {
    let mut readings: Vec<BalanceReading> = readings.into_iter().collect();
    readings.sort_by(|a, b| {
        a.asked_at
            .total_cmp(&b.asked_at)
            .then(a.answered_at.total_cmp(&b.answered_at))
    });
    readings.dedup_by(|later, earlier| later.same_request(earlier));
    readings
}

/// A workspace's readings as this browser keeps them: in time order, coalesced and bounded.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BalanceReadings {
    pub readings: Vec<BalanceReading>,
}

impl BalanceReadings {
    /// These readings with `new` ones, from any tab and in any order. Of readings in a row
    /// with the same balance, only the first and the last are kept (the last with the newest
    /// reservation): nothing was charged between them, and the two ends still say when the
    /// balance moved. Past [`READINGS_KEPT_AT_MOST`], the oldest reading between two of the
    /// same local day (in `zone`) goes, merging two intervals of that day into one, so each
    /// day's totals stay as they were; with none such, the oldest reading goes.
    pub fn with<Tz: TimeZone>(
        self,
        new: impl IntoIterator<Item = BalanceReading>,
        zone: &Tz,
    ) -> BalanceReadings {
        let ordered = in_order(self.readings.into_iter().chain(new));
        let mut readings: Vec<BalanceReading> = ordered
            .iter()
            .enumerate()
            .filter(|(i, reading)| {
                let same_as = |j: Option<usize>| {
                    j.and_then(|j| ordered.get(j))
                        .is_some_and(|other| other.balance == reading.balance)
                };
                !(same_as(i.checked_sub(1)) && same_as(Some(i + 1)))
            })
            .map(|(_, reading)| *reading)
            .collect();
        let mut days: Vec<NaiveDate> = readings
            .iter()
            .map(|r| local_day(r.answered_at, zone))
            .collect();
        while readings.len() > READINGS_KEPT_AT_MOST {
            let inside_a_day = (1..readings.len() - 1)
                .find(|&i| days[i - 1] == days[i + 1])
                .unwrap_or(0);
            readings.remove(inside_a_day);
            days.remove(inside_a_day);
        }
        BalanceReadings { readings }
    }
}

/// A moment (ms since the epoch) in `zone`'s local time.
fn local_time<Tz: TimeZone>(ms: f64, zone: &Tz) -> NaiveDateTime {
    DateTime::<Utc>::from_timestamp_millis(ms as i64)
        .unwrap_or_default()
        .with_timezone(zone)
        .naive_local()
}

fn local_day<Tz: TimeZone>(ms: f64, zone: &Tz) -> NaiveDate {
    local_time(ms, zone).date()
}

/// A seen run's charge as the ledger places it: `credits` taken from the balance at a moment
/// between `earliest` and `latest` (ms since the epoch, the API's clock); the same moment when
/// the run's `completed_at` is known.
#[derive(Clone, Debug, PartialEq)]
struct Charge<'a> {
    run_id: &'a str,
    credits: u64,
    /// Made by this console (it carries one of its idempotency keys), not only listed.
    made_here: bool,
    earliest: f64,
    latest: f64,
}

/// What a kept run tells the ledger.
enum Sighting<'a> {
    /// It ended and was charged (nothing to place when it cost nothing).
    Charged(Charge<'a>),
    /// Last seen queued or processing: its charge, if it ended since, is not known here.
    Unfinished,
}

fn ms(at: DateTime<Utc>) -> f64 {
    at.timestamp_millis() as f64
}

fn sighting(kept: &KeptRun) -> Sighting<'_> {
    let run = &kept.run;
    if !run.status.is_terminal() {
        return Sighting::Unfinished;
    }
    // A final run without its end time (known only partly): it ended after it was made and
    // before this browser saw it ended.
    let (earliest, latest) = match run.completed_at {
        Some(at) => (ms(at), ms(at)),
        None => (ms(run.created_at), kept.seen_at.max(ms(run.created_at))),
    };
    Sighting::Charged(Charge {
        run_id: &run.id,
        credits: run.credits_used,
        made_here: kept.idempotency_key.is_some(),
        earliest,
        latest,
    })
}

/// Between two readings: the balance's change, and what explains it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    pub from: BalanceReading,
    pub until: BalanceReading,
    /// Credits used by the runs seen here that were charged in it.
    pub explained: u64,
    /// Of those, used by the runs this console made; the rest by runs it only listed (made
    /// with another key, by a script, a colleague or another browser).
    pub made_here: u64,
    /// How many such runs (those that cost something).
    pub runs: usize,
    /// The balance fell by more than the seen runs used: spent by runs this browser did not see.
    pub unexplained: u64,
    /// The balance fell by less than the seen runs used (or rose): credits added.
    pub added: u64,
}

impl Interval {
    /// Credits taken from the balance: by the runs seen here and by the others.
    pub fn spent(&self) -> u64 {
        self.explained + self.unexplained
    }
}

/// One placement of the runs charged near reading `k`: the first `split` charges (in order)
/// are in it, and what that costs the ledger so far.
#[derive(Clone, Copy, Debug)]
struct Placement {
    split: usize,
    /// Σ|balance's drop − runs placed| over the intervals up to this reading: what the
    /// placement leaves unexplained or calls added.
    mismatch: u128,
    /// Σ how many runs the splits put on the other side of a reading than the clocks say.
    against_clocks: u64,
    /// The index of the placement chosen at the reading before.
    before: usize,
}

impl Placement {
    fn cost(&self) -> (u128, u64) {
        (self.mismatch, self.against_clocks)
    }
}

/// The intervals between `readings` (any order, duplicates allowed), with the runs of `runs`
/// (this browser's history of the workspace) charged in each.
///
/// Runs are taken in the order of their charges; a reading holds every charge up to the moment
/// the API took its figures, so the runs in it are the first ones, up to a split. A run charged
/// before the request left (less [`CLOCK_SLACK_MS`]) is in it, one charged after the answer
/// came (plus the slack) is not; between the two, the splits are chosen together over all
/// readings so that the balances' drops and the runs placed agree best (the least unexplained
/// and added credits in all), and among equals, the ones closest to what the clocks say.
pub fn intervals(readings: &[BalanceReading], runs: &[KeptRun]) -> Vec<Interval> {
    let readings = in_order(readings.iter().copied());
    if readings.len() < 2 {
        return Vec::new();
    }
    let mut charges: Vec<Charge> = runs
        .iter()
        .filter_map(|kept| match sighting(kept) {
            Sighting::Charged(charge) if charge.credits > 0 => Some(charge),
            _ => None,
        })
        .collect();
    charges.sort_by(|a, b| {
        a.latest
            .total_cmp(&b.latest)
            .then(a.earliest.total_cmp(&b.earliest))
            .then(a.run_id.cmp(b.run_id))
    });
    // used_before[i]: the credits of the first i charges; made_before[i]: of those, made here.
    let mut used_before = vec![0_u64; charges.len() + 1];
    let mut made_before = vec![0_u64; charges.len() + 1];
    for (i, charge) in charges.iter().enumerate() {
        used_before[i + 1] = used_before[i] + charge.credits;
        made_before[i + 1] = made_before[i] + if charge.made_here { charge.credits } else { 0 };
    }
    // earliest_so_far[i]: the latest `earliest` among the first i charges: a split may put
    // them all in a reading only if each may have been charged before it.
    let mut earliest_so_far = vec![f64::NEG_INFINITY; charges.len() + 1];
    for (i, charge) in charges.iter().enumerate() {
        earliest_so_far[i + 1] = earliest_so_far[i].max(charge.earliest);
    }

    let mut placements: Vec<Vec<Placement>> = Vec::with_capacity(readings.len());
    let mut lowest = 0;
    for (k, reading) in readings.iter().enumerate() {
        // Charges surely in the reading, then the most that may be.
        let surely = charges
            .partition_point(|c| c.latest < reading.asked_at - CLOCK_SLACK_MS)
            .max(lowest);
        let maybe = earliest_so_far
            .partition_point(|&earliest| earliest <= reading.answered_at + CLOCK_SLACK_MS)
            .saturating_sub(1)
            .max(surely);
        let by_clocks = charges
            .partition_point(|c| c.latest <= reading.middle())
            .clamp(surely, maybe);
        // Past the limit, the splits closest to the clocks' one.
        let from = by_clocks
            .saturating_sub(PLACEMENTS_AT_MOST / 2)
            .max(surely)
            .min(maybe.saturating_sub(PLACEMENTS_AT_MOST - 1).max(surely));
        let until = (from + PLACEMENTS_AT_MOST - 1).min(maybe);
        let against_clocks = |split: usize| split.abs_diff(by_clocks) as u64;
        let here: Vec<Placement> = if k == 0 {
            (from..=until)
                .map(|split| Placement {
                    split,
                    mismatch: 0,
                    against_clocks: against_clocks(split),
                    before: 0,
                })
                .collect()
        } else {
            let previous = &readings[k - 1];
            let drop = i128::from(previous.balance) - i128::from(reading.balance);
            (from..=until)
                .filter_map(|split| {
                    placements[k - 1]
                        .iter()
                        .enumerate()
                        .filter(|(_, p)| p.split <= split)
                        .map(|(index, p)| {
                            let placed = used_before[split] - used_before[p.split];
                            Placement {
                                split,
                                mismatch: p.mismatch + (drop - i128::from(placed)).unsigned_abs(),
                                against_clocks: p.against_clocks + against_clocks(split),
                                before: index,
                            }
                        })
                        .min_by(|a, b| a.cost().cmp(&b.cost()))
                })
                .collect()
        };
        lowest = here.iter().map(|p| p.split).min().unwrap_or(lowest);
        placements.push(here);
    }

    // The best placement at the last reading, and the ones it came from.
    let mut splits = vec![0; readings.len()];
    let mut index = placements[readings.len() - 1]
        .iter()
        .enumerate()
        .min_by(|(_, a), (_, b)| a.cost().cmp(&b.cost()))
        .map_or(0, |(index, _)| index);
    for k in (0..readings.len()).rev() {
        let placement = placements[k][index];
        splits[k] = placement.split;
        index = placement.before;
    }

    readings
        .windows(2)
        .zip(splits.windows(2))
        .map(|(pair, split)| {
            let explained = used_before[split[1]] - used_before[split[0]];
            let drop = i128::from(pair[0].balance) - i128::from(pair[1].balance);
            let left = drop - i128::from(explained);
            Interval {
                from: pair[0],
                until: pair[1],
                explained,
                made_here: made_before[split[1]] - made_before[split[0]],
                runs: split[1] - split[0],
                unexplained: u64::try_from(left.max(0)).unwrap_or(u64::MAX),
                added: u64::try_from((-left).max(0)).unwrap_or(u64::MAX),
            }
        })
        .collect()
}

/// One local day of the ledger: the intervals that ended on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LedgerDay {
    pub day: NaiveDate,
    /// When its first interval started: a reading of an earlier day when no console tab read
    /// the balance in between (its spend is counted on the day of the reading after).
    pub since: NaiveDateTime,
    pub spent: u64,
    /// Spent by the runs seen here.
    pub explained: u64,
    /// Of those, by the runs this console made ([`Interval::made_here`]).
    pub made_here: u64,
    /// Spent by runs this browser did not see.
    pub unexplained: u64,
    pub added: u64,
    /// Runs seen here charged in it (those that cost something).
    pub runs: usize,
    /// Readings that ended its intervals.
    pub readings: usize,
}

impl LedgerDay {
    /// Spent by runs this browser saw only in the API's list: made with another key, by a
    /// script, a colleague or another browser.
    pub fn listed_only(&self) -> u64 {
        self.explained - self.made_here
    }
}

/// Where the credits went: the ledger per day, and what it rests on.
#[derive(Clone, Debug, PartialEq)]
pub struct Ledger {
    /// Oldest first.
    pub days: Vec<LedgerDay>,
    /// The first and the last reading kept.
    pub first: Option<BalanceReading>,
    pub last: Option<BalanceReading>,
    /// Runs seen here last seen in progress, made since the first reading: if they ended, their
    /// charge is not known here yet, and counts as unexplained until it is.
    pub unfinished: usize,
}

/// The ledger's totals over its days.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LedgerTotals {
    pub spent: u64,
    pub explained: u64,
    pub made_here: u64,
    pub unexplained: u64,
    pub added: u64,
}

impl LedgerTotals {
    /// Spent by runs seen only in the API's list ([`LedgerDay::listed_only`]).
    pub fn listed_only(&self) -> u64 {
        self.explained - self.made_here
    }
}

impl Ledger {
    /// The ledger of `readings` (as kept, plus any not written yet) and the runs of `runs`,
    /// per local day in `zone`.
    pub fn of<Tz: TimeZone>(readings: &[BalanceReading], runs: &[KeptRun], zone: &Tz) -> Ledger {
        let ordered = in_order(readings.iter().copied());
        let mut days: Vec<LedgerDay> = Vec::new();
        for interval in intervals(&ordered, runs) {
            let day = local_day(interval.until.answered_at, zone);
            if days.last().is_none_or(|last| last.day != day) {
                days.push(LedgerDay {
                    day,
                    since: local_time(interval.from.answered_at, zone),
                    spent: 0,
                    explained: 0,
                    made_here: 0,
                    unexplained: 0,
                    added: 0,
                    runs: 0,
                    readings: 0,
                });
            }
            let today = days
                .last_mut()
                .expect("a day was just made for the interval");
            today.spent += interval.spent();
            today.explained += interval.explained;
            today.made_here += interval.made_here;
            today.unexplained += interval.unexplained;
            today.added += interval.added;
            today.runs += interval.runs;
            today.readings += 1;
        }
        let first = ordered.first().copied();
        let unfinished = runs
            .iter()
            .filter(|kept| matches!(sighting(kept), Sighting::Unfinished))
            .filter(|kept| {
                first.is_some_and(|f| ms(kept.run.created_at) >= f.asked_at - CLOCK_SLACK_MS)
            })
            .count();
        Ledger {
            days,
            first,
            last: ordered.last().copied(),
            unfinished,
        }
    }

    pub fn totals(&self) -> LedgerTotals {
        self.days
            .iter()
            .fold(LedgerTotals::default(), |sum, day| LedgerTotals {
                spent: sum.spent + day.spent,
                explained: sum.explained + day.explained,
                made_here: sum.made_here + day.made_here,
                unexplained: sum.unexplained + day.unexplained,
                added: sum.added + day.added,
            })
    }

    /// The table as CSV, as the page shows it: the same columns, the newest day first.
    pub fn csv(&self) -> String {
        let mut csv = CsvText::new();
        csv.line(LEDGER_COLUMNS);
        for day in self.days.iter().rev() {
            csv.line([
                day.day.to_string(),
                wall_clock(day.since),
                day.spent.to_string(),
                day.made_here.to_string(),
                day.listed_only().to_string(),
                day.unexplained.to_string(),
                day.added.to_string(),
                day.runs.to_string(),
                day.readings.to_string(),
            ]);
        }
        csv.into_text()
    }
}

/// The ledger's columns, on the page and in its CSV.
pub const LEDGER_COLUMNS: [&str; 9] = [
    "Day",
    "Since",
    "Spent",
    "By runs this console made",
    "By other runs it listed",
    "By runs this browser did not see",
    "Credits added",
    "Runs seen charged",
    "Readings",
];

#[cfg(test)]
mod tests;
