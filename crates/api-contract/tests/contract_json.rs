//! Decodes and re-encodes JSON written by hand from the contract's field tables, so a renamed
//! or retyped field fails here before it breaks a client.

use api_contract::*;
use chrono::{DateTime, TimeZone, Utc};
use serde_json::{Value, json};

fn utc(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32, ms: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(y, mo, d, h, mi, s).unwrap() + chrono::Duration::milliseconds(ms.into())
}

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
        "created_at": "2026-11-20T10:00:00.000Z",
        "completed_at": "2026-11-20T10:00:02.345Z",
        "completeness": { "has_more": false, "scope": "single_page" },
        "error": { "code": "profile_not_found", "message": "No profile matches that identifier." }
    }));
    assert_eq!(run.created_at, utc(2026, 11, 20, 10, 0, 0, 0));
    assert_eq!(run.completed_at, Some(utc(2026, 11, 20, 10, 0, 2, 345)));
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
    assert_eq!(run.created_at, utc(2026, 11, 20, 10, 0, 0, 0));
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
    run["completed_at"] = json!(42);
    assert!(
        serde_json::from_value::<Run>(run.clone()).is_err(),
        "completed_at is a string"
    );
    run["completed_at"] = Value::Null;
    run["status"] = json!("done");
    assert!(
        serde_json::from_value::<Run>(run).is_err(),
        "unknown status"
    );
}

#[test]
fn a_created_at_that_is_not_rfc3339_is_a_decode_error() {
    let run_with = |created_at: Value| {
        json!({
            "id": "r1", "action": "a", "status": "queued", "output": [],
            "credits_used": 0, "credits_reserved": 0, "created_at": created_at,
            "completeness": { "has_more": false, "scope": "single_page" }
        })
    };
    assert!(serde_json::from_value::<Run>(run_with(json!("2026-11-20T10:00:00.000Z"))).is_ok());
    for bad in [
        json!("t"),
        json!(""),
        json!("2026-11-20"),
        json!("2026-11-20T10:00:00"),
        json!("20 Nov 2026 10:00:00 GMT"),
        json!("Fri, 20 Nov 2026 10:00:00 +0000"),
        json!("2026-11-20T10:00:00 +00:00"),
        json!("2026-13-20T10:00:00Z"),
        json!(1_795_082_400),
        Value::Null,
    ] {
        assert!(
            serde_json::from_value::<Run>(run_with(bad.clone())).is_err(),
            "{bad} is not an RFC 3339 date-time"
        );
        let key = json!({ "id": "k", "name": "n", "prefix": "p", "created_at": bad });
        assert!(serde_json::from_value::<ApiKey>(key).is_err(), "{bad}");
    }
}

#[test]
fn an_offset_is_read_as_the_same_utc_instant_and_written_back_in_z() {
    let key: ApiKey = serde_json::from_value(json!({
        "id": "k", "name": "n", "prefix": "p",
        "created_at": "2026-11-20T12:30:00.25+02:00",
        "revoked_at": "2026-11-20T00:15:00-05:30"
    }))
    .unwrap();
    assert_eq!(key.created_at, utc(2026, 11, 20, 10, 30, 0, 250));
    assert_eq!(key.revoked_at, Some(utc(2026, 11, 20, 5, 45, 0, 0)));
    let back = serde_json::to_value(&key).unwrap();
    assert_eq!(back["created_at"], "2026-11-20T10:30:00.250Z");
    assert_eq!(back["revoked_at"], "2026-11-20T05:45:00.000Z");
}

