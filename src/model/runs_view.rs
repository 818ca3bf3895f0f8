//! The runs list's rules: the history prepared for searching, the view the URL's query gives
//! (filters, sort) and the query printed back, the rows it shows in order, the pick of two
//! runs to compare, and which kept runs still running are read again.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use api_contract::{Run, RunStatus};
use chrono::{DateTime, Local, NaiveDate, Utc};
use serde_json::Value;

use crate::model::archive::{KeptRun, ListReads, RunSource, input_text};
use crate::model::urls::encode;

/// Kept runs not final when last seen, picked to be read again from the API at a time.
pub const STALE_READS_AT_ONCE: usize = 20;
/// How many times at most such a run is read while it is still running.
pub const STALE_ROUNDS: usize = 100;

/// The workspace's history as this browser keeps it, prepared for the list.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KeptHistory {
    pub runs: Vec<KeptRun>,
    /// Each run's [`kept_search_text`], in the same order: made once per read, not per keystroke.
    pub search: Vec<String>,
    /// The actions the history holds, for the Action filter.
    pub actions: BTreeSet<String>,
    /// Each run's place in `runs`, by id: an API run's kept input is found without a pass over
    /// the history.
    pub index_of: HashMap<String, usize>,
    pub reads: ListReads,
}

impl KeptHistory {
    /// The history of `runs`, each with its search text (`search`, same order).
    pub fn new(runs: Vec<KeptRun>, search: Vec<String>, reads: ListReads) -> KeptHistory {
        KeptHistory {
            search,
            actions: runs.iter().map(|k| k.run.action.clone()).collect(),
            index_of: runs
                .iter()
                .enumerate()
                .map(|(i, k)| (k.run.id.clone(), i))
                .collect(),
            runs,
            reads,
        }
    }
}

/// What a search looks into, lower case: the run's id, action, error code and message, and the
/// input this console sent for it.
pub fn search_text(run: &Run, input: Option<&Value>) -> String {
    let error = run.error.as_ref();
    let mut text = [
        Some(run.id.as_str()),
        Some(run.action.as_str()),
        error.map(|e| e.code.as_str()),
        error.map(|e| e.message.as_str()),
    ]
    .into_iter()
    .flatten()
    .map(str::to_lowercase)
    .collect::<Vec<_>>()
    .join("\n");
    if let Some(input) = input {
        text.push('\n');
        text.push_str(&input_text(input));
    }
    text
}

/// A kept run's [`search_text`], with the idempotency key this console sent it with: what a
/// support person matching logs searches for.
pub fn kept_search_text(kept: &KeptRun) -> String {
    let mut text = search_text(&kept.run, kept.input.as_ref());
    if let Some(key) = &kept.idempotency_key {
        text.push('\n');
        text.push_str(&key.to_lowercase());
    }
    text
}

/// The list's view as the URL gives it:
/// `?status=failed&action=…&q=…&from=2026-11-01&until=2026-11-24&sort=credits&order=asc`.
#[derive(Clone, Debug, PartialEq)]
pub struct RunsView {
    pub status: Option<RunStatus>,
    /// Text to find in a run's id, action, error code or message, or the input this console
    /// sent for it (any case).
    pub text: String,
    /// A `status` in the URL that is not a run status: shown as a notice, then ignored.
    pub unknown_status: Option<String>,
    pub action: String,
    /// Runs created on these days or between them, in the browser's time zone (inclusive).
    pub from: Option<NaiveDate>,
    pub until: Option<NaiveDate>,
    /// A `from` or `until` in the URL that is not a date: shown as a notice, then ignored.
    pub bad_dates: Vec<String>,
    pub sort: SortBy,
    pub descending: bool,
}

impl Default for RunsView {
    fn default() -> RunsView {
        RunsView {
            status: None,
            text: String::new(),
            unknown_status: None,
            action: String::new(),
            from: None,
            until: None,
            bad_dates: Vec::new(),
            sort: SortBy::Created,
            descending: true,
        }
    }
}

/// The column the list is sorted by (`sort=` in the URL; creation time without one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortBy {
    Created,
    Action,
    Status,
    Records,
    Credits,
    Reserved,
    Duration,
    Error,
    Source,
}

impl SortBy {
    pub const ALL: [SortBy; 9] = [
        SortBy::Created,
        SortBy::Action,
        SortBy::Status,
        SortBy::Records,
        SortBy::Credits,
        SortBy::Reserved,
        SortBy::Duration,
        SortBy::Error,
        SortBy::Source,
    ];

