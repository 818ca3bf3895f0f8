//! The pace that keeps a batch's submissions at the API's rate limit rather than against it.
//!
//! The contract does not publish the limit, so it is learned. Until the first `429` there is no
//! pace: the burst the API allows goes at once, one submission at a time. Between two `429`s the
//! API's bucket went from empty to empty, so the submissions it accepted in between are what it
//! refilled: their count over the time between the two is the rate. The pace is set just under
//! it and creeps up by 2 % every few seconds without a `429` (the API may allow more), so the
//! batch runs at the limit with a `429` now and then, not a storm of them.
//!
//! Once learned, the pace is a token bucket on the wall clock holding at most one second's
//! worth (and one): a sender whose timers were slowed or frozen (a background tab, a suspended laptop)
//! resumes at the rate, never in a burst. The learned pace is kept with the batch, so a reloaded
//! batch starts at it instead of learning it again through `429`s.

use serde::{Deserialize, Serialize};

use super::clock::{EngineTime, Millis};

/// What a batch learned about the API's rate limit, kept with the batch.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LearnedPace {
    /// Milliseconds between two submissions.
    pub interval_ms: f64,
}

/// The most a pace may catch up after a pause of the sender: one second's worth of submissions
/// (and one more, so that a sender whose timers wake once a second, as behind another tab,
/// keeps the fraction a second leaves over instead of losing it at every wake).
const CATCH_UP: Millis = Millis::from_ms(1_000.0);

/// Accepted submissions worth this long at the pace, without a `429`, make the pace 2 % faster.
const CREEP_AFTER: Millis = Millis::from_ms(3_000.0);

/// Submissions on their way at once before the pace is known.
const UNPACED_WINDOW: usize = 2;

/// Submissions that may be on their way at once, once the pace is known, cover this long.
const WINDOW: Millis = Millis::from_ms(500.0);

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pacer {
    /// The time between submissions; `None` until learned.
    interval: Option<Millis>,
    /// Submissions that may go now (a token bucket refilled at the pace).
    tokens: f64,
    /// When `tokens` was last brought up to date; `None` before the first submission (a pace
    /// kept from before starts with one: what the API's own bucket holds now is unknown).
    refilled_at: Option<EngineTime>,
    /// No submission before this time (a `429`'s `retry_after`).
    resume_at: EngineTime,
    last_limited: Option<EngineTime>,
    accepted_since_limited: u32,
    accepted_since_change: u32,
    /// Since the last `429`, the sender left the pace's submissions unused (its timers were
    /// throttled behind another tab, it was paused, or had nothing ready): the API was not kept
    /// at its limit, so what it accepted meanwhile says nothing of its rate.
    lagged_since_limited: bool,
    /// The same since the pace last crept up: a sender that does not keep up with the pace
    /// learns nothing about going faster.
    lagged_since_change: bool,
}

impl Pacer {
    /// A pace learned earlier (by the same batch before a reload).
    pub fn learned_before(pace: LearnedPace) -> Pacer {
        Pacer {
            interval: (pace.interval_ms.is_finite() && pace.interval_ms > 0.0)
                .then_some(Millis::from_ms(pace.interval_ms)),
            tokens: 1.0,
            ..Pacer::default()
        }
    }

    /// What to keep with the batch.
    pub fn learned(&self) -> Option<LearnedPace> {
        self.interval.map(|interval| LearnedPace {
            interval_ms: interval.as_ms(),
        })
    }

    /// The time between submissions, once learned.
    pub fn interval(&self) -> Option<Millis> {
        self.interval
    }

    fn capacity(interval: Millis) -> f64 {
        CATCH_UP / interval + 1.0
    }

    fn refill(&mut self, now: EngineTime) {
        let Some(interval) = self.interval else {
            return;
        };
        match self.refilled_at {
            None => self.refilled_at = Some(now),
            Some(then) if now > then => {
                let filled = self.tokens + (now - then) / interval;
                let capacity = Self::capacity(interval);
                if filled > capacity {
                    self.lagged_since_limited = true;
                    self.lagged_since_change = true;
                }
                self.tokens = filled.min(capacity);
                self.refilled_at = Some(now);
            }
            Some(_) => {}
        }
    }

    /// The earliest time the next submission may go.
    pub fn ready_at(&self, now: EngineTime) -> EngineTime {
        let by_pace = match self.interval {
            None => now,
            Some(interval) => {
                let mut bucket = self.clone();
                bucket.refill(now);
                if bucket.tokens >= 1.0 {
                    now
                } else {
                    now.max(bucket.refilled_at.unwrap_or(now)) + interval * (1.0 - bucket.tokens)
                }
            }
        };
        self.resume_at.max(by_pace)
    }

