//! Polling by the console's rules, in one hook: `use_poll` for a run page, the runs list and the
//! runs list's kept runs still running;
//! and `use_every_while_shown` for a page that refreshes on a timer (the workspace, the log).
//!
//! Starts at 1 s and backs off ×1.5 to 10 s; never more than one request in flight; nothing while
//! the tab is hidden (it waits for `visibilitychange`, then polls at once if a poll fell due);
//! stops at a final value, on an error that will not go away, and when the page is left; rides
//! out transient errors (no answer, 5xx, 429 by its `retry_after`) keeping the last good value.
//!
//! The loop runs in a task spawned with `spawn_local_scoped_with_cancellation` from an `Effect`,
//! so the framework ends it: leaving the page disposes the effect, and a `restart` re-runs it,
//! each time cancelling the previous loop before it can touch a signal again.

use std::future::Future;
use std::time::Duration;

use chrono::{DateTime, Utc};
use leptos::prelude::*;
use leptos::task::spawn_local_scoped_with_cancellation;

use crate::api::{ApiError, WithRequestId};
use crate::browser::{sleep, until_visible};

/// Calls `tick` every `period` while the calling page is shown: a tick that falls due while the
/// tab is hidden waits until it is visible again, and the loop ends when the page is left (it
/// belongs to the caller's owner). `tick` asks a resource to load again (`refetch`), which keeps
/// one load of its own at a time, and returns at once.
pub fn use_every_while_shown(period: Duration, tick: impl Fn() + 'static) {
    spawn_local_scoped_with_cancellation(async move {
        loop {
            sleep(period).await;
            until_visible().await;
            tick();
        }
    });
}

/// Delay before the poll after `polls_done` polls: 1 s, then ×1.5 each time, capped at 10 s.
pub fn backoff(polls_done: u32) -> Duration {
    let mut ms = 1000_u64;
    for _ in 0..polls_done.min(16) {
        ms = ms * 3 / 2;
    }
    Duration::from_millis(ms.min(10_000))
}

/// Delay after an error: at least the API's `retry_after` for a 429, otherwise the backoff.
pub fn delay_after_error(error: &ApiError, backoff: Duration) -> Duration {
    match error.retry_after() {
        Some(seconds) if error.status() == Some(429) && seconds.is_finite() && seconds > 0.0 => {
            Duration::from_secs_f64(seconds.min(600.0)).max(backoff)
        }
        _ => backoff,
    }
}

/// What a page shows while polling: the latest good value, and how polling is going.
pub struct Poll<T: Send + Sync + 'static> {
    pub value: RwSignal<Option<T>>,
    /// The request id of the response that brought `value`, for support tickets.
    pub request_id: RwSignal<Option<String>>,
    /// An error that ended polling (404, 401, …).
    pub fatal: RwSignal<Option<ApiError>>,
    /// The last transient error, cleared by the next good answer; polling goes on.
    pub transient: RwSignal<Option<ApiError>>,
    /// When the last good answer arrived.
    pub last_update: RwSignal<Option<DateTime<Utc>>>,
    /// Whether polling goes on (the value is not final yet).
    pub active: RwSignal<bool>,
    restarts: RwSignal<u32>,
    /// A request is on its way; a restart then waits for its answer instead of sending another.
    in_flight: StoredValue<bool>,
    /// Asked to restart while a request was in flight: poll again as soon as it is answered.
    again: StoredValue<bool>,
    done: fn(&T) -> bool,
}

impl<T: Send + Sync + 'static> Clone for Poll<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Send + Sync + 'static> Copy for Poll<T> {}

impl<T: Send + Sync + 'static> Poll<T> {
    /// Shows `value` (e.g. a run a cancel returned) without waiting for the next poll; a final
    /// value ends polling.
    pub fn set(&self, value: T) {
        let done = (self.done)(&value);
        self.value.set(Some(value));
        self.last_update.set(Some(Utc::now()));
        if done {
            self.active.set(false);
        }
    }

    /// Polls again from the start: now, then backing off. Never a second request in flight: if
    /// one is on its way, the next poll follows its answer at once.
    pub fn restart(&self) {
        if self.in_flight.get_value() {
            self.again.set_value(true);
        } else {
            self.restarts.update(|n| *n += 1);
        }
    }
}

