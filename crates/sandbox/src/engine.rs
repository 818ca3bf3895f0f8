//! The life of a run: submission (idempotent, credit-checked), background progress,
//! completion with accounting, cancellation, and waiting for a live answer.

use std::time::{Duration, Instant};

use api_contract::input::capped_max_results;
use api_contract::{ActionId, Completeness, Run, RunError, RunStatus, Submission};
use axum::http::StatusCode;
use rand::Rng;

use crate::data::{self, Outcome};
use crate::error::ApiError;
use crate::faults::{self, FORCED_RETRY_AFTER_SECS, SLOW_FACTOR};
use crate::state::{IdempotencyRecord, RateBucket, RunRecord, SandboxState, Store, now_millis};

/// Credits a run reserves: the cost of every record it may return, capped by `max_credits`.
pub fn reservation(action_cpr: u64, record_limit: usize, max_credits: Option<u64>) -> u64 {
    let full = action_cpr * record_limit as u64;
    max_credits.map_or(full, |cap| full.min(cap))
}

/// Most records a run may return: the requested `max_results` (any of the contract's 1 to
/// 100; the ceiling when absent) capped at the action's registry ceiling, then lowered so
/// their cost stays within `max_credits`. The reservation and the records produced both
/// follow this number.
pub fn record_limit(action: ActionId, max_results: Option<u32>, max_credits: Option<u64>) -> usize {
    let max_results = capped_max_results(max_results, action.sandbox_max_results());
    let by_credits = max_credits.map_or(u64::MAX, |cap| cap / action.credits_per_record());
    u64::from(max_results).min(by_credits) as usize
}

fn take_rate_token(
    store: &mut Store,
    state: &SandboxState,
    workspace_id: &str,
) -> Result<(), ApiError> {
    let config = state.config();
    let now = Instant::now();
    let bucket = store
        .rate
        .entry(workspace_id.to_owned())
        .or_insert(RateBucket {
            tokens: f64::from(config.rate_burst),
            updated: now,
        });
    let elapsed = now.duration_since(bucket.updated).as_secs_f64();
    bucket.tokens =
        (bucket.tokens + elapsed * config.rate_per_sec).min(f64::from(config.rate_burst));
    bucket.updated = now;
    if bucket.tokens >= 1.0 {
        bucket.tokens -= 1.0;
        return Ok(());
    }
    let wait = ((1.0 - bucket.tokens) / config.rate_per_sec.max(0.001))
        .ceil()
        .max(1.0);
    Err(rate_limited(
        wait,
        format!("Too many submissions from this workspace; retry after {wait} s."),
    ))
}

pub fn rate_limited(retry_after: f64, message: String) -> ApiError {
    let mut e = ApiError::new(StatusCode::TOO_MANY_REQUESTS, "rate_limited", message);
    e.retry_after = Some(retry_after);
    e
}