#[test]
fn times_finer_than_a_millisecond_are_written_with_exactly_three_digits() {
    let key = CreatedApiKey {
        id: "k".into(),
        api_key: "sk".into(),
        prefix: "p".into(),
        name: "n".into(),
        created_at: utc(2026, 11, 20, 14, 3, 9, 0) + chrono::Duration::nanoseconds(123_456_789),
    };
    assert_eq!(
        serde_json::to_value(&key).unwrap()["created_at"],
        "2026-11-20T14:03:09.123Z"
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
        { "id": "key_1", "name": "ci", "prefix": "sk_live_ab12", "created_at": "2026-11-20T10:00:00.000Z", "revoked_at": null },
        { "id": "key_2", "name": "old", "prefix": "sk_live_cd34", "created_at": "2026-11-01T10:00:00.001Z", "revoked_at": "2026-11-02T10:00:00.999Z" }
    ]}));
    assert_eq!(list.keys[0].revoked_at, None);
    assert_eq!(list.keys[1].created_at, utc(2026, 11, 1, 10, 0, 0, 1));
    assert_eq!(
        list.keys[1].revoked_at,
        Some(utc(2026, 11, 2, 10, 0, 0, 999))
    );
    let absent: ApiKey = serde_json::from_value(
        json!({ "id": "k", "name": "n", "prefix": "p", "created_at": "2026-11-20T10:00:00.000Z" }),
    )
    .unwrap();
    assert_eq!(absent.revoked_at, None);

    let created: CreatedApiKey = roundtrip(json!({
        "id": "key_3", "api_key": "sk_live_secret", "prefix": "sk_live_se", "name": "new", "created_at": "2026-11-20T10:00:00.120Z"
    }));
    assert_eq!(created.created_at, utc(2026, 11, 20, 10, 0, 0, 120));
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
        let sub = Submission::validate(action, &body).unwrap_or_else(|e| panic!("{action}: {e:?}"));
        assert_eq!(serde_json::to_value(&sub.input).unwrap(), input, "{action}");
    }
}

#[test]
fn a_run_counted_reads_the_same_json_as_a_run_with_its_records_counted() {
    let text = json!({
        "id": "r1", "action": "premium-search-people", "status": "failed",
        "output": [{ "name": "Ada", "skills": ["rust", { "deep": [1, 2] }] }, { "name": "Bob" }, null],
        "credits_used": 3, "credits_reserved": 0,
        "created_at": "2026-11-20T10:00:00.000Z", "completed_at": "2026-11-20T10:00:02.345Z",
        "completeness": { "has_more": true, "scope": "single_page" },
        "error": { "code": "partial", "message": "Stopped early." }
    });
    let run: Run = serde_json::from_value(text.clone()).unwrap();
    let list: RunListCounted = serde_json::from_value(json!({ "runs": [text] })).unwrap();
    let counted = list.runs.into_iter().next().unwrap();
    assert_eq!(counted.records, 3);
    assert_eq!(counted.into_run(), run.without_output());
    assert!(run.without_output().output.is_empty());
    assert_eq!(
        Run {
            output: run.output.clone(),
            ..run.without_output()
        },
        run
    );
    // Whatever a run refuses, a counted run refuses too: output must be an array, and present.
    for (field, value) in [
        ("output", json!({ "name": "Ada" })),
        ("output", Value::Null),
        ("status", json!("lost")),
    ] {
        let mut bad = json!({
            "id": "r1", "action": "a", "status": "completed", "output": [],
            "credits_used": 0, "credits_reserved": 0, "created_at": "2026-11-20T10:00:00Z",
            "completeness": { "has_more": false, "scope": "single_page" }
        });
        bad[field] = value;
        assert!(
            serde_json::from_value::<Run>(bad.clone()).is_err(),
            "{field}"
        );
        assert!(
            serde_json::from_value::<RunCounted>(bad).is_err(),
            "{field}"
        );
    }
    let mut missing = json!({
        "id": "r1", "action": "a", "status": "completed",
        "credits_used": 0, "credits_reserved": 0, "created_at": "2026-11-20T10:00:00Z",
        "completeness": { "has_more": false, "scope": "single_page" }
    });
    assert!(serde_json::from_value::<RunCounted>(missing.clone()).is_err());
    missing["output"] = json!([]);
    assert_eq!(
        serde_json::from_value::<RunCounted>(missing)
            .unwrap()
            .records,
        0
    );
}
