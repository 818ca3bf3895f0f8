//! Watching a run until it is terminal: one reusable hook with the console's polling rules.
//!
//! Starts fast and backs off (1 s up to 10 s), never has more than one request in flight, sends
//! nothing while the tab is hidden and resumes within a moment when it is shown, stops for good
//! at a terminal state and when the page is left, and rides out transient errors (network, 5xx,
//! 429 with its `retry_after`), keeping the last good run on screen.

use api_contract::Run;
use leptos::prelude::*;

use crate::browser::{now_ms, page_hidden, sleep_ms};
use crate::session::Session;
use crate::transport::ApiError;

/// Delay before the poll after `polls_done` polls: 1 s, then ×1.5 each time, capped at 10 s.
pub fn backoff_ms(polls_done: u32) -> u32 {
    let mut delay = 1000.0_f64;
    for _ in 0..polls_done.min(16) {
        delay *= 1.5;
    }
    delay.min(10_000.0) as u32
}

/// Delay after an error: the API's `retry_after` for a 429, otherwise the backoff.
pub fn delay_after_error(error: &ApiError, backoff: u32) -> u32 {
    match error {
        ApiError::Api {
            status: 429,
            detail,
        } => detail
            .retry_after
            .map_or(backoff, |s| ((s * 1000.0) as u32).max(backoff)),
        _ => backoff,
    }
}

/// Whether polling should go on after this error: only transient ones.
pub fn is_transient(error: &ApiError) -> bool {
    matches!(error.status(), None | Some(429) | Some(500..=599))
}

/// What the page shows while watching a run.
#[derive(Clone, Copy)]
pub struct RunWatch {
    pub run: RwSignal<Option<Run>>,
    /// A final error (404, 401, …): polling stopped.
    pub fatal: RwSignal<Option<ApiError>>,
    /// A transient error; polling goes on.
    pub transient: RwSignal<Option<ApiError>>,
    /// When the last good answer arrived (ms since the epoch).
    pub last_update: RwSignal<Option<f64>>,
    /// Requests sent so far, for people and tests.
    pub requests: RwSignal<u32>,
    alive: StoredValue<bool>,
}

impl RunWatch {
    /// Replaces the run shown (e.g. after a cancel) without waiting for the next poll.
    pub fn set_run(&self, run: Run) {
        self.run.set(Some(run));
        self.last_update.set(Some(now_ms()));
    }
}

/// Sleeps `ms`, but also waits while the page is hidden; returns false once the watch ended.
async fn wait(alive: StoredValue<bool>, ms: u32) -> bool {
    let mut left = ms as i64;
    loop {
        if !alive.try_get_value().unwrap_or(false) {
            return false;
        }
        if left <= 0 && !page_hidden() {
            return true;
        }
        sleep_ms(200).await;
        left -= 200;
    }
}

/// Starts watching run `id` with the session's client; stops when the calling component unmounts.
pub fn watch_run(session: Session, id: String) -> RunWatch {
    let watch = RunWatch {
        run: RwSignal::new(None),
        fatal: RwSignal::new(None),
        transient: RwSignal::new(None),
        last_update: RwSignal::new(None),
        requests: RwSignal::new(0),
        alive: StoredValue::new(true),
    };
    Owner::on_cleanup(move || watch.alive.set_value(false));
    let Some(client) = session.client_untracked() else {
        return watch;
    };
    leptos::task::spawn_local(async move {
        let mut polls = 0;
        let mut delay = 0;
        loop {
            if !wait(watch.alive, delay).await {
                return;
            }
            watch.requests.update(|n| *n += 1);
            let result = client.run(&id).await;
            if !watch.alive.try_get_value().unwrap_or(false) {
                return;
            }
            polls += 1;
            let backoff = backoff_ms(polls - 1);
            match result {
                Ok(run) => {
                    let terminal = run.status.is_terminal();
                    watch.transient.set(None);
                    watch.set_run(run);
                    if terminal {
                        return;
                    }
                    delay = backoff;
                }
                Err(error) if is_transient(&error) => {
                    delay = delay_after_error(&error, backoff);
                    watch.transient.set(Some(error));
                }
                Err(error) => {
                    watch.fatal.set(Some(error));
                    return;
                }
            }
            // A run set from outside (cancel) may already be terminal.
            if watch
                .run
                .with_untracked(|r| r.as_ref().is_some_and(|r| r.status.is_terminal()))
            {
                return;
            }
        }
    });
    watch
}

#[cfg(test)]
mod tests {
    use super::*;
    use api_contract::ErrorDetail;

    #[test]
    fn backoff_starts_at_one_second_and_caps_at_ten() {
        let schedule: Vec<u32> = (0..8).map(backoff_ms).collect();
        assert_eq!(
            schedule,
            [1000, 1500, 2250, 3375, 5062, 7593, 10_000, 10_000]
        );
        assert_eq!(backoff_ms(1000), 10_000);
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
    fn only_network_5xx_and_429_are_transient() {
        assert!(is_transient(&ApiError::Network("down".into())));
        assert!(is_transient(&api(500, None)));
        assert!(is_transient(&api(503, None)));
        assert!(is_transient(&api(429, None)));
        assert!(!is_transient(&api(404, None)));
        assert!(!is_transient(&api(401, None)));
        assert!(!is_transient(&api(403, None)));
    }

    #[test]
    fn a_429_waits_at_least_its_retry_after() {
        assert_eq!(delay_after_error(&api(429, Some(4.0)), 1000), 4000);
        assert_eq!(delay_after_error(&api(429, Some(0.5)), 1500), 1500);
        assert_eq!(delay_after_error(&api(503, Some(9.0)), 1500), 1500);
    }
}
