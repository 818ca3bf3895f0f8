//! Numbers, times, ages and durations written for people.
//!
//! Times come from the API as `DateTime<Utc>` (chrono, via the shared types) and are shown in
//! the browser's time zone (`chrono::Local`, which reads the offset from JavaScript's `Date`
//! through chrono's `wasmbind` feature). The functions take the time zone as a parameter so
//! native tests can pin it.

use chrono::{DateTime, Datelike, Local, NaiveDateTime, TimeDelta, TimeZone, Timelike, Utc};

/// `1234567` → `1,234,567`.
pub fn group_thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A name as the start of a file name: lower case, letters and digits, words joined by `-`
/// (`Production EU` → `production-eu`, `127.0.0.1:8787` → `127-0-0-1-8787`); `console` when
/// nothing is left.
pub fn file_label(name: &str) -> String {
    let mut label = String::with_capacity(name.len());
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            label.push(c);
        } else if !label.is_empty() && !label.ends_with('-') {
            label.push('-');
        }
    }
    let label = label.trim_end_matches('-');
    if label.is_empty() {
        "console".to_owned()
    } else {
        label.to_owned()
    }
}

/// Whole credits as typed, from 1 to `max`; thousands separators (`,` or spaces) are allowed.
/// The error completes a sentence that starts with the field's name.
pub fn parse_credits(text: &str, max: u64) -> Result<u64, String> {
    let digits: String = text
        .trim()
        .chars()
        .filter(|c| *c != ',' && *c != ' ')
        .collect();
    match digits.parse::<u64>() {
        Ok(credits) if (1..=max).contains(&credits) => Ok(credits),
        _ => Err(format!(
            "must be a whole number of credits from 1 to {}",
            group_thousands(max)
        )),
    }
}

/// A size for people, from bytes: `1.2 GB`, `200.0 MB`, `4.1 KB`.
pub fn size(bytes: f64) -> String {
    if bytes >= 1e9 {
        format!("{:.1} GB", bytes / 1e9)
    } else if bytes >= 1e6 {
        format!("{:.1} MB", bytes / 1e6)
    } else {
        format!("{:.1} KB", bytes / 1e3)
    }
}

/// A count and its noun: "1 run", "2,000 runs" (`many` is the plural).
pub fn counted(count: u64, one: &str, many: &str) -> String {
    let noun = if count == 1 { one } else { many };
    format!("{} {noun}", group_thousands(count))
}

/// `2026-11-20 14:03:09` in `zone`: unambiguous, sortable, and quotable in a support ticket.
///
/// From chrono's field getters rather than `format("%Y-%m-%d %H:%M:%S")`, whose strftime
/// interpreter would be shipped for this one fixed pattern (above the project's 5 KB line;
/// docs/performance.md, "Choices a measurement holds").
pub fn time_in<Tz: TimeZone>(time: DateTime<Utc>, zone: &Tz) -> String {
    wall_clock(time.with_timezone(zone).naive_local())
}

/// A local time already in its zone, as [`time_in`] writes it.
pub fn wall_clock(t: NaiveDateTime) -> String {
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
        t.year(),
        t.month(),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    )
}

/// A moment in the browser's time zone.
pub fn local_time(time: DateTime<Utc>) -> String {
    time_in(time, &Local)
}

/// How long ago `then` was: `just now`, `42 s ago`, `5 min ago`, `3 h ago`, `2 d ago`. A time
/// in the future (clocks disagree) is `just now`.
pub fn age(now: DateTime<Utc>, then: DateTime<Utc>) -> String {
    let seconds = (now - then).num_seconds().max(0);
    match seconds {
        0..5 => "just now".to_owned(),
        5..60 => format!("{seconds} s ago"),
        60..3600 => format!("{} min ago", seconds / 60),
        3600..86_400 => format!("{} h ago", seconds / 3600),
        _ => format!("{} d ago", seconds / 86_400),
    }
}

