//! `/credits`'s view: the range and the bucket the URL's query gives (`?range=90d&per=week`),
//! printed back, and the span of the chart they make.

use chrono::{Duration, NaiveDateTime, NaiveTime, TimeZone};

use crate::model::credits::{Bucket, Span, SpentRun};

/// A span of time the chart can cover, ending now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CreditsRange {
    /// Its name in the URL.
    pub key: &'static str,
    pub label: &'static str,
    /// Today and the days before it; `None`: everything this browser keeps.
    pub days: Option<i64>,
    /// The bucket it is shown in unless the URL says otherwise.
    pub bucket: Bucket,
}

/// The ranges a person can choose, in the order they are offered.
pub const RANGES: [CreditsRange; 5] = [
    CreditsRange {
        key: "7d",
        label: "Last 7 days",
        days: Some(7),
        bucket: Bucket::Day,
    },
    CreditsRange {
        key: "30d",
        label: "Last 30 days",
        days: Some(30),
        bucket: Bucket::Day,
    },
    CreditsRange {
        key: "90d",
        label: "Last 90 days",
        days: Some(90),
        bucket: Bucket::Week,
    },
    CreditsRange {
        key: "365d",
        label: "Last 12 months",
        days: Some(365),
        bucket: Bucket::Month,
    },
    CreditsRange {
        key: "all",
        label: "Everything kept",
        days: None,
        bucket: Bucket::Month,
    },
];

/// The range shown when the URL names none (or one this page does not know): the last 30 days.
pub const DEFAULT_RANGE: CreditsRange = RANGES[1];

/// A bucket a person can choose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BucketChoice {
    /// Its name in the URL (`per=`).
    pub key: &'static str,
    pub label: &'static str,
    pub bucket: Bucket,
}

/// The buckets a person can choose, in the order they are offered.
pub const BUCKETS: [BucketChoice; 3] = [
    BucketChoice {
        key: "day",
        label: "Day",
        bucket: Bucket::Day,
    },
    BucketChoice {
        key: "week",
        label: "Week",
        bucket: Bucket::Week,
    },
    BucketChoice {
        key: "month",
        label: "Month",
        bucket: Bucket::Month,
    },
];

/// The view's parameters as the URL's query holds them, as text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CreditsQuery<'a> {
    pub range: Option<&'a str>,
    pub per: Option<&'a str>,
}

/// The page's view as the URL gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CreditsView {
    pub range: CreditsRange,
    pub bucket: Bucket,
}

impl CreditsView {
    /// The view of `/credits`'s query: an unknown range is the default one, an unknown bucket
    /// the range's own.
    pub fn from_query(query: CreditsQuery<'_>) -> CreditsView {
        let range = RANGES
            .into_iter()
            .find(|r| Some(r.key) == query.range)
            .unwrap_or(DEFAULT_RANGE);
        let bucket = BUCKETS
            .into_iter()
            .find(|choice| Some(choice.key) == query.per)
            .map_or(range.bucket, |choice| choice.bucket);
        CreditsView { range, bucket }
    }

    /// `/credits` with this view's query (both parameters, always).
    pub fn url(self) -> String {
        let per = BUCKETS
            .into_iter()
            .find(|choice| choice.bucket == self.bucket)
            .map_or("day", |choice| choice.key);
        format!("/credits?range={}&per={per}", self.range.key)
    }

    /// This view over the range named `key`, in that range's bucket; unchanged for a name this
    /// page does not know.
    pub fn with_range(self, key: &str) -> CreditsView {
        match RANGES.into_iter().find(|r| r.key == key) {
            Some(range) => CreditsView {
                range,
                bucket: range.bucket,
            },
            None => self,
        }
    }

    /// This view in the bucket named `key`; unchanged for a name this page does not know.
    pub fn with_bucket(self, key: &str) -> CreditsView {
        match BUCKETS.into_iter().find(|choice| choice.key == key) {
            Some(choice) => CreditsView {
                bucket: choice.bucket,
                ..self
            },
            None => self,
        }
    }