    /// Its name in the URL.
    pub fn key(self) -> &'static str {
        match self {
            SortBy::Created => "created",
            SortBy::Action => "action",
            SortBy::Status => "status",
            SortBy::Records => "records",
            SortBy::Credits => "credits",
            SortBy::Reserved => "reserved",
            SortBy::Duration => "duration",
            SortBy::Error => "error",
            SortBy::Source => "source",
        }
    }

    /// The column's heading.
    pub fn label(self) -> &'static str {
        match self {
            SortBy::Created => "Created",
            SortBy::Action => "Action",
            SortBy::Status => "Status",
            SortBy::Records => "Records",
            SortBy::Credits => "Credits used",
            SortBy::Reserved => "Reserved",
            SortBy::Duration => "Duration",
            SortBy::Error => "Error",
            SortBy::Source => "From",
        }
    }

    /// The first click on a column: the newest, the largest and the longest first; text A to Z.
    pub fn descending_first(self) -> bool {
        matches!(
            self,
            SortBy::Created
                | SortBy::Records
                | SortBy::Credits
                | SortBy::Reserved
                | SortBy::Duration
        )
    }

    /// Whether the column holds numbers (aligned right).
    pub fn is_numeric(self) -> bool {
        matches!(
            self,
            SortBy::Records | SortBy::Credits | SortBy::Reserved | SortBy::Duration
        )
    }

    /// Two listed runs in this column's ascending order.
    fn compare(self, a: &ListedRun<'_>, b: &ListedRun<'_>) -> Ordering {
        let duration = |r: &ListedRun<'_>| r.run.completed_at.map(|end| end - r.run.created_at);
        fn error<'a>(listed: &ListedRun<'a>) -> Option<&'a str> {
            listed.run.error.as_ref().map(|e| e.code.as_str())
        }
        match self {
            SortBy::Created => a.run.created_at.cmp(&b.run.created_at),
            SortBy::Action => a.run.action.cmp(&b.run.action),
            SortBy::Status => a.run.status.as_str().cmp(b.run.status.as_str()),
            SortBy::Records => a.records.cmp(&b.records),
            SortBy::Credits => a.run.credits_used.cmp(&b.run.credits_used),
            SortBy::Reserved => a.run.credits_reserved.cmp(&b.run.credits_reserved),
            SortBy::Duration => duration(a).cmp(&duration(b)),
            SortBy::Error => error(a).cmp(&error(b)),
            SortBy::Source => source_rank(a.source).cmp(&source_rank(b.source)),
        }
    }
}

fn source_rank(source: RunSource) -> u8 {
    match source {
        RunSource::Api => 0,
        RunSource::KeptHere => 1,
    }
}

/// A date as the URL and a date field write it (`2026-11-24`).
pub fn parse_date(text: &str) -> Option<NaiveDate> {
    text.trim().parse().ok()
}

/// A run as the list shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct ListedRun<'a> {
    pub run: &'a Run,
    /// Records in its output (a kept run's output is not kept, its count is).
    pub records: usize,
    pub source: RunSource,
    /// Its [`search_text`].
    pub search: Cow<'a, str>,
    /// The days after which this browser forgot its kept output (`model::expiry`), if it did.
    pub output_forgotten_after: Option<u32>,
}

/// A run as a row of the list shows it, owned: a row is drawn again when any of this changes
/// (a run still running, read again), and only then. Its hash is its id's (equal rows have the
/// same id): hashing 100,000 rows' ids is cheap, their every field is not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunRow {
    pub id: String,
    pub action: String,
    pub status: RunStatus,
    pub created_at: DateTime<Utc>,
    pub completed_at: Option<DateTime<Utc>>,
    pub records: usize,
    pub credits_used: u64,
    pub credits_reserved: u64,
    /// The contract's error code, for a failed run.
    pub error_code: Option<String>,
    pub source: RunSource,
    pub output_forgotten_after: Option<u32>,
}

impl Hash for RunRow {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.id.hash(state);
    }
}

impl From<&ListedRun<'_>> for RunRow {
    fn from(listed: &ListedRun<'_>) -> RunRow {
        let run = listed.run;
        RunRow {
            id: run.id.clone(),
            action: run.action.clone(),
            status: run.status,
            created_at: run.created_at,
            completed_at: run.completed_at,
            records: listed.records,
            credits_used: run.credits_used,
            credits_reserved: run.credits_reserved,
            error_code: run.error.as_ref().map(|e| e.code.clone()),
            source: listed.source,
            output_forgotten_after: listed.output_forgotten_after,
        }
    }
}