/// Submits a validated request and returns its run: a new one, or for a key seen before with
/// the same request, the same one. Everything from the idempotency lookup to the run's
/// creation happens under one lock, so concurrent duplicates cannot create two runs.
pub fn submit(
    state: &SandboxState,
    workspace_id: &str,
    idempotency_key: &str,
    submission: Submission,
    canonical_body: &str,
) -> Result<Run, ApiError> {
    let action = submission.action;
    let limit = record_limit(action, submission.max_results, submission.max_credits);
    if limit == 0 {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            format!(
                "max_credits is below the cost of one record ({} credits) for {action}",
                action.credits_per_record()
            ),
        ));
    }
    let magic = faults::parse(data::input_texts(&submission.input));
    let fingerprint = format!("{action}\n{canonical_body}");

    let mut store = state.store();
    take_rate_token(&mut store, state, workspace_id)?;
    let slot = (workspace_id.to_owned(), idempotency_key.to_owned());
    let attempts = match store.idempotency.get_mut(&slot) {
        Some(previous) if previous.fingerprint != fingerprint => {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "idempotency_key_reused",
                "This Idempotency-Key was already used for a different request (another action or body). \
                 Use a new key for a new request.",
            ));
        }
        Some(previous) => {
            if let Some(run_id) = previous.run_id.clone() {
                let run = store.runs[&run_id].run.clone();
                // The same request again: the same run, charged nothing again.
                return Ok(run);
            }
            previous.attempts += 1;
            previous.attempts
        }
        None => {
            store.idempotency.insert(
                slot.clone(),
                IdempotencyRecord {
                    fingerprint,
                    run_id: None,
                    attempts: 1,
                },
            );
            1
        }
    };
    if magic.first_attempt_500 && attempts == 1 {
        return Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal_error",
            "The sandbox failed this attempt on purpose (sandbox:500). Retry with the same Idempotency-Key.",
        ));
    }
    if magic.first_attempt_429 && attempts == 1 {
        return Err(rate_limited(
            FORCED_RETRY_AFTER_SECS,
            "Rate limited on purpose (sandbox:429). Retry with the same Idempotency-Key.".into(),
        ));
    }
    if rand::thread_rng().r#gen::<f64>() < state.config().error_500_share {
        return Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal_error",
            "The sandbox failed this submission at random (--error-500-share). Retry with the same Idempotency-Key.",
        ));
    }

    let reserve = reservation(action.credits_per_record(), limit, submission.max_credits);
    let workspace = store.workspace_mut(workspace_id).ok_or_else(|| {
        ApiError::unauthorized("invalid_credential", "The workspace no longer exists.")
    })?;
    let available = workspace.workspace.credits_available();
    if reserve > available {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "insufficient_credits",
            format!(
                "This run would reserve {reserve} credits but only {available} are available. \
                 Lower max_results or max_credits, or add credits."
            ),
        ));
    }
    workspace.workspace.credits_reserved += reserve;

    let run = Run {
        id: uuid::Uuid::new_v4().to_string(),
        action: action.as_str().to_owned(),
        status: RunStatus::Queued,
        output: Vec::new(),
        credits_used: 0,
        credits_reserved: reserve,
        created_at: now_millis(),
        completed_at: None,
        completeness: Completeness::single_page(false),
        error: None,
    };
    let random_failure = rand::thread_rng().r#gen::<f64>() < state.config().fail_share;
    let record = RunRecord {
        run: run.clone(),
        workspace_id: workspace_id.to_owned(),
        action,
        input: submission.input,
        record_limit: limit,
        forced_failure: magic
            .fail_code
            .or_else(|| random_failure.then(|| "provider_error".to_owned())),
        slow: magic.slow,
    };
    store.runs.insert(run.id.clone(), record);
    store.run_order.push(run.id.clone());
    if let Some(slot) = store.idempotency.get_mut(&slot) {
        slot.run_id = Some(run.id.clone());
    }
    drop(store);

    tokio::spawn(drive(state.clone(), run.id.clone()));
    Ok(run)
}

/// Moves a run through queued → processing → completed/failed in the background.
async fn drive(state: SandboxState, run_id: String) {
    let config = state.config().clone();
    tokio::time::sleep(config.queue_time).await;
    let slow = {
        let mut store = state.store();
        let Some(record) = store.runs.get_mut(&run_id) else {
            return;
        };
        if record.run.status != RunStatus::Queued {
            return;
        }
        record.run.status = RunStatus::Processing;
        record.slow
    };
    state.run_changed().notify_waiters();
    let factor = if slow { SLOW_FACTOR } else { 1 };
    tokio::time::sleep(config.process_time * factor).await;
    finish(&state, &run_id);
    state.run_changed().notify_waiters();
}

/// Completes or fails a processing run, charging what it returned and releasing the rest.
fn finish(state: &SandboxState, run_id: &str) {
    let mut store = state.store();
    let Some(record) = store.runs.get(run_id) else {
        return;
    };
    if record.run.status != RunStatus::Processing {
        return;
    }
    let outcome = match &record.forced_failure {
        Some(code) => Outcome::Failed {
            code: code.clone(),
            message: format!("The run failed with {code} (a fault the sandbox was asked for)."),
        },
        None => data::generate(record.action, &record.input, record.record_limit),
    };
    let (action, workspace_id, reserved) = (
        record.action,
        record.workspace_id.clone(),
        record.run.credits_reserved,
    );
    let mut run = record.run.clone();
    run.credits_reserved = 0;
    run.completed_at = Some(now_millis());
    match outcome {
        Outcome::Records { records, has_more } => {
            run.status = RunStatus::Completed;
            run.credits_used = action.credits_per_record() * records.len() as u64;
            run.completeness = Completeness::single_page(has_more);
            run.output = records;
        }
        Outcome::Failed { code, message } => {
            run.status = RunStatus::Failed;
            run.error = Some(RunError { code, message });
        }
    }
    if let Some(ws) = store.workspace_mut(&workspace_id) {
        ws.roll_usage_day(chrono::Utc::now().date_naive());
        let w = &mut ws.workspace;
        w.credits_reserved = w.credits_reserved.saturating_sub(reserved);
        w.credits_balance = w.credits_balance.saturating_sub(run.credits_used);
        let returned = run.output.len() as u64;
        if action == ActionId::NetworkExtractPeople {
            w.usage_today.profiles += returned;
        }
        if action.as_str().starts_with("premium-") {
            w.usage_today.premium_lines += returned;
        }
    }
    if let Some(record) = store.runs.get_mut(run_id) {
        record.run = run;
    }
}