    /// The chart's span at `now` (local time in `zone`): the range's days up to now, from the
    /// start of the first one; for everything kept, from the oldest finished run of `runs`
    /// (`None` without one).
    pub fn span<Tz: TimeZone>(
        self,
        runs: &[SpentRun<'_>],
        zone: &Tz,
        now: NaiveDateTime,
    ) -> Option<Span> {
        let from = match self.range.days {
            Some(days) => Some((now.date() - Duration::days(days - 1)).and_time(NaiveTime::MIN)),
            None => runs
                .iter()
                .filter(|spent| spent.run.status.is_terminal())
                .map(|spent| {
                    spent
                        .run
                        .completed_at
                        .unwrap_or(spent.run.created_at)
                        .with_timezone(zone)
                        .naive_local()
                })
                .min(),
        };
        from.map(|from| Span {
            bucket: self.bucket,
            from,
            until: now,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use api_contract::Run;
    use chrono::{NaiveDate, Utc};

    fn query(range: Option<&str>, per: Option<&str>) -> CreditsView {
        CreditsView::from_query(CreditsQuery { range, per })
    }

    #[test]
    fn the_url_chooses_the_range_and_the_bucket_with_defaults_for_each_range() {
        let view = query(Some("90d"), None);
        assert_eq!((view.range.days, view.bucket), (Some(90), Bucket::Week));
        assert_eq!(view.url(), "/credits?range=90d&per=week");
        let view = query(Some("365d"), Some("day"));
        assert_eq!(view.bucket, Bucket::Day);
        let default = query(None, Some("fortnight"));
        assert_eq!((default.range.key, default.bucket), ("30d", Bucket::Day));
        assert_eq!(query(Some("forever"), None).range, DEFAULT_RANGE);
    }

    #[test]
    fn every_range_in_every_bucket_round_trips_through_the_url() {
        for range in RANGES {
            for choice in BUCKETS {
                let view = CreditsView {
                    range,
                    bucket: choice.bucket,
                };
                let url = view.url();
                let (_, query_text) = url.split_once('?').unwrap();
                let get = |name: &str| {
                    query_text
                        .split('&')
                        .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))
                };
                assert_eq!(query(get("range"), get("per")), view, "{url}");
            }
        }
    }

    #[test]
    fn choosing_a_range_takes_its_bucket_and_choosing_a_bucket_keeps_the_range() {
        let view = query(Some("7d"), Some("week"));
        let longer = view.with_range("365d");
        assert_eq!((longer.range.key, longer.bucket), ("365d", Bucket::Month));
        let by_day = longer.with_bucket("day");
        assert_eq!((by_day.range.key, by_day.bucket), ("365d", Bucket::Day));
        assert_eq!(view.with_range("decade"), view);
        assert_eq!(view.with_bucket("fortnight"), view);
    }

    fn run(status: &str, created: &str, completed: Option<&str>) -> Run {
        serde_json::from_value(serde_json::json!({
            "id": created, "action": "premium-search-people", "status": status,
            "output": [], "credits_used": 1, "credits_reserved": 0,
            "created_at": created, "completed_at": completed,
            "completeness": {"has_more": false, "scope": "single_page"}
        }))
        .unwrap()
    }

    #[test]
    fn the_span_covers_the_ranges_days_or_everything_from_the_oldest_finished_run() {
        let now = NaiveDate::from_ymd_opt(2026, 11, 24)
            .unwrap()
            .and_hms_opt(15, 30, 0)
            .unwrap();
        let week = query(Some("7d"), None).span(&[], &Utc, now).unwrap();
        assert_eq!(
            (week.from.to_string(), week.until, week.bucket),
            ("2026-11-18 00:00:00".to_owned(), now, Bucket::Day),
            "today and the 6 days before it"
        );
        let runs = [
            run(
                "completed",
                "2026-03-01T10:00:00.000Z",
                Some("2026-03-02T08:00:00.000Z"),
            ),
            run("processing", "2026-01-05T10:00:00.000Z", None),
            run(
                "failed",
                "2026-06-01T10:00:00.000Z",
                Some("2026-06-01T10:01:00.000Z"),
            ),
        ];
        let spent: Vec<SpentRun> = runs
            .iter()
            .map(|run| SpentRun { run, records: 0 })
            .collect();
        let everything = query(Some("all"), None);
        let span = everything.span(&spent, &Utc, now).unwrap();
        assert_eq!(
            span.from.to_string(),
            "2026-03-02 08:00:00",
            "from the oldest finished run's completion; a run still going does not count"
        );
        assert_eq!(everything.span(&spent[1..2], &Utc, now), None);
    }
}