/// Polls `fetch` until `done` says the value is final, the calling page is left, or an error
/// that is not transient arrives.
pub fn use_poll<T, F, Fut>(fetch: F, done: fn(&T) -> bool) -> Poll<T>
where
    T: Send + Sync + 'static,
    F: Fn() -> Fut + Clone + 'static,
    Fut: Future<Output = Result<WithRequestId<T>, ApiError>> + 'static,
{
    let poll = Poll {
        value: RwSignal::new(None),
        request_id: RwSignal::new(None),
        fatal: RwSignal::new(None),
        transient: RwSignal::new(None),
        last_update: RwSignal::new(None),
        active: RwSignal::new(true),
        restarts: RwSignal::new(0),
        in_flight: StoredValue::new(false),
        again: StoredValue::new(false),
        done,
    };
    Effect::new(move |_| {
        poll.restarts.track();
        let fetch = fetch.clone();
        // Untracked: the loop's reads must not subscribe this effect to the values it sets.
        untrack(|| {
            poll.active.set(true);
            poll.fatal.set(None);
            spawn_local_scoped_with_cancellation(run_loop(poll, fetch));
        });
    });
    poll
}

async fn run_loop<T, F, Fut>(poll: Poll<T>, fetch: F)
where
    T: Send + Sync + 'static,
    F: Fn() -> Fut,
    Fut: Future<Output = Result<WithRequestId<T>, ApiError>>,
{
    let mut polls = 0;
    let mut delay = Duration::ZERO;
    loop {
        if !delay.is_zero() {
            sleep(delay).await;
        }
        until_visible().await;
        // A value set from outside (a cancel's answer) may have ended polling meanwhile.
        if !poll.active.get_untracked() {
            return;
        }
        poll.in_flight.set_value(true);
        let result = fetch().await;
        poll.in_flight.set_value(false);
        polls += 1;
        let next = backoff(polls - 1);
        if poll.again.get_value() {
            // A restart was asked for while this request was out: start over after it.
            poll.again.set_value(false);
            poll.active.set(true);
            polls = 0;
        }
        match result {
            Ok(WithRequestId {
                value, request_id, ..
            }) => {
                poll.transient.set(None);
                poll.request_id.set(request_id);
                poll.set(value);
                if !poll.active.get_untracked() {
                    return;
                }
                delay = if polls == 0 { Duration::ZERO } else { next };
            }
            Err(error) if error.is_transient() => {
                delay = delay_after_error(&error, if polls == 0 { Duration::ZERO } else { next });
                poll.transient.set(Some(error));
            }
            Err(error) => {
                poll.fatal.set(Some(error));
                poll.active.set(false);
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use api_contract::ErrorDetail;

    #[test]
    fn backoff_starts_at_one_second_and_caps_at_ten() {
        let schedule: Vec<u128> = (0..8).map(|n| backoff(n).as_millis()).collect();
        assert_eq!(
            schedule,
            [1000, 1500, 2250, 3375, 5062, 7593, 10_000, 10_000]
        );
        assert_eq!(backoff(1000), Duration::from_secs(10));
        assert!(schedule.windows(2).all(|w| w[0] <= w[1]));
    }

    fn api(status: u16, retry_after: Option<f64>) -> ApiError {
        ApiError::Api {
            status,
            detail: ErrorDetail {
                code: "x".into(),
                message: "m".into(),
                request_id: None,
                retry_after,
            },
        }
    }

    #[test]
    fn a_429_waits_at_least_its_retry_after() {
        let ms = Duration::from_millis;
        assert_eq!(delay_after_error(&api(429, Some(4.0)), ms(1000)), ms(4000));
        assert_eq!(delay_after_error(&api(429, Some(0.5)), ms(1500)), ms(1500));
        assert_eq!(delay_after_error(&api(429, None), ms(1500)), ms(1500));
        assert_eq!(delay_after_error(&api(503, Some(9.0)), ms(1500)), ms(1500));
        assert_eq!(
            delay_after_error(&api(429, Some(f64::INFINITY)), ms(1500)),
            ms(1500),
            "a nonsense retry_after is ignored"
        );
        assert_eq!(
            delay_after_error(&api(429, Some(1e9)), ms(1500)),
            Duration::from_secs(600)
        );
    }
}
