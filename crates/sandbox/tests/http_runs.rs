//! Submissions, the run lifecycle, idempotency, credits, validation and faults over HTTP.

mod common;

use std::time::Duration;

use api_contract::{Run, RunList, RunOutputs, RunStatus};
use axum::http::StatusCode;
use common::{Reply, Sandbox};
use sandbox::SandboxConfig;
use serde_json::{Value, json};

/// Submits to `premium-search-people` as the seeded workspace's API key, the submission most
/// tests make.
async fn search_people(sb: &Sandbox, mode: &str, idempotency_key: &str, body: &Value) -> Reply {
    sb.submit_with_key("premium-search-people", mode, idempotency_key, body)
        .await
}

/// Posts `body` as it is to `premium-search-people` with this content type and idempotency key:
/// for the requests [`search_people`] would make well-formed.
async fn search_people_raw(
    sb: &Sandbox,
    mode: &str,
    content_type: &str,
    idempotency_key: Option<&str>,
    body: &str,
) -> Reply {
    let mut headers = vec![("content-type", content_type)];
    headers.extend(idempotency_key.map(|key| ("idempotency-key", key)));
    let path = format!("/v1/actions/premium-search-people/run/{mode}");
    sb.send("POST", &path, Some(sb.key()), &headers, Some(body))
        .await
}

/// A people search's body.
fn people(keywords: &str, max_results: u32) -> serde_json::Value {
    json!({ "input": { "keywords": keywords }, "max_results": max_results })
}

#[tokio::test]
async fn async_submission_is_202_queued_then_completes_and_charges_what_it_returned() {
    let sb = Sandbox::fast();
    let before = sb.workspace(sb.key()).await;
    let reply = search_people(&sb, "async", "key-async-0001", &people("rust", 5)).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED);
    let run: Run = reply.json();
    assert_eq!(run.status, RunStatus::Queued);
    assert_eq!(run.credits_reserved, 5);
    assert_eq!(run.output, Vec::<serde_json::Value>::new());
    assert_eq!(
        sb.workspace(sb.key()).await.credits_reserved,
        5,
        "the workspace shows the reservation"
    );

    let done = sb.wait_terminal(sb.key(), &run.id).await;
    assert_eq!(done.status, RunStatus::Completed);
    assert_eq!(done.output.len(), 5);
    assert_eq!(done.credits_used, 5);
    assert_eq!(done.credits_reserved, 0);
    assert!(done.completed_at.is_some());
    assert_eq!(done.completeness.scope, "single_page");
    assert!(done.completeness.has_more, "more than 5 people match");

    let after = sb.workspace(sb.key()).await;
    assert_eq!(after.credits_balance, before.credits_balance - 5);
    assert_eq!(after.credits_reserved, 0);
    assert_eq!(after.usage_today.premium_lines, 5);
    assert_eq!(after.usage_today.profiles, 0);
}

#[tokio::test]
async fn run_times_are_written_in_utc_with_milliseconds() {
    let sb = Sandbox::fast();
    let queued = search_people(&sb, "async", "key-dates-0001", &people("rust", 2)).await;
    let queued: serde_json::Value = queued.json();
    common::assert_millisecond_utc(&queued["created_at"], "created_at of a queued run");
    assert_eq!(queued["completed_at"], serde_json::Value::Null);

    let id = queued["id"].as_str().unwrap();
    sb.wait_terminal(sb.key(), id).await;
    let done: serde_json::Value = sb.get(&format!("/v1/runs/{id}"), sb.key()).await.json();
    common::assert_millisecond_utc(&done["created_at"], "created_at");
    common::assert_millisecond_utc(&done["completed_at"], "completed_at");
    assert_eq!(done["created_at"], queued["created_at"]);
    let listed: serde_json::Value = sb.get("/v1/runs", sb.key()).await.json();
    common::assert_millisecond_utc(
        &listed["runs"][0]["completed_at"],
        "completed_at in the list",
    );

    let run: Run = serde_json::from_value(done).unwrap();
    let completed_at = run.completed_at.unwrap();
    assert!(run.created_at <= completed_at);
    let age = chrono::Utc::now() - completed_at;
    assert!(
        (0..60_000).contains(&age.num_milliseconds()),
        "the times are now, in UTC: {completed_at}"
    );
}