/// What the list shows for a view: the runs that match, in order, and what the count line says.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunsShown {
    /// The runs that match the view, in its order: shared with every listed run's row, so a new
    /// filter or sort over 100,000 runs makes no row again.
    pub rows: Vec<Arc<RunRow>>,
    /// The runs listed before the view's filters: the API's and the kept ones.
    pub listed: usize,
    /// Of those, the API's.
    pub from_api: usize,
    /// The history kept in this browser is still being read: only the API's runs are listed.
    pub reading: bool,
}

impl RunsShown {
    /// The rows of `runs` (from [`listed`]) that `view` shows, taken from `rows` (each of
    /// `runs` as a [`RunRow`], in the same order: [`run_rows`]).
    pub fn of(
        runs: &[ListedRun<'_>],
        rows: &[Arc<RunRow>],
        view: &RunsView,
        reading: bool,
    ) -> RunsShown {
        RunsShown {
            rows: view
                .matching(runs)
                .into_iter()
                .filter_map(|at| rows.get(at).cloned())
                .collect(),
            listed: runs.len(),
            from_api: runs.iter().filter(|r| r.source == RunSource::Api).count(),
            reading,
        }
    }
}

/// Each of `runs` as a row, in the same order.
pub fn run_rows(runs: &[ListedRun<'_>]) -> Vec<Arc<RunRow>> {
    runs.iter().map(|r| Arc::new(RunRow::from(r))).collect()
}

/// The API's runs, then the kept runs the API no longer lists (as read again on this page, if
/// they were); each with the input kept for it.
pub fn listed<'a>(
    api: &'a [Run],
    history: &'a KeptHistory,
    read_here: &'a HashMap<String, Run>,
) -> Vec<ListedRun<'a>> {
    let input_of = |id: &str| {
        let at = *history.index_of.get(id)?;
        history.runs[at].input.as_ref()
    };
    let forgotten_of = |id: &str| {
        let at = *history.index_of.get(id)?;
        history.runs[at].output_forgotten.map(|f| f.after_days)
    };
    let in_api: HashSet<&str> = api.iter().map(|r| r.id.as_str()).collect();
    api.iter()
        .map(|run| ListedRun {
            run,
            records: run.output.len(),
            source: RunSource::Api,
            search: Cow::Owned(search_text(run, input_of(&run.id))),
            output_forgotten_after: forgotten_of(&run.id),
        })
        .chain(
            history
                .runs
                .iter()
                .zip(&history.search)
                .filter(|(k, _)| !in_api.contains(k.run.id.as_str()))
                .map(|(k, search)| ListedRun {
                    run: read_here.get(&k.run.id).unwrap_or(&k.run),
                    records: k.records,
                    source: RunSource::KeptHere,
                    search: Cow::Borrowed(search),
                    output_forgotten_after: k.output_forgotten.map(|f| f.after_days),
                }),
        )
        .collect()
}

/// The view's parameters as the URL's query holds them, as text (`q` is `text`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunsQuery<'a> {
    pub status: Option<&'a str>,
    pub action: Option<&'a str>,
    pub text: Option<&'a str>,
    pub from: Option<&'a str>,
    pub until: Option<&'a str>,
    pub sort: Option<&'a str>,
    pub order: Option<&'a str>,
}

impl RunsView {
    /// The view of `/runs`'s query. Nothing in it is refused: an unknown status and a day that
    /// is not a date are kept to be reported, anything else unknown is left at its default.
    pub fn from_query(query: RunsQuery<'_>) -> RunsView {
        let known = query
            .status
            .and_then(|s| RunStatus::ALL.into_iter().find(|r| r.as_str() == s));
        let mut bad_dates = Vec::new();
        let mut date = |text: Option<&str>| {
            let text = text.map(str::trim).filter(|t| !t.is_empty())?;
            let date = parse_date(text);
            if date.is_none() {
                bad_dates.push(text.to_owned());
            }
            date
        };
        let (from, until) = (date(query.from), date(query.until));
        let sort = query
            .sort
            .and_then(|key| SortBy::ALL.into_iter().find(|s| s.key() == key))
            .unwrap_or(SortBy::Created);
        RunsView {
            status: known,
            unknown_status: query
                .status
                .filter(|s| known.is_none() && !s.is_empty())
                .map(str::to_owned),
            action: query.action.unwrap_or_default().to_owned(),
            text: query.text.unwrap_or_default().trim().to_owned(),
            from,
            until,
            bad_dates,
            sort,
            descending: match query.order {
                Some("oldest" | "asc") => false,
                Some("newest" | "desc") => true,
                _ => sort.descending_first(),
            },
        }
    }

