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

/// A moment (ms since the epoch) in the browser's local time zone and format.
pub fn local_time(ms: f64) -> String {
    let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(ms));
    String::from(date.to_locale_string("default", &wasm_bindgen::JsValue::UNDEFINED))
}

/// Seconds from one RFC 3339 time to another, if both parse.
pub fn seconds_between(from: &str, to: &str) -> Option<f64> {
    let (a, b) = (js_sys::Date::parse(from), js_sys::Date::parse(to));
    (!a.is_nan() && !b.is_nan()).then(|| (b - a) / 1000.0)
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
}
