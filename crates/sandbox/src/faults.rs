//! Faults on demand, chosen by magic words in a run's input (documented in the README).
//!
//! `sandbox:500` and `sandbox:429` fail only the first attempt made with an idempotency key,
//! so a client's retry with the same key succeeds: that is how "a retried submission is never
//! charged twice" is shown. `sandbox:fail=<code>` fails the run itself; `sandbox:slow` makes it
//! outlast the live lease.

/// Faults requested by an input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MagicFaults {
    pub first_attempt_500: bool,
    pub first_attempt_429: bool,
    pub fail_code: Option<String>,
    pub slow: bool,
}

/// Seconds a client is told to wait after a forced 429.
pub const FORCED_RETRY_AFTER_SECS: f64 = 3.0;
/// How much longer a `sandbox:slow` run processes than usual.
pub const SLOW_FACTOR: u32 = 12;

pub fn parse<'a>(texts: impl IntoIterator<Item = &'a str>) -> MagicFaults {
    let mut faults = MagicFaults::default();
    for text in texts {
        for word in text.split_whitespace() {
            match word {
                "sandbox:500" => faults.first_attempt_500 = true,
                "sandbox:429" => faults.first_attempt_429 = true,
                "sandbox:slow" => faults.slow = true,
                _ => {
                    if let Some(code) = word.strip_prefix("sandbox:fail=")
                        && !code.is_empty()
                        && code.len() <= 64
                        && code
                            .bytes()
                            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
                    {
                        faults.fail_code = Some(code.to_owned());
                    }
                }
            }
        }
    }
    faults
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_words_are_found_in_any_text() {
        let f = parse([
            "acme sandbox:500",
            "x sandbox:fail=provider_timeout",
            "sandbox:slow",
        ]);
        assert!(f.first_attempt_500 && f.slow && !f.first_attempt_429);
        assert_eq!(f.fail_code.as_deref(), Some("provider_timeout"));
        assert_eq!(parse(["sandbox:fail=Bad-Code"]).fail_code, None);
        assert_eq!(parse(["plain words"]), MagicFaults::default());
    }
}
