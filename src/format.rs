//! Formatting numbers and times for people.

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

/// A moment (ms since the epoch) in the browser's time zone: `2026-11-20 14:03:09`.
///
/// From the `Date` getters rather than `toLocaleString`: unambiguous for support tickets, and
/// each `toLocaleString` builds an `Intl.DateTimeFormat`, which made a page of 100 runs take
/// tens of milliseconds to render.
pub fn local_time(ms: f64) -> String {
    let d = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(ms));
    if d.get_time().is_nan() {
        return String::new();
    }
    date_time(
        d.get_full_year(),
        d.get_month() + 1,
        d.get_date(),
        d.get_hours(),
        d.get_minutes(),
        d.get_seconds(),
    )
}

/// `2026-11-20 14:03:09`.
pub fn date_time(year: u32, month: u32, day: u32, hour: u32, minute: u32, second: u32) -> String {
    format!("{year}-{month:02}-{day:02} {hour:02}:{minute:02}:{second:02}")
}

/// An RFC 3339 time in the browser's local time zone; the text itself if it does not parse.
pub fn local_time_iso(iso: &str) -> String {
    let ms = js_sys::Date::parse(iso);
    if ms.is_nan() {
        iso.to_owned()
    } else {
        local_time(ms)
    }
}

/// How long ago `then` was, both in ms since the epoch: `just now`, `42 s ago`, `5 min ago`,
/// `3 h ago`, `2 d ago`.
pub fn age(now: f64, then: f64) -> String {
    let s = if now.is_finite() && then.is_finite() && now > then {
        ((now - then) / 1000.0) as u64
    } else {
        0
    };
    match s {
        0..5 => "just now".to_owned(),
        5..60 => format!("{s} s ago"),
        60..3600 => format!("{} min ago", s / 60),
        3600..86_400 => format!("{} h ago", s / 3600),
        _ => format!("{} d ago", s / 86_400),
    }
}

/// Milliseconds from one RFC 3339 time to another, if both parse.
pub fn millis_between(from: &str, to: &str) -> Option<f64> {
    let (a, b) = (js_sys::Date::parse(from), js_sys::Date::parse(to));
    (!a.is_nan() && !b.is_nan()).then_some(b - a)
}

/// A duration for people: `850 ms`, `12.3 s`, `4 min 05 s`, `2 h 03 min`. Integer arithmetic
/// only: formatting an `f64` would pull core's float printer (about 4 KB) into the bundle.
pub fn duration(ms: f64) -> String {
    let ms = if ms.is_finite() && ms > 0.0 {
        ms as u64
    } else {
        0
    };
    match ms {
        0..1_000 => format!("{ms} ms"),
        1_000..60_000 => format!("{}.{} s", ms / 1000, ms % 1000 / 100),
        60_000..3_600_000 => format!("{} min {:02} s", ms / 60_000, ms % 60_000 / 1000),
        _ => format!("{} h {:02} min", ms / 3_600_000, ms % 3_600_000 / 60_000),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(group_thousands(0), "0");
        assert_eq!(group_thousands(999), "999");
        assert_eq!(group_thousands(1000), "1,000");
        assert_eq!(group_thousands(25_000), "25,000");
        assert_eq!(group_thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn date_times_are_zero_padded() {
        assert_eq!(date_time(2026, 1, 2, 3, 4, 5), "2026-01-02 03:04:05");
        assert_eq!(date_time(2026, 11, 20, 23, 59, 59), "2026-11-20 23:59:59");
    }

    #[test]
    fn ages_read_naturally() {
        assert_eq!(
            age(10_000.0, 20_000.0),
            "just now",
            "clock skew is not negative age"
        );
        assert_eq!(age(4_000.0, 0.0), "just now");
        assert_eq!(age(42_500.0, 0.0), "42 s ago");
        assert_eq!(age(300_000.0, 0.0), "5 min ago");
        assert_eq!(age(3.0 * 3_600_000.0, 0.0), "3 h ago");
        assert_eq!(age(2.5 * 86_400_000.0, 0.0), "2 d ago");
        assert_eq!(age(f64::NAN, 0.0), "just now");
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(duration(-5.0), "0 ms");
        assert_eq!(duration(f64::NAN), "0 ms");
        assert_eq!(duration(850.4), "850 ms");
        assert_eq!(duration(1_000.0), "1.0 s");
        assert_eq!(duration(12_345.0), "12.3 s");
        assert_eq!(duration(245_000.0), "4 min 05 s");
        assert_eq!(duration(7_380_000.0), "2 h 03 min");
    }
}