/// Cancels a queued or processing run, releasing its reservation. A terminal run is a 409.
pub fn cancel(state: &SandboxState, workspace_id: &str, run_id: &str) -> Result<Run, ApiError> {
    let mut store = state.store();
    let record = store
        .runs
        .get_mut(run_id)
        .filter(|r| r.workspace_id == workspace_id)
        .ok_or_else(|| run_not_found(run_id))?;
    if record.run.status.is_terminal() {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "run_not_cancellable",
            format!(
                "The run already finished ({}); only queued or processing runs can be cancelled.",
                record.run.status.as_str()
            ),
        ));
    }
    let reserved = record.run.credits_reserved;
    record.run.status = RunStatus::Cancelled;
    record.run.credits_reserved = 0;
    record.run.completed_at = Some(now_millis());
    let run = record.run.clone();
    if let Some(ws) = store.workspace_mut(workspace_id) {
        ws.workspace.credits_reserved = ws.workspace.credits_reserved.saturating_sub(reserved);
    }
    drop(store);
    state.run_changed().notify_waiters();
    Ok(run)
}

pub fn run_not_found(run_id: &str) -> ApiError {
    ApiError::not_found(
        "run_not_found",
        format!("No run with id {run_id} exists in this workspace."),
    )
}

/// Waits until the run is terminal or `lease` has passed, and returns it as it then is.
pub async fn wait_for_terminal(state: &SandboxState, run_id: &str, lease: Duration) -> Option<Run> {
    let deadline = tokio::time::Instant::now() + lease;
    loop {
        let notified = state.run_changed().notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        let run = state.store().runs.get(run_id)?.run.clone();
        if run.status.is_terminal() {
            return Some(run);
        }
        if tokio::time::timeout_at(deadline, notified).await.is_err() {
            return state.store().runs.get(run_id).map(|r| r.run.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservation_is_the_full_cost_capped_by_max_credits() {
        assert_eq!(reservation(1, 100, None), 100);
        assert_eq!(reservation(20, 1, None), 20);
        assert_eq!(reservation(1, 100, Some(30)), 30);
    }

    #[test]
    fn record_limit_keeps_the_cost_within_max_credits() {
        let limit = record_limit;
        assert_eq!(
            limit(ActionId::PremiumSearchPeople, Some(100), Some(30)),
            30
        );
        assert_eq!(limit(ActionId::PremiumSearchPeople, Some(10), None), 10);
        assert_eq!(limit(ActionId::NetworkExtractPeople, Some(1), Some(19)), 0);
        assert_eq!(limit(ActionId::NetworkExtractPeople, Some(1), Some(20)), 1);
    }

    #[test]
    fn record_limit_is_capped_at_the_action_ceiling() {
        let limit = record_limit;
        // The smaller of the request and the ceiling; absent means the ceiling.
        assert_eq!(limit(ActionId::NetworkExtractPeople, Some(50), None), 1);
        assert_eq!(
            limit(ActionId::NetworkExtractPeople, Some(100), Some(300)),
            1
        );
        assert_eq!(limit(ActionId::NetworkSearchContent, Some(60), None), 50);
        assert_eq!(limit(ActionId::NetworkSearchContent, None, None), 50);
        assert_eq!(limit(ActionId::PremiumSearchPerson, Some(100), Some(5)), 5);
        // So is the reservation: one enrichment's worth, not fifty.
        let enrich = limit(ActionId::NetworkExtractPeople, Some(50), None);
        assert_eq!(reservation(20, enrich, None), 20);
    }
}