    /// `/runs` with this view's query; the defaults are left out.
    pub fn url(&self) -> String {
        let mut query = Vec::new();
        if let Some(status) = self.status {
            query.push(format!("status={}", status.as_str()));
        }
        if !self.action.is_empty() {
            query.push(format!("action={}", encode(&self.action)));
        }
        if !self.text.is_empty() {
            query.push(format!("q={}", encode(&self.text)));
        }
        if let Some(from) = self.from {
            query.push(format!("from={from}"));
        }
        if let Some(until) = self.until {
            query.push(format!("until={until}"));
        }
        match (self.sort, self.descending) {
            (SortBy::Created, true) => {}
            (SortBy::Created, false) => query.push("order=oldest".to_owned()),
            (sort, descending) => {
                query.push(format!("sort={}", sort.key()));
                query.push(format!("order={}", if descending { "desc" } else { "asc" }));
            }
        }
        if query.is_empty() {
            "/runs".to_owned()
        } else {
            format!("/runs?{}", query.join("&"))
        }
    }

    /// This view sorted by `sort`: the other direction if it is sorted so already, else the
    /// column's first direction.
    pub fn sorted_by(&self, sort: SortBy) -> RunsView {
        RunsView {
            descending: if self.sort == sort {
                !self.descending
            } else {
                sort.descending_first()
            },
            sort,
            ..self.clone()
        }
    }

    /// The runs that match, in order (the tests' view of [`RunsView::matching`]).
    #[cfg(test)]
    pub fn apply<'a>(&self, runs: &[ListedRun<'a>]) -> Vec<ListedRun<'a>> {
        self.matching(runs)
            .into_iter()
            .map(|at| runs[at].clone())
            .collect()
    }

    /// Where the runs that match are in `runs`, in the view's order. The API lists newest first;
    /// a stable sort keeps its order between equals, and equals in a column keep the newest first.
    pub fn matching(&self, runs: &[ListedRun<'_>]) -> Vec<usize> {
        let wanted = self.text.to_lowercase();
        // Each run's listing is sorted (a copy of its references) with its place beside it, not
        // looked up from its place: a comparison then follows one reference, not two, which
        // over 100,000 runs scattered in memory is what a sort's time goes to.
        let mut shown: Vec<(usize, ListedRun)> = runs
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                self.status.is_none_or(|s| r.run.status == s)
                    && (self.action.is_empty() || r.run.action == self.action)
                    && self.within_dates(r.run)
                    && matches_text(r, &wanted)
            })
            .map(|(at, r)| (at, r.clone()))
            .collect();
        let newest_first = |a: &ListedRun, b: &ListedRun| b.run.created_at.cmp(&a.run.created_at);
        shown.sort_by(|(_, a), (_, b)| {
            let column = self.sort.compare(a, b);
            let column = if self.descending {
                column.reverse()
            } else {
                column
            };
            match self.sort {
                SortBy::Created => column,
                _ => column.then_with(|| newest_first(a, b)),
            }
        });
        shown.into_iter().map(|(at, _)| at).collect()
    }

    /// Whether the run was created within the view's days, in the browser's time zone.
    fn within_dates(&self, run: &Run) -> bool {
        if self.from.is_none() && self.until.is_none() {
            return true;
        }
        let day = run.created_at.with_timezone(&Local).date_naive();
        self.from.is_none_or(|from| day >= from) && self.until.is_none_or(|until| day <= until)
    }
}

/// Whether the run's [`search_text`] holds `wanted` (lower case; empty matches every run).
pub fn matches_text(listed: &ListedRun<'_>, wanted: &str) -> bool {
    wanted.is_empty() || listed.search.contains(wanted)
}

/// The runs picked for a comparison after `id` was checked (`on`) or unchecked: two at most,
/// a third replacing the one picked first.
pub fn select_for_comparison(selected: &mut Vec<String>, id: &str, on: bool) {
    selected.retain(|s| s != id);
    if on {
        selected.push(id.to_owned());
        if selected.len() > 2 {
            selected.remove(0);
        }
    }
}

