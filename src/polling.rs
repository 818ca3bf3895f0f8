//! Watching a run until it is terminal: one reusable hook with the console's polling rules.
//!
//! Starts fast and backs off (1 s up to 10 s), never has more than one request in flight, sends
//! nothing while the tab is hidden and resumes within a moment when it is shown, stops for good
//! at a terminal state and when the page is left, and rides out transient errors (network, 5xx,
//! 429 with its `retry_after`), keeping the last good run on screen.

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

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

/// One request of a poll: the value and the response's request id, or the error.
pub type Fetch<T> =
    Rc<dyn Fn() -> Pin<Box<dyn Future<Output = Result<(T, Option<String>), ApiError>>>>>;

/// What a page shows while polling: the latest good value, and how polling is going.
pub struct Polled<T: Send + Sync + 'static> {
    pub value: RwSignal<Option<T>>,
    /// The request id of the response that brought `value`, for support tickets.
    pub request_id: RwSignal<Option<String>>,
    /// A final error (404, 401, …): polling stopped.
    pub fatal: RwSignal<Option<ApiError>>,
    /// A transient error; polling goes on.
    pub transient: RwSignal<Option<ApiError>>,
    /// When the last good answer arrived (ms since the epoch).
    pub last_update: RwSignal<Option<f64>>,
    /// Whether a poll loop is running (the value is not final yet).
    pub active: RwSignal<bool>,
    /// Bumped to end a loop: each loop polls only while the generation is its own.
    generation: StoredValue<u32>,
    fetch: StoredValue<Fetch<T>, LocalStorage>,
    done: fn(&T) -> bool,
}

impl<T: Send + Sync + 'static> Clone for Polled<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Send + Sync + 'static> Copy for Polled<T> {}

impl<T: Clone + Send + Sync + 'static> Polled<T> {
    /// Replaces the value shown (e.g. a run after a cancel) without waiting for the next poll;
    /// a final value ends polling.
    pub fn set(&self, value: T) {
        if (self.done)(&value) {
            self.stop();
        }
        self.value.set(Some(value));
        self.last_update.set(Some(now_ms()));
    }

    /// Ends the current loop, if any.
    pub fn stop(&self) {
        self.generation.update_value(|g| *g += 1);
        self.active.set(false);
    }

    /// Polls again from the start: now, then backing off.
    pub fn restart(&self) {
        self.stop();
        let mine = self.generation.get_value();
        let this = *self;
        let alive = move || this.generation.try_get_value() == Some(mine);
        self.active.set(true);
        leptos::task::spawn_local(async move {
            let mut polls = 0;
            let mut delay = 0;
            loop {
                if !wait(alive, delay).await {
                    return;
                }
                let Some(fetch) = this.fetch.try_with_value(Rc::clone) else {
                    return;
                };
                let result = fetch().await;
                if !alive() {
                    return;
                }
                polls += 1;
                let backoff = backoff_ms(polls - 1);
                match result {
                    Ok((value, request_id)) => {
                        this.transient.set(None);
                        this.request_id.set(request_id);
                        this.set(value);
                        delay = backoff;
                    }
                    Err(error) if is_transient(&error) => {
                        delay = delay_after_error(&error, backoff);
                        this.transient.set(Some(error));
                    }
                    Err(error) => {
                        this.fatal.set(Some(error));
                        this.stop();
                    }
                }
                if !alive() {
                    return;
                }
            }
        });
    }
}

/// Sleeps `ms`, but also waits while the page is hidden; false once the loop should end.
async fn wait(alive: impl Fn() -> bool, ms: u32) -> bool {
    let mut left = ms as i64;
    loop {
        if !alive() {
            return false;
        }
        if left <= 0 && !page_hidden() {
            return true;
        }
        sleep_ms(100).await;
        left -= 100;
    }
}

/// Polls `fetch` by the console's rules until `done` says the value is final, the page that
/// called it is left, or a non-transient error arrives.
pub fn poll<T: Clone + Send + Sync + 'static>(fetch: Fetch<T>, done: fn(&T) -> bool) -> Polled<T> {
    let polled = Polled {
        value: RwSignal::new(None),
        request_id: RwSignal::new(None),
        fatal: RwSignal::new(None),
        transient: RwSignal::new(None),
        last_update: RwSignal::new(None),
        active: RwSignal::new(false),
        generation: StoredValue::new(0),
        fetch: StoredValue::new_local(fetch),
        done,
    };
    polled.restart();
    polled
}

/// Watches run `id` until it is terminal.
pub fn watch_run(session: Session, id: String) -> Polled<Run> {
    poll(
        Rc::new(move || {
            let (client, id) = (session.client_untracked(), id.clone());
            Box::pin(async move {
                match client {
                    Some(client) => client.run(&id).await,
                    None => Err(ApiError::Network("not signed in".into())),
                }
            })
        }),
        |run| run.status.is_terminal(),
    )
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
