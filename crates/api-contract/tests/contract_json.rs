//! Decodes and re-encodes JSON written by hand from the contract's field tables, so a renamed
//! or retyped field fails here before it breaks a client.

use api_contract::*;
use serde_json::{Value, json};

fn roundtrip<T: serde::de::DeserializeOwned + serde::Serialize>(value: Value) -> T {
    let decoded: T = serde_json::from_value(value.clone()).expect("decodes");
    let encoded = serde_json::to_value(&decoded).expect("encodes");
    assert_eq!(encoded, value, "re-encoding changed the JSON");
    decoded
}

#[test]
fn failed_run_with_every_field() {
    let run: Run = roundtrip(json!({
        "id": "0b7c8a4e-2f59-4c5e-9a53-7f1d1c9e7a11",
        "action": "network-extract-people",
        "status": "failed",
        "output": [],
        "credits_used": 0,
        "credits_reserved": 0,
        "created_at": "2026-11-20T10:00:00Z",
        "completed_at": "2026-11-20T10:00:02Z",
        "completeness": { "has_more": false, "scope": "single_page" },
        "error": { "code": "profile_not_found", "message": "No profile matches that identifier." }
    }));
    assert_eq!(run.status, RunStatus::Failed);
    assert!(run.status.is_terminal());
    assert_eq!(run.error.unwrap().code, "profile_not_found");
}

#[test]
fn queued_run_without_optional_fields() {
    let run: Run = serde_json::from_value(json!({
        "id": "r1", "action": "premium-search-people", "status": "queued",
        "output": [], "credits_used": 0, "credits_reserved": 100,
        "created_at": "2026-11-20T10:00:00Z",
        "completeness": { "has_more": false, "scope": "single_page" }
    }))
    .unwrap();
    assert_eq!(run.completed_at, None);
    assert_eq!(run.error, None);
    assert!(!run.status.is_terminal());
    assert_eq!(run.credits_reserved, 100);
}

#[test]
fn run_missing_a_required_field_is_rejected() {
    let mut run = json!({
        "id": "r1", "action": "a", "status": "completed", "output": [],
        "credits_used": 3, "credits_reserved": 0, "created_at": "2026-11-20T10:00:00Z",
        "completeness": { "has_more": true, "scope": "single_page" }
    });
    assert!(serde_json::from_value::<Run>(run.clone()).is_ok());
    for field in [
        "id",
        "action",
        "status",
        "output",
        "credits_used",
        "credits_reserved",
        "created_at",
        "completeness",
    ] {
        let mut broken = run.clone();
        broken.as_object_mut().unwrap().remove(field);
        assert!(
            serde_json::from_value::<Run>(broken).is_err(),
            "{field} is required"
        );
    }
    run["status"] = json!("done");
    assert!(
        serde_json::from_value::<Run>(run).is_err(),
        "unknown status"
    );
}

#[test]
fn every_status_has_its_contract_spelling() {
    let spelled: Vec<Value> = RunStatus::ALL
        .iter()
        .map(|s| serde_json::to_value(s).unwrap())
        .collect();
    assert_eq!(
        spelled,
        [
            json!("queued"),
            json!("processing"),
            json!("completed"),
            json!("failed"),
            json!("cancelled")
        ]
    );
    for s in RunStatus::ALL {
        assert_eq!(serde_json::to_value(s).unwrap(), json!(s.as_str()));
    }
    let terminal: Vec<_> = RunStatus::ALL
        .into_iter()
        .filter(|s| s.is_terminal())
        .collect();
    assert_eq!(
        terminal,
        [
            RunStatus::Completed,
            RunStatus::Failed,
            RunStatus::Cancelled
        ]
    );
}

#[test]
fn run_outputs() {
    let out: RunOutputs = roundtrip(json!({
        "run_id": "r1", "status": "completed",
        "output": [{ "network_profile_identifier": "ACoAAB123", "name": "Ada" }],
        "completeness": { "has_more": true, "scope": "single_page" }
    }));
    assert!(out.completeness.has_more);
    assert_eq!(out.output[0]["network_profile_identifier"], "ACoAAB123");
}

#[test]
fn workspace_and_available_credits() {
    let ws: Workspace = roundtrip(json!({
        "workspace_id": "ws_1", "name": "Acme",
        "credits_balance": 1000, "credits_reserved": 250,
        "usage_today": { "profiles": 3, "premium_lines": 40 }
    }));
    assert_eq!(ws.credits_available(), 750);
    assert_eq!(ws.usage_today.premium_lines, 40);
    let over = Workspace {
        credits_reserved: 2000,
        ..ws
    };
    assert_eq!(over.credits_available(), 0);
}