/// Kept runs that were not final when last seen and that the API's list no longer holds: they
/// would stay queued or processing on the list for ever, so while the page is open they are read
/// from the API until they are final (as a run page watches its run), each at most
/// [`STALE_ROUNDS`] times, and each picked once per page.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StaleWatch {
    /// Every run picked so far: none is picked twice.
    picked: HashSet<String>,
    watching: Vec<WatchedRun>,
}

/// A run the [`StaleWatch`] reads again.
#[derive(Clone, Debug, PartialEq)]
struct WatchedRun {
    id: String,
    reads_left: usize,
}

/// What one round of reads brought.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StaleRound {
    /// The runs the API answered with (to keep, and to show over their kept copies).
    pub read: Vec<Run>,
    /// No run is left to read: the watch ends until more are picked.
    pub ended: bool,
}

impl StaleWatch {
    /// Picks the next [`STALE_READS_AT_ONCE`] kept runs not final, not in the API's list
    /// (`listed`) and not picked before; whether any was.
    pub fn pick(&mut self, history: &KeptHistory, listed: &HashSet<String>) -> bool {
        let picked: Vec<String> = history
            .runs
            .iter()
            .filter(|k| !k.run.status.is_terminal())
            .filter(|k| !listed.contains(&k.run.id) && !self.picked.contains(&k.run.id))
            .take(STALE_READS_AT_ONCE)
            .map(|k| k.run.id.clone())
            .collect();
        for id in &picked {
            self.picked.insert(id.clone());
            self.watching.push(WatchedRun {
                id: id.clone(),
                reads_left: STALE_ROUNDS,
            });
        }
        !picked.is_empty()
    }

    /// The runs to read in the next round.
    pub fn to_read(&self) -> Vec<String> {
        self.watching.iter().map(|w| w.id.clone()).collect()
    }

