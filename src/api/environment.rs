//! What the console's own server says it is in front of (`GET` [`ENVIRONMENT_PATH`] on the
//! console's origin): the one request that is not the API's, asked before the app mounts.

use std::time::Duration;

use api_contract::{ConsoleEnvironment, ENVIRONMENT_PATH};
use leptos::prelude::{TimeoutHandle, set_timeout_with_handle};

/// What the console's own server says; `None` when it says nothing this console can read within
/// `wait_at_most` (no such document, an error, a body that is not one, or no answer in time:
/// the request is aborted then).
pub async fn served_environment(wait_at_most: Duration) -> Option<ConsoleEnvironment> {
    let abort = web_sys::AbortController::new().ok()?;
    let signal = abort.signal();
    let timer = abort_after(abort, wait_at_most);
    let answer = gloo_net::http::Request::get(ENVIRONMENT_PATH)
        .header("Accept", "application/json")
        .abort_signal(Some(&signal))
        .send()
        .await
        .ok();
    drop(timer);
    let answer = answer?;
    if !answer.ok() {
        return None;
    }
    serde_json::from_str::<ConsoleEnvironment>(&answer.text().await.ok()?).ok()
}

/// Aborts the request after `delay`, unless the returned guard is dropped first.
fn abort_after(abort: web_sys::AbortController, delay: Duration) -> impl Drop {
    let handle = set_timeout_with_handle(move || abort.abort(), delay).ok();
    TimerGuard(handle)
}

struct TimerGuard(Option<TimeoutHandle>);

impl Drop for TimerGuard {
    fn drop(&mut self) {
        if let Some(handle) = self.0.take() {
            handle.clear();
        }
    }
}