    /// A submission left at `now` (which is at or after [`Pacer::ready_at`]).
    pub fn sent(&mut self, now: EngineTime) {
        self.refill(now);
        if self.interval.is_some() {
            self.tokens -= 1.0;
        }
    }

    /// The API accepted a submission.
    pub fn accepted(&mut self) {
        self.accepted_since_limited += 1;
        self.accepted_since_change += 1;
        if let Some(interval) = self.interval
            && interval * f64::from(self.accepted_since_change) >= CREEP_AFTER
        {
            if !self.lagged_since_change {
                self.interval = Some(interval * 0.98);
            }
            self.accepted_since_change = 0;
            self.lagged_since_change = false;
        }
    }

    /// The API answered `429` at `now`, asking to wait `retry_after` seconds.
    pub fn limited(&mut self, now: EngineTime, retry_after: f64) {
        match self.last_limited {
            // The API's bucket was empty then and is empty now: what it accepted in between is
            // what it refilled, if the sender kept it at its limit all along.
            Some(then)
                if self.accepted_since_limited >= 3 && now > then && !self.lagged_since_limited =>
            {
                let per_ms = f64::from(self.accepted_since_limited) / (now - then).as_ms();
                self.interval = Some(Millis::from_ms(1.03 / per_ms));
                self.accepted_since_change = 0;
                self.lagged_since_change = false;
                self.last_limited = Some(now);
                self.accepted_since_limited = 0;
            }
            // Too few to measure (a retry after exactly one refill): keep counting from the
            // earlier 429.
            Some(_) if !self.lagged_since_limited => {}
            // The first 429, or one after the sender fell behind: measure from here.
            _ => {
                self.last_limited = Some(now);
                self.accepted_since_limited = 0;
                self.lagged_since_limited = false;
            }
        }
        self.resume_at = self
            .resume_at
            .max(now + Millis::from_secs(retry_after.clamp(0.05, 60.0)));
        // The API's bucket is empty: ours holds one submission at the end of the wait, and
        // fills at the pace from there.
        if let Some(interval) = self.interval {
            self.tokens = 0.0;
            self.refilled_at = Some(self.resume_at - interval);
        }
    }

    /// Submissions that may be on their way at once: two until the pace is known, so that a
    /// sender slowed by answers' round trips still reaches the API's limit (one at a time at
    /// 50/s with 30 ms answers never met it, nor learned it) while the burst's end costs two
    /// `429`s at most; then enough to keep the pace with answers that take a while.
    pub fn window(&self) -> usize {
        match self.interval {
            None => UNPACED_WINDOW,
            Some(interval) => ((WINDOW / interval).ceil() as usize).max(3),
        }
    }
}