#[tokio::test]
async fn live_submission_waits_for_the_terminal_run() {
    let sb = Sandbox::fast();
    let reply = sb
        .submit_with_key(
            "network-extract-people",
            "live",
            "key-live-00001",
            &json!({ "input": { "identifier": "ada-lovelace" } }),
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    let run: Run = reply.json();
    assert_eq!(run.status, RunStatus::Completed);
    assert_eq!(run.credits_used, 20);
    assert!(
        run.output[0]["network_profile_identifier"]
            .as_str()
            .unwrap()
            .starts_with("ACoAA")
    );
    assert_eq!(sb.workspace(sb.key()).await.usage_today.profiles, 1);
}

#[tokio::test]
async fn live_submission_past_the_lease_is_202_and_keeps_running() {
    let sb = Sandbox::new(SandboxConfig {
        live_lease: Duration::from_millis(50),
        ..SandboxConfig::fast()
    });
    let reply = search_people(
        &sb,
        "live",
        "key-lease-0001",
        &people("data sandbox:slow", 3),
    )
    .await;
    assert_eq!(reply.status, StatusCode::ACCEPTED);
    let run: Run = reply.json();
    assert!(matches!(
        run.status,
        RunStatus::Queued | RunStatus::Processing
    ));
    assert_eq!(
        sb.wait_terminal(sb.key(), &run.id).await.status,
        RunStatus::Completed
    );
}

#[tokio::test]
async fn a_failed_run_is_200_with_its_error_and_charges_nothing() {
    let sb = Sandbox::fast();
    let before = sb.workspace(sb.key()).await;
    let reply = search_people(
        &sb,
        "live",
        "key-fail-00001",
        &people("x sandbox:fail=provider_timeout", 10),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);
    let run: Run = reply.json();
    assert_eq!(run.status, RunStatus::Failed);
    let error = run.error.expect("a failed run carries an error");
    assert_eq!(error.code, "provider_timeout");
    assert!(!error.message.is_empty());
    assert_eq!((run.credits_used, run.credits_reserved), (0, 0));
    let after = sb.workspace(sb.key()).await;
    assert_eq!(
        (after.credits_balance, after.credits_reserved),
        (before.credits_balance, 0)
    );

    let unknown = sb
        .submit_with_key(
            "network-extract-people",
            "live",
            "key-fail-00002",
            &json!({ "input": { "identifier": "unknown-person" } }),
        )
        .await;
    assert_eq!(
        unknown.json::<Run>().error.unwrap().code,
        "profile_not_found"
    );
}

#[tokio::test]
async fn the_chain_profile_posts_comments_works_through_the_api() {
    let sb = Sandbox::fast();
    let profile: Run = sb
        .submit_with_key(
            "network-extract-people",
            "live",
            "chain-000001",
            &json!({ "input": { "identifier": "grace-hopper" } }),
        )
        .await
        .json();
    let identifier = profile.output[0]["network_profile_identifier"]
        .as_str()
        .unwrap();
    let posts: Run = sb
        .submit_with_key(
            "network-extract-people-post-activity",
            "live",
            "chain-000002",
            &json!({ "input": { "identifier": identifier } }),
        )
        .await
        .json();
    assert_eq!(posts.status, RunStatus::Completed);
    let post = posts
        .output
        .iter()
        .find(|p| p["social_id"].is_string())
        .expect("the profile has posts");
    let social_id = post["social_id"].as_str().unwrap();
    for (i, action) in [
        "network-extract-post-commenters",
        "network-extract-post-likers",
    ]
    .iter()
    .enumerate()
    {
        let run: Run = sb
            .submit_with_key(
                action,
                "live",
                &format!("chain-00001{i}"),
                &json!({ "input": { "social_id": social_id } }),
            )
            .await
            .json();
        assert_eq!(
            run.status,
            RunStatus::Completed,
            "{action}: {:?}",
            run.error
        );
    }
}

#[tokio::test]
async fn cancel_releases_the_reservation_and_a_finished_run_is_409() {
    let sb = Sandbox::new(SandboxConfig {
        queue_time: Duration::from_secs(30),
        ..SandboxConfig::fast()
    });
    let run: Run = search_people(&sb, "async", "cancel-00001", &people("a", 40))
        .await
        .json();
    assert_eq!(sb.workspace(sb.key()).await.credits_reserved, 40);
    let reply = sb
        .request("POST", &format!("/v1/runs/{}/cancel", run.id), sb.key())
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    let cancelled: Run = reply.json();
    assert_eq!(
        (cancelled.status, cancelled.credits_reserved),
        (RunStatus::Cancelled, 0)
    );
    assert_eq!(sb.workspace(sb.key()).await.credits_reserved, 0);
    let again = sb
        .request("POST", &format!("/v1/runs/{}/cancel", run.id), sb.key())
        .await;
    again.assert_error(StatusCode::CONFLICT, "run_not_cancellable");
    let missing = sb
        .request(
            "POST",
            "/v1/runs/00000000-0000-0000-0000-000000000000/cancel",
            sb.key(),
        )
        .await;
    missing.assert_error(StatusCode::NOT_FOUND, "run_not_found");
}

#[tokio::test]
async fn runs_are_scoped_to_the_workspace() {
    let sb = Sandbox::fast();
    let run: Run = search_people(&sb, "live", "scope-000001", &people("a", 1))
        .await
        .json();
    let other = &sb.seeded[1].api_key;
    for path in [
        format!("/v1/runs/{}", run.id),
        format!("/v1/runs/{}/outputs", run.id),
    ] {
        sb.get(&path, other)
            .await
            .assert_error(StatusCode::NOT_FOUND, "run_not_found");
    }
    sb.request("POST", &format!("/v1/runs/{}/cancel", run.id), other)
        .await
        .assert_error(StatusCode::NOT_FOUND, "run_not_found");
    assert!(
        sb.get("/v1/runs", other)
            .await
            .json::<RunList>()
            .runs
            .is_empty()
    );
    // Keys are scoped too: the same idempotency key in another workspace is a new run.
    let theirs: Run = sb
        .submit(
            other,
            "premium-search-people",
            "live",
            "scope-000001",
            &people("a", 1),
        )
        .await
        .json();
    assert_ne!(theirs.id, run.id);
}

#[tokio::test]
async fn a_run_id_that_is_not_utf8_once_decoded_is_the_contracts_400() {
    let sb = Sandbox::fast();
    for (method, path) in [
        ("GET", "/v1/runs/%FF"),
        ("GET", "/v1/runs/%FF/outputs"),
        ("POST", "/v1/runs/%C0%AE/cancel"),
    ] {
        let reply = sb.request(method, path, sb.key()).await;
        assert_eq!(
            reply.header("content-type"),
            Some("application/json"),
            "{method} {path}"
        );
        let body = reply.assert_error(StatusCode::BAD_REQUEST, "invalid_path");
        assert!(
            body.error.message.contains("`id`"),
            "{}",
            body.error.message
        );
    }
    // An action's name too.
    let body = people("a", 1).to_string();
    sb.send(
        "POST",
        "/v1/actions/%FF/run/live",
        Some(sb.key()),
        &[
            ("content-type", "application/json"),
            ("idempotency-key", "not-utf8-0001"),
        ],
        Some(&body),
    )
    .await
    .assert_error(StatusCode::BAD_REQUEST, "invalid_path");
}

#[tokio::test]
async fn a_body_over_the_limit_is_the_contracts_413() {
    let sb = Sandbox::fast();
    let keywords = "k".repeat(sandbox::routes::MAX_REQUEST_BODY_BYTES);
    let body = people(&keywords, 1).to_string();
    search_people_raw(&sb, "live", "application/json", Some("too-large-01"), &body)
        .await
        .assert_error(StatusCode::PAYLOAD_TOO_LARGE, "request_too_large");
    let created = sb
        .send(
            "POST",
            "/v1/keys",
            Some(sb.session()),
            &[("content-type", "application/json")],
            Some(&format!(r#"{{"name":"{keywords}"}}"#)),
        )
        .await;
    created.assert_error(StatusCode::PAYLOAD_TOO_LARGE, "request_too_large");
    assert_eq!(sb.workspace(sb.key()).await.credits_reserved, 0);
}

#[tokio::test]
async fn run_list_is_newest_first_and_capped_at_100_and_outputs_match() {
    let sb = Sandbox::new(SandboxConfig {
        rate_burst: 1000,
        ..SandboxConfig::fast()
    });
    let mut ids = Vec::new();
    for i in 0..105 {
        let run: Run = sb
            .submit_with_key(
                "network-search-groups",
                "async",
                &format!("list-{i:06}"),
                &json!({ "input": { "query": format!("q{i}") }, "max_results": 1 }),
            )
            .await
            .json();
        ids.push(run.id);
    }
    let list: RunList = sb.get("/v1/runs", sb.key()).await.json();
    assert_eq!(list.runs.len(), 100);
    assert_eq!(list.runs[0].id, ids[104]);
    assert_eq!(list.runs[99].id, ids[5]);

    let done = sb.wait_terminal(sb.key(), &ids[104]).await;
    let outputs: RunOutputs = sb
        .get(&format!("/v1/runs/{}/outputs", done.id), sb.key())
        .await
        .json();
    assert_eq!(
        (
            outputs.run_id,
            outputs.status,
            outputs.output,
            outputs.completeness
        ),
        (done.id, done.status, done.output, done.completeness)
    );
}

#[tokio::test]
async fn the_same_key_and_body_replays_the_same_run_without_charging_again() {
    let sb = Sandbox::fast();
    let body = people("replay", 7);
    let first = search_people(&sb, "async", "replay-000001", &body).await;
    assert_eq!(first.status, StatusCode::ACCEPTED);
    let run: Run = first.json();
    let pending = search_people(&sb, "async", "replay-000001", &body).await;
    assert_eq!(
        pending.status,
        StatusCode::ACCEPTED,
        "a replay of an unfinished run is 202"
    );
    assert_eq!(pending.json::<Run>().id, run.id);

    sb.wait_terminal(sb.key(), &run.id).await;
    let finished = search_people(&sb, "async", "replay-000001", &body).await;
    assert_eq!(
        finished.status,
        StatusCode::OK,
        "a replay of a terminal run is 200"
    );
    assert_eq!(finished.json::<Run>().id, run.id);
    // The same request under the same key, written differently.
    let replay = |raw: &'static str| {
        search_people_raw(&sb, "live", "application/json", Some("replay-000001"), raw)
    };
    // Key order in the JSON does not make a different request.
    let same = replay(r#"{"max_results":7,"input":{"keywords":"replay"}}"#).await;
    assert_eq!(same.json::<Run>().id, run.id);
    // Nor does 7 written as 7.0: the same integer (docs/sandbox.md).
    let same = replay(r#"{"input":{"keywords":"replay"},"max_results":7.0}"#).await;
    assert_eq!(same.json::<Run>().id, run.id);

    let ws = sb.workspace(sb.key()).await;
    assert_eq!(ws.usage_today.premium_lines, 7, "charged once");
    let list: RunList = sb.get("/v1/runs", sb.key()).await.json();
    assert_eq!(list.runs.len(), 1);

    let other_body = search_people(&sb, "async", "replay-000001", &people("different", 7)).await;
    other_body.assert_error(StatusCode::CONFLICT, "idempotency_key_reused");
    let other_action = sb
        .submit_with_key("premium-search-companies", "async", "replay-000001", &body)
        .await;
    other_action.assert_error(StatusCode::CONFLICT, "idempotency_key_reused");
}

#[tokio::test]
async fn concurrent_duplicates_create_one_run() {
    let sb = Sandbox::fast();
    let body = people("race", 10);
    let handles: Vec<_> = (0..24)
        .map(|_| {
            let (sb, body) = (sb.clone(), body.clone());
            tokio::spawn(async move {
                search_people(&sb, "async", "race-key-0001", &body)
                    .await
                    .json::<Run>()
                    .id
            })
        })
        .collect();
    let mut ids = Vec::new();
    for h in handles {
        ids.push(h.await.unwrap());
    }
    ids.dedup();
    assert_eq!(ids.len(), 1, "every duplicate got the same run");
    assert_eq!(
        sb.workspace(sb.key()).await.credits_reserved,
        10,
        "reserved once"
    );
    assert_eq!(
        sb.get("/v1/runs", sb.key())
            .await
            .json::<RunList>()
            .runs
            .len(),
        1
    );
    sb.wait_terminal(sb.key(), &ids[0]).await;
    assert_eq!(
        sb.workspace(sb.key()).await.credits_balance,
        25_000 - 10,
        "charged once"
    );
}

#[tokio::test]
async fn idempotency_key_rules() {
    let sb = Sandbox::fast();
    let body = people("k", 1).to_string();
    let missing = search_people_raw(&sb, "async", "application/json", None, &body).await;
    missing.assert_error(StatusCode::BAD_REQUEST, "missing_idempotency_key");
    for bad in ["short", "has space 12", "slash/not/ok", &"x".repeat(129)] {
        let reply = search_people_raw(&sb, "async", "application/json", Some(bad), &body).await;
        reply.assert_error(StatusCode::BAD_REQUEST, "invalid_idempotency_key");
    }
}

#[tokio::test]
async fn invalid_submissions_are_400_naming_the_field_and_rule() {
    let sb = Sandbox::fast();
    let cases = [
        (
            "premium-search-person",
            json!({ "input": { "first_name": "Ada", "last_name": "L", "company": "C", "title": "x" } }),
            "input.title is not allowed",
        ),
        (
            "premium-search-person",
            json!({ "input": { "first_name": "", "last_name": "L", "company": "C" } }),
            "input.first_name is required",
        ),
        (
            "premium-search-person",
            json!({ "input": { "first_name": "A", "last_name": "L", "company": "C", "network_profile_url": "https://evil.example/in/x" } }),
            "input.network_profile_url must look like",
        ),
        (
            "premium-search-people",
            json!({ "input": { "keywords": "k".repeat(501) } }),
            "input.keywords must be 1 to 500 characters",
        ),
        (
            "premium-search-people",
            json!({ "input": { "keywords": "k" }, "max_results": 0 }),
            "max_results must be an integer from 1 to 100",
        ),
        (
            "network-extract-people",
            json!({ "input": { "identifier": "ada" }, "max_results": 101 }),
            "max_results must be an integer from 1 to 100",
        ),
        (
            "premium-search-people",
            json!({ "input": { "keywords": "k" }, "max_credits": 300001 }),
            "max_credits must be an integer from 1 to 300000",
        ),
        (
            "network-extract-group-members",
            json!({ "input": { "group_id": "1".repeat(101) } }),
            "input.group_id must be 1 to 100 characters",
        ),
        (
            "premium-search-company-employees",
            json!({ "input": { "company": "C", "keywords": "k".repeat(201) } }),
            "input.keywords must be at most 200 characters",
        ),
        (
            "network-extract-people",
            json!({ "input": { "identifier": "x" }, "max_credits": 19 }),
            "max_credits is below the cost of one record",
        ),
    ];
    for (i, (action, body, expected)) in cases.iter().enumerate() {
        let reply = sb
            .submit_with_key(action, "async", &format!("invalid-{i:05}"), body)
            .await;
        let error = reply.assert_error(StatusCode::BAD_REQUEST, "invalid_request");
        assert!(
            error.error.message.contains(expected),
            "{action}: {}",
            error.error.message
        );
    }
    let unknown = sb
        .submit_with_key(
            "premium-search-everything",
            "async",
            "invalid-00100",
            &people("k", 1),
        )
        .await;
    unknown.assert_error(StatusCode::NOT_FOUND, "unknown_action");
    let malformed = search_people_raw(
        &sb,
        "async",
        "application/json",
        Some("invalid-00101"),
        "{\"input\": ",
    )
    .await;
    malformed.assert_error(StatusCode::BAD_REQUEST, "invalid_json");
    let body = people("k", 1).to_string();
    let wrong_type =
        search_people_raw(&sb, "async", "text/plain", Some("invalid-00102"), &body).await;
    wrong_type.assert_error(StatusCode::BAD_REQUEST, "invalid_content_type");
    // Nothing was created or reserved by any of these.
    assert!(
        sb.get("/v1/runs", sb.key())
            .await
            .json::<RunList>()
            .runs
            .is_empty()
    );
    assert_eq!(sb.workspace(sb.key()).await.credits_reserved, 0);
}

#[tokio::test]
async fn max_results_above_the_ceiling_is_accepted_and_the_run_is_capped_at_it() {
    let sb = Sandbox::fast();
    // A profile enrichment's ceiling is 1 (20 credits a record); a client sending the same
    // max_results to every action asks it for 50.
    let reply = sb
        .submit_with_key(
            "network-extract-people",
            "async",
            "capped-00001",
            &json!({ "input": { "identifier": "ada-lovelace" }, "max_results": 50 }),
        )
        .await;
    assert_eq!(reply.status, StatusCode::ACCEPTED);
    let run: Run = reply.json();
    assert_eq!(run.credits_reserved, 20, "the ceiling's cost, not 50 × 20");
    assert_eq!(sb.workspace(sb.key()).await.credits_reserved, 20);
    let done = sb.wait_terminal(sb.key(), &run.id).await;
    assert_eq!(done.status, RunStatus::Completed);
    assert!(done.output.len() <= 1, "{} records", done.output.len());
    assert_eq!(done.credits_used, 20 * done.output.len() as u64);
    assert_eq!(sb.workspace(sb.key()).await.credits_reserved, 0);

    // A 50-result search asked for 100 reserves and returns at most 50.
    let reply = sb
        .submit_with_key(
            "network-search-content",
            "async",
            "capped-00002",
            &json!({ "input": { "keywords": "rust" }, "max_results": 100 }),
        )
        .await;
    assert_eq!(reply.status, StatusCode::ACCEPTED);
    let run: Run = reply.json();
    assert_eq!(run.credits_reserved, 50);
    let done = sb.wait_terminal(sb.key(), &run.id).await;
    assert!(done.output.len() <= 50, "{} records", done.output.len());
    assert_eq!(done.credits_used, done.output.len() as u64);
}

#[tokio::test]
async fn max_results_outside_1_to_100_is_the_contracts_400_for_every_action() {
    let sb = Sandbox::fast();
    for (i, action) in ["network-extract-people", "premium-search-people"]
        .into_iter()
        .enumerate()
    {
        let input = if action == "network-extract-people" {
            json!({ "identifier": "ada-lovelace" })
        } else {
            json!({ "keywords": "rust" })
        };
        for bad in [0, 101] {
            let reply = sb
                .submit_with_key(
                    action,
                    "async",
                    &format!("bounds-{i}-{bad:03}"),
                    &json!({ "input": input, "max_results": bad }),
                )
                .await;
            let error = reply.assert_error(StatusCode::BAD_REQUEST, "invalid_request");
            assert_eq!(
                error.error.message, "max_results must be an integer from 1 to 100",
                "{action} {bad}"
            );
        }
    }
    assert_eq!(sb.workspace(sb.key()).await.credits_reserved, 0);
}

#[tokio::test]
async fn a_submission_the_balance_cannot_cover_is_refused() {
    let sb = Sandbox::fast();
    let globex = sb.seeded[1].api_key.clone();
    sb.state
        .store()
        .workspace_mut("ws_globex")
        .unwrap()
        .workspace
        .credits_balance = 30;
    let reply = sb
        .submit(
            &globex,
            "premium-search-people",
            "async",
            "broke-000001",
            &people("k", 50),
        )
        .await;
    let error = reply.assert_error(StatusCode::CONFLICT, "insufficient_credits");
    assert!(
        error.error.message.contains("50") && error.error.message.contains("30"),
        "{}",
        error.error.message
    );
    // max_credits caps the reservation, so the same search fits.
    let capped = sb
        .submit(
            &globex,
            "premium-search-people",
            "live",
            "broke-000002",
            &json!({ "input": { "keywords": "k" }, "max_results": 50, "max_credits": 30 }),
        )
        .await;
    let run: Run = capped.json();
    assert_eq!(run.status, RunStatus::Completed);
    assert_eq!(run.output.len(), 30, "the cost never exceeds max_credits");
    assert_eq!(sb.workspace(&globex).await.credits_balance, 0);
}

#[tokio::test]
async fn forced_500_then_retry_with_the_same_key_makes_one_run_and_one_charge() {
    let sb = Sandbox::fast();
    let body = people("acme sandbox:500", 4);
    let first = search_people(&sb, "live", "retry-500-0001", &body).await;
    first.assert_error(StatusCode::INTERNAL_SERVER_ERROR, "internal_error");
    assert!(
        sb.get("/v1/runs", sb.key())
            .await
            .json::<RunList>()
            .runs
            .is_empty(),
        "no run on a 500"
    );
    let retry = search_people(&sb, "live", "retry-500-0001", &body).await;
    assert_eq!(retry.status, StatusCode::OK);
    let again = search_people(&sb, "live", "retry-500-0001", &body).await;
    assert_eq!(again.json::<Run>().id, retry.json::<Run>().id);
    assert_eq!(
        sb.get("/v1/runs", sb.key())
            .await
            .json::<RunList>()
            .runs
            .len(),
        1
    );
    assert_eq!(sb.workspace(sb.key()).await.credits_balance, 25_000 - 4);
}

#[tokio::test]
async fn forced_429_carries_retry_after_and_the_retry_succeeds() {
    let sb = Sandbox::fast();
    let body = people("acme sandbox:429", 2);
    let first = search_people(&sb, "async", "retry-429-0001", &body).await;
    let error = first.assert_error(StatusCode::TOO_MANY_REQUESTS, "rate_limited");
    assert_eq!(error.error.retry_after, Some(3.0));
    assert_eq!(first.header("retry-after"), Some("3"));
    let retry = search_people(&sb, "async", "retry-429-0001", &body).await;
    assert_eq!(retry.status, StatusCode::ACCEPTED);
}

#[tokio::test]
async fn submissions_past_the_rate_limit_are_429() {
    let sb = Sandbox::new(SandboxConfig {
        rate_burst: 3,
        rate_per_sec: 0.5,
        ..SandboxConfig::fast()
    });
    for i in 0..3 {
        let reply = sb
            .submit_with_key(
                "network-search-groups",
                "async",
                &format!("rate-{i:06}"),
                &json!({ "input": { "query": "q" } }),
            )
            .await;
        assert_eq!(reply.status, StatusCode::ACCEPTED);
    }
    let limited = sb
        .submit_with_key(
            "network-search-groups",
            "async",
            "rate-000009",
            &json!({ "input": { "query": "q" } }),
        )
        .await;
    let error = limited.assert_error(StatusCode::TOO_MANY_REQUESTS, "rate_limited");
    assert_eq!(error.error.retry_after, Some(2.0));
    assert_eq!(limited.header("retry-after"), Some("2"));
    // Another workspace has its own budget.
    let other = sb
        .submit(
            &sb.seeded[1].api_key,
            "network-search-groups",
            "async",
            "rate-000010",
            &json!({ "input": { "query": "q" } }),
        )
        .await;
    assert_eq!(other.status, StatusCode::ACCEPTED);
}

#[tokio::test]
async fn random_faults_from_flags() {
    let sb = Sandbox::new(SandboxConfig {
        error_500_share: 1.0,
        ..SandboxConfig::fast()
    });
    sb.submit_with_key(
        "network-search-groups",
        "async",
        "flag-500-0001",
        &json!({ "input": { "query": "q" } }),
    )
    .await
    .assert_error(StatusCode::INTERNAL_SERVER_ERROR, "internal_error");
    let sb = Sandbox::new(SandboxConfig {
        fail_share: 1.0,
        ..SandboxConfig::fast()
    });
    let run: Run = sb
        .submit_with_key(
            "network-search-groups",
            "live",
            "flag-fail-001",
            &json!({ "input": { "query": "q" } }),
        )
        .await
        .json();
    assert_eq!(run.error.unwrap().code, "provider_error");
}

#[tokio::test]
async fn every_action_completes_in_both_modes() {
    let sb = Sandbox::new(SandboxConfig {
        rate_burst: 100,
        ..SandboxConfig::fast()
    });
    let inputs = [
        (
            "premium-search-person",
            json!({ "first_name": "Ada", "last_name": "Lovelace", "company": "Acme" }),
        ),
        ("premium-search-people", json!({ "keywords": "data" })),
        (
            "premium-search-company-employees",
            json!({ "company": "Acme" }),
        ),
        (
            "premium-search-company-metrics",
            json!({ "keywords": "founder" }),
        ),
        ("premium-search-companies", json!({ "keywords": "robots" })),
        ("network-search-companies", json!({ "keywords": "robots" })),
        ("network-search-schools", json!({ "query": "tech" })),
        ("network-search-groups", json!({ "query": "rust" })),
        ("network-extract-school-alumnis", json!({ "school": "MIT" })),
        (
            "network-extract-group-members",
            json!({ "group_id": "4242" }),
        ),
        (
            "network-extract-people",
            json!({ "identifier": "ada-lovelace" }),
        ),
        (
            "network-extract-company",
            json!({ "identifier": "acme-robotics" }),
        ),
        (
            "network-extract-people-post-activity",
            json!({ "identifier": "ada-lovelace" }),
        ),
        ("network-search-content", json!({ "keywords": "rust" })),
        (
            "network-extract-post-commenters",
            json!({ "social_id": sandbox::data::social_id(7, "share") }),
        ),
        (
            "network-extract-post-likers",
            json!({ "social_id": sandbox::data::social_id(8, "activity") }),
        ),
    ];
    for (i, (action, input)) in inputs.iter().enumerate() {
        let body = json!({ "input": input, "max_results": 1 });
        let live: Run = sb
            .submit_with_key(action, "live", &format!("all-live-{i:04}"), &body)
            .await
            .json();
        assert_eq!(
            live.status,
            RunStatus::Completed,
            "{action}: {:?}",
            live.error
        );
        assert_eq!(live.action, *action);
        let queued = sb
            .submit_with_key(action, "async", &format!("all-async-{i:04}"), &body)
            .await;
        assert_eq!(queued.status, StatusCode::ACCEPTED, "{action}");
    }
}