/// A duration for people: `850 ms`, `12.3 s`, `4 min 05 s`, `2 h 03 min`; never negative.
pub fn duration(span: TimeDelta) -> String {
    let ms = span.num_milliseconds().max(0);
    match ms {
        0..1_000 => format!("{ms} ms"),
        1_000..60_000 => format!("{}.{} s", ms / 1000, ms % 1000 / 100),
        60_000..3_600_000 => format!("{} min {:02} s", ms / 60_000, ms % 60_000 / 1000),
        _ => format!("{} h {:02} min", ms / 3_600_000, ms % 3_600_000 / 60_000),
    }
}

/// How long a run took, once it has completed.
pub fn run_duration(created: DateTime<Utc>, completed: Option<DateTime<Utc>>) -> String {
    completed.map_or_else(|| "—".to_owned(), |done| duration(done - created))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_file_labels() {
        assert_eq!(file_label("Production EU"), "production-eu");
        assert_eq!(file_label("127.0.0.1:8787"), "127-0-0-1-8787");
        assert_eq!(file_label("Sandbox"), "sandbox");
        assert_eq!(file_label("  ../Prod/ "), "prod");
        assert_eq!(file_label("…"), "console");
    }

    #[test]
    fn a_size_takes_the_unit_that_reads_best() {
        assert_eq!(size(141.0), "0.1 KB");
        assert_eq!(size(200e6), "200.0 MB");
        assert_eq!(size(10.7e9), "10.7 GB");
    }

    #[test]
    fn a_count_takes_its_noun_in_the_singular_only_for_one() {
        assert_eq!(counted(1, "bulk batch", "bulk batches"), "1 bulk batch");
        assert_eq!(counted(0, "run", "runs"), "0 runs");
        assert_eq!(counted(2_000, "run", "runs"), "2,000 runs");
    }
    use chrono::FixedOffset;

    fn at(text: &str) -> DateTime<Utc> {
        text.parse().unwrap()
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(group_thousands(0), "0");
        assert_eq!(group_thousands(999), "999");
        assert_eq!(group_thousands(1000), "1,000");
        assert_eq!(group_thousands(25_000), "25,000");
        assert_eq!(group_thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn times_are_shown_in_the_given_zone_zero_padded() {
        let t = at("2026-01-02T03:04:05.678Z");
        assert_eq!(time_in(t, &Utc), "2026-01-02 03:04:05");
        let berlin = FixedOffset::east_opt(3600).unwrap();
        assert_eq!(time_in(t, &berlin), "2026-01-02 04:04:05");
        let new_york = FixedOffset::west_opt(5 * 3600).unwrap();
        assert_eq!(
            time_in(t, &new_york),
            "2026-01-01 22:04:05",
            "the date moves too"
        );
    }

    #[test]
    fn ages_read_naturally() {
        let now = at("2026-11-20T12:00:00Z");
        let ago = |s: i64| now - TimeDelta::seconds(s);
        assert_eq!(
            age(now, now + TimeDelta::seconds(10)),
            "just now",
            "clock skew is not a negative age"
        );
        assert_eq!(age(now, ago(4)), "just now");
        assert_eq!(age(now, ago(42)), "42 s ago");
        assert_eq!(age(now, ago(300)), "5 min ago");
        assert_eq!(age(now, ago(3 * 3600)), "3 h ago");
        assert_eq!(age(now, ago(60 * 3600)), "2 d ago");
    }

    #[test]
    fn durations_read_naturally() {
        let ms = TimeDelta::milliseconds;
        assert_eq!(duration(ms(-5)), "0 ms");
        assert_eq!(duration(ms(850)), "850 ms");
        assert_eq!(duration(ms(1_000)), "1.0 s");
        assert_eq!(duration(ms(12_345)), "12.3 s");
        assert_eq!(duration(ms(245_000)), "4 min 05 s");
        assert_eq!(duration(ms(7_380_000)), "2 h 03 min");
        let created = at("2026-11-20T12:00:00Z");
        assert_eq!(run_duration(created, None), "—");
        assert_eq!(
            run_duration(created, Some(at("2026-11-20T12:00:02.5Z"))),
            "2.5 s"
        );
    }
}
