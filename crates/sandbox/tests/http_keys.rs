//! API key management: account sessions only, secret once, revocation takes effect at once.

mod common;

use api_contract::{CreatedApiKey, KeyList, Workspace};
use axum::http::StatusCode;
use common::Sandbox;

async fn create(sb: &Sandbox, bearer: &str, body: &str) -> common::Reply {
    sb.send(
        "POST",
        "/v1/keys",
        Some(bearer),
        &[("content-type", "application/json")],
        Some(body),
    )
    .await
}

#[tokio::test]
async fn key_management_with_an_api_key_is_403() {
    let sb = Sandbox::fast();
    sb.get("/v1/keys", sb.key())
        .await
        .assert_error(StatusCode::FORBIDDEN, "session_required");
    create(&sb, sb.key(), r#"{"name":"x"}"#)
        .await
        .assert_error(StatusCode::FORBIDDEN, "session_required");
    sb.send("DELETE", "/v1/keys/key_x", Some(sb.key()), &[], None)
        .await
        .assert_error(StatusCode::FORBIDDEN, "session_required");
}

#[tokio::test]
async fn create_list_use_and_revoke_a_key() {
    let sb = Sandbox::fast();
    let session = sb.session().to_owned();
    let reply = create(&sb, &session, r#"{"name":"CI pipeline"}"#).await;
    assert_eq!(reply.status, StatusCode::OK);
    let created: CreatedApiKey = reply.json();
    assert_eq!(created.name, "CI pipeline");
    assert!(created.api_key.starts_with(&created.prefix));

    let list_reply = sb.get("/v1/keys", &session).await;
    let raw = String::from_utf8(list_reply.body.clone()).unwrap();
    assert!(
        !raw.contains(&created.api_key),
        "a list never carries a secret"
    );
    assert!(!raw.contains("api_key"), "nor the field");
    let list: KeyList = list_reply.json();
    assert_eq!(list.keys[0].id, created.id, "newest first");
    assert_eq!(list.keys[0].revoked_at, None);
    assert_eq!(list.keys.len(), 2);

    let ws: Workspace = sb.get("/v1/workspace", &created.api_key).await.json();
    assert_eq!(ws.workspace_id, "ws_acme", "the new key works at once");

    let revoked = sb
        .request("DELETE", &format!("/v1/keys/{}", created.id), &session)
        .await;
    assert_eq!(revoked.status, StatusCode::NO_CONTENT);
    assert!(revoked.body.is_empty());
    sb.get("/v1/workspace", &created.api_key)
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "key_revoked");
    let list: KeyList = sb.get("/v1/keys", &session).await.json();
    assert!(list.keys[0].revoked_at.is_some());
    // Revoking again is harmless; an unknown or foreign key is 404.
    let again = sb
        .request("DELETE", &format!("/v1/keys/{}", created.id), &session)
        .await;
    assert_eq!(again.status, StatusCode::NO_CONTENT);
    sb.send("DELETE", "/v1/keys/key_nope", Some(&session), &[], None)
        .await
        .assert_error(StatusCode::NOT_FOUND, "key_not_found");
    let globex_session = sb.seeded[1].session_token.clone();
    let acme_key_id = list.keys[1].id.clone();
    sb.request(
        "DELETE",
        &format!("/v1/keys/{acme_key_id}"),
        &globex_session,
    )
    .await
    .assert_error(StatusCode::NOT_FOUND, "key_not_found");
    assert_eq!(
        sb.get("/v1/keys", &globex_session)
            .await
            .json::<KeyList>()
            .keys
            .len(),
        1
    );
}

#[tokio::test]
async fn key_times_are_written_in_utc_with_milliseconds() {
    let sb = Sandbox::fast();
    let session = sb.session().to_owned();
    let created: serde_json::Value = create(&sb, &session, r#"{"name":"dates"}"#).await.json();
    common::assert_millisecond_utc(&created["created_at"], "created_at on creation");
    let id = created["id"].as_str().unwrap();
    let revoked = sb
        .request("DELETE", &format!("/v1/keys/{id}"), &session)
        .await;
    assert_eq!(revoked.status, StatusCode::NO_CONTENT);

    let list: serde_json::Value = sb.get("/v1/keys", &session).await.json();
    let [revoked, seeded] = list["keys"].as_array().unwrap().as_slice() else {
        panic!("two keys: {list}");
    };
    assert_eq!(revoked["created_at"], created["created_at"]);
    common::assert_millisecond_utc(&revoked["revoked_at"], "revoked_at");
    common::assert_millisecond_utc(&seeded["created_at"], "created_at of the seeded key");
    assert_eq!(seeded["revoked_at"], serde_json::Value::Null);
}

#[tokio::test]
async fn key_names_are_validated() {
    let sb = Sandbox::fast();
    let session = sb.session().to_owned();
    for body in [
        r#"{"name":""}"#,
        &format!(r#"{{"name":"{}"}}"#, "n".repeat(101)),
        r#"{}"#,
        r#"{"name":7}"#,
        r#"{"name":"a","scope":"all"}"#,
    ] {
        let error = create(&sb, &session, body)
            .await
            .assert_error(StatusCode::BAD_REQUEST, "invalid_request");
        assert!(
            error.error.message.contains("name") || error.error.message.contains("scope"),
            "{}",
            error.error.message
        );
    }
    create(&sb, &session, "not json")
        .await
        .assert_error(StatusCode::BAD_REQUEST, "invalid_json");
    let no_type = sb
        .send(
            "POST",
            "/v1/keys",
            Some(&session),
            &[],
            Some(r#"{"name":"a"}"#),
        )
        .await;
    no_type.assert_error(StatusCode::BAD_REQUEST, "invalid_content_type");
}

#[tokio::test]
async fn the_key_list_holds_at_most_100_keys() {
    let sb = Sandbox::fast();
    let session = sb.session().to_owned();
    for i in 0..105 {
        assert_eq!(
            create(&sb, &session, &format!(r#"{{"name":"k{i}"}}"#))
                .await
                .status,
            StatusCode::OK
        );
    }
    let list: KeyList = sb.get("/v1/keys", &session).await.json();
    assert_eq!(list.keys.len(), 100);
    assert_eq!(list.keys[0].name, "k104");
}

#[tokio::test]
async fn wrong_methods_are_405_with_the_error_body() {
    let sb = Sandbox::fast();
    sb.send("PUT", "/v1/runs", Some(sb.key()), &[], None)
        .await
        .assert_error(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed");
    sb.request(
        "GET",
        "/v1/actions/premium-search-people/run/live",
        sb.key(),
    )
    .await
    .assert_error(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed");
    for method in ["PATCH", "PROPFIND", "PURGE", "OPTIONS"] {
        let reply = sb.request(method, "/v1/keys", sb.session()).await;
        reply.assert_error(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed");
        assert_eq!(reply.header("allow"), Some("GET,HEAD,POST"), "{method}");
    }
}

#[tokio::test]
async fn a_key_id_that_is_not_utf8_once_decoded_is_the_contracts_400() {
    let sb = Sandbox::fast();
    sb.request("DELETE", "/v1/keys/%FF", sb.session())
        .await
        .assert_error(StatusCode::BAD_REQUEST, "invalid_path");
}