#[test]
fn api_keys_listed_and_created() {
    let list: KeyList = roundtrip(json!({ "keys": [
        { "id": "key_1", "name": "ci", "prefix": "sk_live_ab12", "created_at": "2026-11-20T10:00:00Z", "revoked_at": null },
        { "id": "key_2", "name": "old", "prefix": "sk_live_cd34", "created_at": "2026-11-01T10:00:00Z", "revoked_at": "2026-11-02T10:00:00Z" }
    ]}));
    assert_eq!(
        list.keys[1].revoked_at.as_deref(),
        Some("2026-11-02T10:00:00Z")
    );
    let absent: ApiKey =
        serde_json::from_value(json!({ "id": "k", "name": "n", "prefix": "p", "created_at": "t" }))
            .unwrap();
    assert_eq!(absent.revoked_at, None);

    let created: CreatedApiKey = roundtrip(json!({
        "id": "key_3", "api_key": "sk_live_secret", "prefix": "sk_live_se", "name": "new", "created_at": "2026-11-20T10:00:00Z"
    }));
    assert!(
        !format!("{created:?}").contains("sk_live_secret"),
        "Debug must redact the secret"
    );
    let _: CreateKeyRequest = roundtrip(json!({ "name": "ci" }));
}

#[test]
fn registry_entries() {
    let list: ActionList = roundtrip(json!({ "actions": [
        { "id": "premium-search-person", "input_keys": ["first_name", "last_name", "company"], "input_key": "standard_person", "credits_per_record": 1, "max_results": 10 },
        { "id": "premium-search-company-metrics", "input_key": "company_or_keywords", "credits_per_record": 1, "max_results": 1 }
    ]}));
    assert_eq!(list.actions[0].input_keys.as_ref().unwrap().len(), 3);
    assert_eq!(list.actions[1].input_keys, None);
}

#[test]
fn sandbox_registry_is_the_published_order_with_valid_entries() {
    let entries: Vec<ActionEntry> = ActionId::ALL
        .iter()
        .map(|a| a.sandbox_registry_entry())
        .collect();
    let json = serde_json::to_value(ActionList { actions: entries }).unwrap();
    let back: ActionList = serde_json::from_value(json).unwrap();
    assert_eq!(back.actions.len(), 16);
    assert_eq!(back.actions[0].id, "premium-search-person");
    assert_eq!(back.actions[10].credits_per_record, 20);
    assert_eq!(back.actions[15].id, "network-extract-post-likers");
}

#[test]
fn error_body_with_and_without_optional_fields() {
    let full: ErrorBody = roundtrip(json!({ "error": {
        "code": "rate_limited", "message": "Too many submissions.", "request_id": "req_1", "retry_after": 2.5
    }}));
    assert_eq!(full.error.retry_after, Some(2.5));
    let minimal: ErrorBody =
        roundtrip(json!({ "error": { "code": "unauthorized", "message": "Missing bearer." } }));
    assert_eq!(minimal.error.request_id, None);
}

#[test]
fn submission_body_of_each_shape_validates() {
    let cases = [
        (
            ActionId::PremiumSearchPerson,
            json!({ "first_name": "Ada", "last_name": "Lovelace", "company": "Analytical Engines", "network_profile_url": "https://www.network.com/in/ada-lovelace/" }),
        ),
        (
            ActionId::PremiumSearchPeople,
            json!({ "keywords": "rust engineer" }),
        ),
        (
            ActionId::NetworkExtractPeople,
            json!({ "identifier": "ada-lovelace" }),
        ),
        (
            ActionId::NetworkExtractPostLikers,
            json!({ "social_id": "urn:li:share:7000000000000000001" }),
        ),
        (
            ActionId::PremiumSearchCompanyEmployees,
            json!({ "company": "Acme", "keywords": "sales" }),
        ),
        (
            ActionId::NetworkExtractSchoolAlumnis,
            json!({ "school": "MIT" }),
        ),
        (
            ActionId::NetworkExtractGroupMembers,
            json!({ "group_id": "12345" }),
        ),
        (
            ActionId::NetworkSearchSchools,
            json!({ "query": "Stanford" }),
        ),
        (
            ActionId::PremiumSearchCompanyMetrics,
            json!({ "company": "Acme" }),
        ),
        (
            ActionId::PremiumSearchCompanyMetrics,
            json!({ "keywords": "founder" }),
        ),
    ];
    for (action, input) in cases {
        let body = json!({ "input": input.clone(), "max_results": 1, "max_credits": 300000 });
        let sub = Submission::validate(action, action.sandbox_max_results(), &body)
            .unwrap_or_else(|e| panic!("{action}: {e:?}"));
        assert_eq!(serde_json::to_value(&sub.input).unwrap(), input, "{action}");
    }
}
