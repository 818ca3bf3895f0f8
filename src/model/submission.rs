//! The form's submission as rules: which idempotency key the next request sends, how long a
//! rate-limited retry waits, and what the form says after a refusal.
//!
//! Pure functions, tested natively; `pages/action_form/` drives them.

/// The longest wait before a rate-limited retry, whatever the API asks: ten minutes.
const MAX_RETRY_WAIT_SECONDS: f64 = 600.0;
/// The wait before a rate-limited retry when the API gives no `Retry-After`.
const DEFAULT_RETRY_WAIT_SECONDS: f64 = 2.0;

/// The body of the last attempt and the idempotency key it was sent with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SentKey {
    pub body: String,
    pub key: String,
}

impl SentKey {
    /// The key to send again for `body`: the last attempt's when the body is the same, so a
    /// retry is the same logical submission and never charged twice; `None` when it changed.
    pub fn reusable_for(&self, body: &str) -> Option<&str> {
        (self.body == body).then_some(self.key.as_str())
    }
}

/// Whole seconds to wait before retrying a 429, from its `Retry-After` (if any): rounded up, at
/// least one second, at most ten minutes.
pub fn retry_wait_seconds(retry_after: Option<f64>) -> u32 {
    retry_after
        .unwrap_or(DEFAULT_RETRY_WAIT_SECONDS)
        .ceil()
        .clamp(1.0, MAX_RETRY_WAIT_SECONDS) as u32
}

/// What to do after a refusal with this error code, below the error panel; empty when the
/// panel says enough.
pub fn refusal_hint(code: Option<&str>) -> &'static str {
    match code {
        Some("idempotency_key_reused") => {
            "This idempotency key was already used for a different request. Submitting again uses a new key."
        }
        Some("insufficient_credits") => "Lower max results or set max credits, then submit again.",
        _ => "",
    }
}

/// Below a 5xx or a request without an answer, beside the Retry button.
pub const RETRY_HINT: &str = "Your input is kept. Retry sends the same request with the same idempotency key, so it is never charged twice.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_body_reuses_its_key_and_a_changed_one_does_not() {
        let sent = SentKey {
            body: r#"{"input":{"domain":"a.com"}}"#.to_owned(),
            key: "console-1".to_owned(),
        };
        assert_eq!(
            sent.reusable_for(r#"{"input":{"domain":"a.com"}}"#),
            Some("console-1")
        );
        assert_eq!(sent.reusable_for(r#"{"input":{"domain":"b.com"}}"#), None);
    }

    #[test]
    fn a_rate_limited_retry_waits_as_told_within_bounds() {
        assert_eq!(retry_wait_seconds(Some(3.0)), 3);
        assert_eq!(retry_wait_seconds(Some(2.1)), 3, "rounded up");
        assert_eq!(retry_wait_seconds(None), 2, "no Retry-After");
        assert_eq!(retry_wait_seconds(Some(0.0)), 1, "at least a second");
        assert_eq!(retry_wait_seconds(Some(-5.0)), 1);
        assert_eq!(
            retry_wait_seconds(Some(86_400.0)),
            600,
            "at most ten minutes"
        );
    }

    #[test]
    fn refusals_the_person_can_fix_say_how() {
        assert!(refusal_hint(Some("idempotency_key_reused")).contains("uses a new key"));
        assert!(refusal_hint(Some("insufficient_credits")).contains("Lower max results"));
        assert_eq!(refusal_hint(Some("invalid_input")), "");
        assert_eq!(refusal_hint(None), "");
    }
}
