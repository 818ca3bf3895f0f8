//! The batch's clock as types: an [`EngineTime`] is an instant, in milliseconds since the Unix
//! epoch as the browser's `Date.now()` reads it; a [`Millis`] is a span between two. Both are
//! `f64` underneath, as the browser's clock is: spans may be fractional, and "long ago" and
//! "never" are infinite instants rather than options. The engine and its pacer take every time
//! as one of these; the driver (`crate::runner`) reads the clock and converts at the edge.

use std::ops::{Add, AddAssign, Div, Mul, Sub};
use std::time::Duration;

/// An instant on the batch's clock: milliseconds since the Unix epoch.
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd)]
pub struct EngineTime(f64);

impl EngineTime {
    /// Before any other instant: "never happened" for a "last done at".
    pub const LONG_AGO: EngineTime = EngineTime(f64::NEG_INFINITY);
    /// The clock's start, 1 January 1970: already past, "any time now" for a "not before".
    pub const EPOCH: EngineTime = EngineTime(0.0);
    /// After any other instant: "nothing due".
    pub const NEVER: EngineTime = EngineTime(f64::INFINITY);

    /// The instant `ms` milliseconds after the Unix epoch (`Date.now()`).
    pub const fn from_ms(ms: f64) -> EngineTime {
        EngineTime(ms)
    }

    /// Milliseconds since the Unix epoch.
    pub const fn as_ms(self) -> f64 {
        self.0
    }

    /// The earlier of two instants.
    pub fn min(self, other: EngineTime) -> EngineTime {
        EngineTime(self.0.min(other.0))
    }

    /// The later of two instants.
    pub fn max(self, other: EngineTime) -> EngineTime {
        EngineTime(self.0.max(other.0))
    }

    /// Neither [`EngineTime::LONG_AGO`] nor [`EngineTime::NEVER`].
    pub fn is_finite(self) -> bool {
        self.0.is_finite()
    }

    /// Orders instants totally (for sorting).
    pub fn total_cmp(&self, other: &EngineTime) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// A span of time in milliseconds (negative when subtracting a later instant).
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd)]
pub struct Millis(f64);

impl Millis {
    pub const ZERO: Millis = Millis(0.0);

    pub const fn from_ms(ms: f64) -> Millis {
        Millis(ms)
    }

    pub fn from_secs(seconds: f64) -> Millis {
        Millis(seconds * 1000.0)
    }

    pub const fn as_ms(self) -> f64 {
        self.0
    }

    pub fn min(self, other: Millis) -> Millis {
        Millis(self.0.min(other.0))
    }

    pub fn max(self, other: Millis) -> Millis {
        Millis(self.0.max(other.0))
    }

    pub fn clamp(self, low: Millis, high: Millis) -> Millis {
        Millis(self.0.clamp(low.0, high.0))
    }

    /// The span for a timer, rounded up to whole milliseconds (a negative or unknown span is
    /// none).
    pub fn to_duration(self) -> Duration {
        if self.0 > 0.0 {
            Duration::from_millis(self.0.ceil().min(u64::MAX as f64) as u64)
        } else {
            Duration::ZERO
        }
    }
}

impl Add<Millis> for EngineTime {
    type Output = EngineTime;
    fn add(self, span: Millis) -> EngineTime {
        EngineTime(self.0 + span.0)
    }
}

impl Sub<Millis> for EngineTime {
    type Output = EngineTime;
    fn sub(self, span: Millis) -> EngineTime {
        EngineTime(self.0 - span.0)
    }
}

/// The span from `earlier` to `self`.
impl Sub for EngineTime {
    type Output = Millis;
    fn sub(self, earlier: EngineTime) -> Millis {
        Millis(self.0 - earlier.0)
    }
}

impl Add for Millis {
    type Output = Millis;
    fn add(self, other: Millis) -> Millis {
        Millis(self.0 + other.0)
    }
}

impl AddAssign for Millis {
    fn add_assign(&mut self, other: Millis) {
        self.0 += other.0;
    }
}

impl Sub for Millis {
    type Output = Millis;
    fn sub(self, other: Millis) -> Millis {
        Millis(self.0 - other.0)
    }
}

impl Mul<f64> for Millis {
    type Output = Millis;
    fn mul(self, factor: f64) -> Millis {
        Millis(self.0 * factor)
    }
}

impl Div<f64> for Millis {
    type Output = Millis;
    fn div(self, divisor: f64) -> Millis {
        Millis(self.0 / divisor)
    }
}

/// How many times `other` fits in `self`.
impl Div for Millis {
    type Output = f64;
    fn div(self, other: Millis) -> f64 {
        self.0 / other.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_and_spans_add_up_and_round_up_for_timers() {
        let start = EngineTime::from_ms(1_000.0);
        let later = start + Millis::from_secs(1.5);
        assert_eq!(later.as_ms(), 2_500.0);
        assert_eq!(later - start, Millis::from_ms(1_500.0));
        assert!(EngineTime::LONG_AGO < start && start < EngineTime::NEVER);
        assert_eq!(
            (
                Millis::from_ms(0.2).to_duration(),
                Millis::from_ms(-5.0).to_duration()
            ),
            (Duration::from_millis(1), Duration::ZERO)
        );
        assert_eq!(Millis::from_ms(500.0) / Millis::from_ms(100.0), 5.0);
    }
}