    /// After a round that read `asked` and got `read` back: a run that is final, that the API
    /// did not answer for, or that was read [`STALE_ROUNDS`] times is no longer watched; runs
    /// picked during the round stay for the next.
    pub fn after_round(&mut self, asked: &[String], read: Vec<Run>) -> StaleRound {
        let still_running: HashSet<&str> = read
            .iter()
            .filter(|run| !run.status.is_terminal())
            .map(|run| run.id.as_str())
            .collect();
        self.watching.retain_mut(|watched| {
            if !asked.contains(&watched.id) {
                return true;
            }
            watched.reads_left = watched.reads_left.saturating_sub(1);
            watched.reads_left > 0 && still_running.contains(watched.id.as_str())
        });
        StaleRound {
            read,
            ended: self.watching.is_empty(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_runs_at_most_are_picked_for_a_comparison() {
        let mut selected = Vec::new();
        select_for_comparison(&mut selected, "a", true);
        select_for_comparison(&mut selected, "b", true);
        select_for_comparison(&mut selected, "c", true);
        assert_eq!(selected, ["b", "c"]);
        select_for_comparison(&mut selected, "b", false);
        assert_eq!(selected, ["c"]);
    }

    /// The view of a query whose parameter `name` has the value `get(name)`, if any.
    fn view_of<'a>(get: impl Fn(&str) -> Option<&'a str>) -> RunsView {
        RunsView::from_query(RunsQuery {
            status: get("status"),
            action: get("action"),
            text: get("q"),
            from: get("from"),
            until: get("until"),
            sort: get("sort"),
            order: get("order"),
        })
    }

    fn query(pairs: &[(&str, &'static str)]) -> RunsView {
        view_of(|name| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| *v))
    }

    /// The pairs of a query string, decoded as the router decodes them.
    fn pairs_of(url: &str) -> Vec<(String, String)> {
        let query = url.split_once('?').map_or("", |(_, q)| q);
        query
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|pair| {
                let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
                let value = percent_encoding::percent_decode_str(value)
                    .decode_utf8()
                    .unwrap()
                    .into_owned();
                (name.to_owned(), value)
            })
            .collect()
    }

    /// `view` printed as a URL, then read back from it.
    fn read_back(view: &RunsView) -> RunsView {
        let pairs = pairs_of(&view.url());
        view_of(|name| {
            pairs
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_str())
        })
    }

    #[test]
    fn the_url_round_trips_the_view() {
        let view = query(&[
            ("status", "failed"),
            ("action", "a b&c"),
            ("q", " Rate limited "),
            ("from", "2026-11-01"),
            ("until", "2026-11-24"),
            ("order", "oldest"),
            // A link from when the list had pages: one scroll now, from the top.
            ("page", "3"),
        ]);
        assert_eq!(view.status, Some(RunStatus::Failed));
        assert_eq!(
            view.url(),
            "/runs?status=failed&action=a%20b%26c&q=Rate%20limited&from=2026-11-01&until=2026-11-24&order=oldest"
        );
        assert_eq!(read_back(&view), view);
        assert_eq!(RunsView::default().url(), "/runs");
        assert_eq!(
            query(&[("q", ""), ("order", "newest"), ("page", "1")]).url(),
            "/runs",
            "newest first is the default"
        );
        let by_credits = query(&[("sort", "credits"), ("order", "asc")]);
        assert_eq!(
            (by_credits.sort, by_credits.descending),
            (SortBy::Credits, false)
        );
        assert_eq!(by_credits.url(), "/runs?sort=credits&order=asc");
    }

    #[test]
    fn every_sort_in_both_directions_round_trips_through_the_url() {
        for sort in SortBy::ALL {
            for descending in [true, false] {
                let view = RunsView {
                    status: Some(RunStatus::Processing),
                    sort,
                    descending,
                    ..RunsView::default()
                };
                assert_eq!(read_back(&view), view, "{}", view.url());
            }
        }
    }

    #[test]
    fn an_unknown_status_or_date_is_reported_not_silently_dropped() {
        let view = query(&[
            ("status", "finished"),
            ("from", "yesterday"),
            ("until", "2026-02-30"),
        ]);
        assert_eq!(view.status, None);
        assert_eq!(view.unknown_status.as_deref(), Some("finished"));
        assert_eq!(view.bad_dates, vec!["yesterday", "2026-02-30"]);
        assert_eq!(view.url(), "/runs", "choosing a filter drops them");
        assert_eq!(query(&[("status", ""), ("page", "x")]).unknown_status, None);
    }

    #[test]
    fn an_unknown_sort_or_order_falls_back_to_the_default() {
        let view = query(&[("sort", "colour"), ("order", "sideways")]);
        assert_eq!(view, RunsView::default());
        assert!(
            !query(&[("sort", "error")]).descending,
            "without an order, the column's first direction"
        );
    }

    fn run_at(id: &str, hour: u32, credits: u64, error: Option<&str>) -> Run {
        serde_json::from_value(serde_json::json!({
            "id": id, "action": "premium-search-people",
            "status": if error.is_some() { "failed" } else { "completed" },
            "output": [], "credits_used": credits, "credits_reserved": 0,
            "created_at": format!("2026-11-24T{hour:02}:00:00.000Z"),
            "completeness": {"has_more": false, "scope": "single_page"},
            "error": error.map(|code| serde_json::json!({"code": code, "message": "The source did not answer"}))
        }))
        .unwrap()
    }

    fn kept(run: Run, input: Option<Value>) -> KeptRun {
        KeptRun {
            workspace: "ws".into(),
            run,
            records: 7,
            seen_at: 0.0,
            input,
            idempotency_key: None,
            output_forgotten: None,
        }
    }

    fn history_of(runs: Vec<KeptRun>) -> KeptHistory {
        let search = runs.iter().map(kept_search_text).collect();
        KeptHistory::new(runs, search, ListReads::default())
    }

    #[test]
    fn the_text_is_found_in_the_id_action_error_and_input_in_any_case() {
        let run = run_at("run_AbC123", 9, 0, Some("upstream_timeout"));
        let input =
            serde_json::json!({"keywords": "Ada Lovelace", "company": "Analytical Engines"});
        let listed = ListedRun {
            run: &run,
            records: 0,
            source: RunSource::Api,
            search: Cow::Owned(search_text(&run, Some(&input))),
            output_forgotten_after: None,
        };
        for found in [
            "abc1",
            "PEOPLE",
            "upstream_",
            "did not answer",
            "lovelace",
            "ANALYTICAL",
        ] {
            assert!(matches_text(&listed, &found.to_lowercase()), "{found}");
        }
        assert!(!matches_text(&listed, "companies"));
        assert!(matches_text(&listed, ""));
        let without_input = ListedRun {
            search: Cow::Owned(search_text(&run, None)),
            output_forgotten_after: None,
            ..listed
        };
        assert!(!matches_text(&without_input, "lovelace"));
    }

    #[test]
    fn a_kept_run_is_found_by_the_idempotency_key_it_was_sent_with() {
        let mut run = kept(run_at("a", 9, 0, None), None);
        run.idempotency_key = Some("Console-ABC-1".into());
        assert!(kept_search_text(&run).contains("console-abc-1"));
        run.idempotency_key = None;
        assert!(!kept_search_text(&run).contains("console-abc-1"));
    }

    #[test]
    fn the_api_runs_come_first_with_their_kept_input_then_the_kept_runs_it_no_longer_lists() {
        let input = serde_json::json!({"keywords": "Lovelace"});
        let history = history_of(vec![
            kept(run_at("b", 10, 0, None), Some(input)),
            kept(run_at("old", 8, 0, None), None),
        ]);
        assert_eq!(history.index_of["old"], 1);
        assert_eq!(
            history.actions.iter().collect::<Vec<_>>(),
            ["premium-search-people"]
        );
        let api = [run_at("c", 11, 0, None), run_at("b", 10, 0, None)];
        let mut read_here = HashMap::new();
        let mut old_now = run_at("old", 8, 3, None);
        old_now.credits_used = 3;
        read_here.insert("old".to_owned(), old_now);
        let rows = listed(&api, &history, &read_here);
        let shown: Vec<(&str, RunSource, usize)> = rows
            .iter()
            .map(|r| (r.run.id.as_str(), r.source, r.records))
            .collect();
        assert_eq!(
            shown,
            [
                ("c", RunSource::Api, 0),
                ("b", RunSource::Api, 0),
                ("old", RunSource::KeptHere, 7)
            ],
            "a run in both is listed once, as the API's"
        );
        assert!(
            matches_text(&rows[1], "lovelace"),
            "the API's run, its kept input"
        );
        assert_eq!(rows[2].run.credits_used, 3, "as read again on this page");
        let row = RunRow::from(&rows[2]);
        assert_eq!(
            (row.id.as_str(), row.records, row.source, row.credits_used),
            ("old", 7, RunSource::KeptHere, 3)
        );
        // A run read again with another status is another row (drawn again); the same run read
        // again unchanged is the same row.
        let unchanged = listed(&api, &history, &read_here);
        assert_eq!(RunRow::from(&unchanged[2]), row);
        read_here.get_mut("old").unwrap().status = RunStatus::Cancelled;
        let changed = listed(&api, &history, &read_here);
        assert_ne!(RunRow::from(&changed[2]), row);
        let rows = run_rows(&changed);
        let shown = RunsShown::of(&changed, &rows, &query(&[("order", "oldest")]), false);
        assert_eq!((shown.listed, shown.from_api), (3, 2));
        assert_eq!(
            shown.rows.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
            ["old", "b", "c"]
        );
    }

    #[test]
    fn the_filters_keep_the_runs_of_a_status_an_action_and_a_text() {
        let mut other = run_at("d", 12, 0, None);
        other.action = "network-search-groups".into();
        let runs = [
            run_at("a", 9, 0, None),
            run_at("b", 10, 0, Some("upstream_timeout")),
            other,
        ];
        let rows: Vec<ListedRun> = runs
            .iter()
            .map(|run| ListedRun {
                run,
                records: 0,
                source: RunSource::Api,
                search: Cow::Owned(search_text(run, None)),
                output_forgotten_after: None,
            })
            .collect();
        let ids = |view: RunsView| -> Vec<String> {
            view.apply(&rows).iter().map(|r| r.run.id.clone()).collect()
        };
        assert_eq!(ids(query(&[("status", "failed")])), ["b"]);
        assert_eq!(ids(query(&[("action", "network-search-groups")])), ["d"]);
        assert_eq!(ids(query(&[("q", "TIMEOUT")])), ["b"]);
        assert_eq!(
            ids(query(&[
                ("status", "completed"),
                ("action", "premium-search-people")
            ])),
            ["a"]
        );
        assert!(ids(query(&[("status", "failed"), ("q", "groups")])).is_empty());
    }

    #[test]
    fn any_column_sorts_both_ways_and_equals_keep_the_newest_first() {
        let runs = [
            run_at("a", 9, 5, None),
            run_at("b", 10, 1, Some("upstream_timeout")),
            run_at("c", 11, 5, None),
        ];
        let listed: Vec<ListedRun> = runs
            .iter()
            .map(|run| ListedRun {
                run,
                records: 0,
                source: RunSource::Api,
                search: Cow::Borrowed(""),
                output_forgotten_after: None,
            })
            .collect();
        let ids = |view: &RunsView| -> Vec<String> {
            view.apply(&listed)
                .iter()
                .map(|r| r.run.id.clone())
                .collect()
        };
        assert_eq!(ids(&RunsView::default()), ["c", "b", "a"]);
        let by_credits = RunsView::default().sorted_by(SortBy::Credits);
        assert!(by_credits.descending, "the largest first");
        assert_eq!(
            ids(&by_credits),
            ["c", "a", "b"],
            "equals: the newest first"
        );
        assert_eq!(
            ids(&by_credits.sorted_by(SortBy::Credits)),
            ["b", "c", "a"],
            "again: the smallest first, equals still the newest first"
        );
        let by_error = RunsView::default().sorted_by(SortBy::Error);
        assert!(!by_error.descending, "text A to Z first");
        assert_eq!(
            ids(&by_error),
            ["c", "a", "b"],
            "no error before an error code"
        );
        assert_eq!(
            ids(&RunsView::default().sorted_by(SortBy::Created)),
            ["a", "b", "c"]
        );
    }

    #[test]
    fn a_date_range_keeps_the_runs_created_on_those_days() {
        let run = run_at("a", 12, 0, None);
        let listed = [ListedRun {
            run: &run,
            records: 0,
            source: RunSource::KeptHere,
            search: Cow::Borrowed(""),
            output_forgotten_after: None,
        }];
        let day = run.created_at.with_timezone(&Local).date_naive();
        let within = |from: Option<NaiveDate>, until: Option<NaiveDate>| {
            let view = RunsView {
                from,
                until,
                ..RunsView::default()
            };
            view.apply(&listed).len() == 1
        };
        assert!(within(Some(day), Some(day)));
        assert!(within(None, Some(day)));
        assert!(!within(day.succ_opt(), None));
        assert!(!within(None, day.pred_opt()));
    }

    fn running(id: &str) -> Run {
        let mut run = run_at(id, 9, 0, None);
        run.status = RunStatus::Processing;
        run.completed_at = None;
        run
    }

    #[test]
    fn stale_runs_are_picked_a_few_at_a_time_once_each_and_never_the_listed_ones() {
        let mut runs: Vec<KeptRun> = (0..STALE_READS_AT_ONCE + 5)
            .map(|n| kept(running(&format!("r{n}")), None))
            .collect();
        runs.push(kept(run_at("done", 9, 0, None), None));
        let history = history_of(runs);
        let listed: HashSet<String> = ["r0".to_owned()].into();
        let mut watch = StaleWatch::default();
        assert!(watch.pick(&history, &listed));
        let first = watch.to_read();
        assert_eq!(first.len(), STALE_READS_AT_ONCE);
        assert!(!first.contains(&"r0".to_owned()), "the API's list has it");
        assert!(watch.pick(&history, &listed));
        assert_eq!(watch.to_read().len(), STALE_READS_AT_ONCE + 4);
        assert!(!watch.pick(&history, &listed), "every one was picked");
        assert!(!watch.to_read().contains(&"done".to_owned()));
    }

    #[test]
    fn a_stale_run_is_read_until_final_unanswered_or_read_too_often() {
        let history = history_of(vec![
            kept(running("a"), None),
            kept(running("b"), None),
            kept(running("c"), None),
        ]);
        let mut watch = StaleWatch::default();
        watch.pick(&history, &HashSet::new());
        let asked = watch.to_read();
        // a finished, b still runs, c was not answered.
        let round = watch.after_round(&asked, vec![run_at("a", 9, 1, None), running("b")]);
        assert_eq!(round.read.len(), 2);
        assert!(!round.ended);
        assert_eq!(watch.to_read(), ["b"]);
        for _ in 1..STALE_ROUNDS - 1 {
            let round = watch.after_round(&["b".to_owned()], vec![running("b")]);
            assert!(!round.ended);
        }
        let round = watch.after_round(&["b".to_owned()], vec![running("b")]);
        assert!(round.ended, "read {STALE_ROUNDS} times: no more");
        assert!(watch.to_read().is_empty());
    }

    #[test]
    fn runs_picked_during_a_round_stay_for_the_next() {
        let history = history_of(vec![kept(running("a"), None)]);
        let mut watch = StaleWatch::default();
        let round = watch.after_round(&[], Vec::new());
        assert!(round.ended, "nothing to watch");
        watch.pick(&history, &HashSet::new());
        let round = watch.after_round(&[], Vec::new());
        assert!(!round.ended);
        assert_eq!(watch.to_read(), ["a"]);
    }
}