/// How long a row waits before its next try with the same key after a 5xx or no answer:
/// 1 s, 2 s, 4 s … up to 30 s.
pub fn retry_delay(tries: u32) -> Millis {
    Millis::from_ms((1000.0 * 2f64.powi(tries.saturating_sub(1).min(5) as i32)).min(30_000.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The instant `ms` after the clock's start.
    fn at(ms: f64) -> EngineTime {
        EngineTime::from_ms(ms)
    }

    #[test]
    fn the_pace_learns_the_rate_between_two_429s_and_creeps_up() {
        let mut p = Pacer::default();
        assert_eq!((p.ready_at(at(0.0)).as_ms(), p.window()), (0.0, 2));
        for _ in 0..20 {
            p.sent(at(0.0));
            p.accepted();
        }
        // The burst ends: wait as told, no pace yet.
        p.limited(at(10.0), 1.0);
        assert_eq!(
            (
                p.ready_at(at(10.0)).as_ms(),
                p.interval().map(Millis::as_ms)
            ),
            (1010.0, None)
        );
        // After the wait, 20 more went through before the next 429 at 2010 ms: 20 per 2 s.
        for _ in 0..20 {
            p.accepted();
        }
        p.limited(at(2010.0), 1.0);
        let interval = p.interval().map(Millis::as_ms).unwrap();
        assert!((interval - 103.0).abs() < 0.01, "{interval}");
        assert_eq!(p.window(), 5);
        // After the wait one goes, then one per interval.
        assert!((p.ready_at(at(3010.0)).as_ms() - 3010.0).abs() < 0.01);
        p.sent(at(3010.0));
        assert!((p.ready_at(at(3010.0)).as_ms() - 3113.0).abs() < 0.01);
        // Three seconds of acceptances without a 429: 2 % faster.
        for _ in 0..30 {
            p.accepted();
        }
        assert!(p.interval().map(Millis::as_ms).unwrap() < interval);
    }

    #[test]
    fn after_a_freeze_it_resumes_at_the_pace_not_in_a_burst() {
        let mut p = Pacer::learned_before(LearnedPace { interval_ms: 100.0 });
        p.sent(at(0.0));
        // Ten minutes frozen: one second's worth (and one) may go at once, no more.
        let mut at_once = 0;
        while p.ready_at(at(600_000.0)).as_ms() <= 600_000.0 {
            p.sent(at(600_000.0));
            at_once += 1;
        }
        assert_eq!(at_once, 11);
        assert!((p.ready_at(at(600_000.0)).as_ms() - 600_100.0).abs() < 0.01);
    }

    #[test]
    fn a_kept_pace_is_measured_again_from_its_first_429() {
        let mut p = Pacer::learned_before(LearnedPace { interval_ms: 100.0 });
        p.limited(at(0.0), 0.5);
        assert_eq!(
            p.interval().map(Millis::as_ms),
            Some(100.0),
            "one 429 measures nothing"
        );
        // Retries after exactly one refill: one accepted between two 429s, counted on.
        for t in 1..=10 {
            p.accepted();
            p.limited(at(f64::from(t) * 200.0), 0.2);
        }
        let interval = p.interval().map(Millis::as_ms).unwrap();
        assert!((interval - 206.0).abs() < 0.5, "{interval}");
        assert_eq!(
            Pacer::learned_before(LearnedPace {
                interval_ms: f64::NAN
            })
            .interval(),
            None
        );
    }

    #[test]
    fn a_sender_that_fell_behind_measures_nothing_and_does_not_creep() {
        let mut p = Pacer::learned_before(LearnedPace { interval_ms: 500.0 });
        p.limited(at(0.0), 0.5);
        // Behind another tab: timers wake once a minute, and each wake sends what it may.
        let mut now = 500.0;
        for _ in 0..5 {
            now += 60_000.0;
            while p.ready_at(at(now)).as_ms() <= now {
                p.sent(at(now));
                p.accepted();
            }
        }
        assert_eq!(
            p.interval().map(Millis::as_ms),
            Some(500.0),
            "no creep while behind"
        );
        // In front again: the first 429 is not a measure of 10 rows over five minutes.
        p.limited(at(now), 0.5);
        assert_eq!(p.interval().map(Millis::as_ms), Some(500.0));
        // Kept at the limit from there, the next 429 measures again.
        for i in 1..=10 {
            p.sent(at(now + f64::from(i) * 500.0));
            p.accepted();
        }
        p.limited(at(now + 5_000.0), 0.5);
        assert!(
            (p.interval().map(Millis::as_ms).unwrap() - 515.0).abs() < 0.5,
            "{:?}",
            p.interval().map(Millis::as_ms)
        );
    }

    #[test]
    fn retries_back_off_to_thirty_seconds() {
        assert_eq!(retry_delay(1).as_ms(), 1000.0);
        assert_eq!(retry_delay(2).as_ms(), 2000.0);
        assert_eq!(retry_delay(20).as_ms(), 30_000.0);
    }

    proptest! {
        /// Whatever the sender's wake-ups (a busy or throttled timer), a learned pace never sends
        /// more in a span than one second's catch-up plus the span at the pace.
        #[test]
        fn a_learned_pace_is_never_exceeded(
            interval in 20.0f64..2_000.0,
            gaps in proptest::collection::vec(0.0f64..5_000.0, 1..200),
        ) {
            let mut p = Pacer::learned_before(LearnedPace { interval_ms: interval });
            let mut now = 0.0;
            let mut sent_at = Vec::new();
            for gap in gaps {
                now += gap;
                while p.ready_at(at(now)).as_ms() <= now {
                    p.sent(at(now));
                    sent_at.push(now);
                }
            }
            let capacity = 1_000.0 / interval + 1.0;
            for (i, start) in sent_at.iter().enumerate() {
                for (j, end) in sent_at.iter().enumerate().skip(i) {
                    let in_span = (j - i + 1) as f64;
                    prop_assert!(in_span <= capacity + (end - start) / interval + 1.0 + 1e-9);
                }
            }
        }
    }
}
