//! `/openapi.json` describes exactly the routes the sandbox serves, with the contract's bounds,
//! and the answers have the fields their schemas document.

mod common;

use axum::http::StatusCode;
use common::Sandbox;
use serde_json::Value;

async fn document(sb: &Sandbox) -> Value {
    let reply = sb.send("GET", "/openapi.json", None, &[], None).await;
    assert_eq!(reply.status, StatusCode::OK);
    reply.json()
}

#[tokio::test]
async fn the_document_lists_every_route_and_nothing_else() {
    let sb = Sandbox::fast();
    let doc = document(&sb).await;
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"]["version"], "1.0.0");

    let mut documented: Vec<(String, String)> = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            documented.push((method.to_uppercase(), path.clone()));
        }
    }
    // The submission routes are documented once per action: each takes its own input shape.
    let mut served: Vec<(String, String)> = sandbox::ROUTES
        .iter()
        .flat_map(|route| {
            let (method, path) = (route.method(), route.path());
            let ids: Vec<&str> = if path.contains("{action}") {
                api_contract::ActionId::ALL
                    .iter()
                    .map(|a| a.as_str())
                    .collect()
            } else {
                vec![""]
            };
            ids.into_iter()
                .map(|id| (method.to_string(), path.replace("{action}", id)))
                .collect::<Vec<_>>()
        })
        .collect();
    documented.sort();
    served.sort();
    assert_eq!(served.len(), sandbox::ROUTES.len() - 2 + 2 * 16);
    assert_eq!(documented, served);

    // Every route of the table is really routed: none falls through to the unknown-route 404
    // or the 405 fallback.
    for route in &sandbox::ROUTES {
        let (method, path) = (route.method(), route.path());
        let concrete = path
            .replace("{action}", "premium-search-people")
            .replace("{id}", "x");
        let reply = sb
            .send(
                method.as_str(),
                &concrete,
                Some(sb.session()),
                &[("content-type", "application/json")],
                Some("{}"),
            )
            .await;
        let body: Value = serde_json::from_slice(&reply.body).unwrap_or(Value::Null);
        let code = body["error"]["code"].as_str().unwrap_or("");
        assert!(
            code != "not_found" && code != "method_not_allowed",
            "{method} {path} is not routed: {code}"
        );
    }
}

#[tokio::test]
async fn bounds_and_errors_are_in_the_document() {
    let sb = Sandbox::fast();
    let doc = document(&sb).await;
    let schemas = &doc["components"]["schemas"];
    let submission = |name: &str| schemas[format!("{name}Submission")]["properties"].clone();
    assert_eq!(
        submission("PremiumSearchPeople")["max_results"]["maximum"],
        100
    );
    // Every action takes 1 to 100; its own ceiling caps the run and is named in the text.
    for name in ["NetworkSearchContent", "NetworkExtractPeople"] {
        let max_results = &submission(name)["max_results"];
        assert_eq!(max_results["minimum"], 1, "{name}");
        assert_eq!(max_results["maximum"], 100, "{name}");
    }
    let description = |name: &str| {
        submission(name)["max_results"]["description"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert!(
        description("NetworkSearchContent").contains("capped at 50"),
        "{}",
        description("NetworkSearchContent")
    );
    assert!(
        description("NetworkExtractPeople").contains("capped at 1,"),
        "{}",
        description("NetworkExtractPeople")
    );
    assert_eq!(
        submission("PremiumSearchPeople")["max_credits"]["maximum"],
        300000
    );
    assert_eq!(
        submission("NetworkExtractPeople")["max_credits"]["minimum"],
        20
    );
    assert_eq!(
        submission("PremiumSearchPerson")["input"]["$ref"],
        "#/components/schemas/StandardPersonInput"
    );
    assert_eq!(
        schemas["StandardPersonInput"]["additionalProperties"],
        false
    );
    assert_eq!(
        schemas["StandardPersonInput"]["properties"]["company"]["maxLength"],
        200
    );
    assert_eq!(
        schemas["KeywordsInput"]["properties"]["keywords"]["maxLength"],
        500
    );
    for shape in [
        "StandardPerson",
        "Keywords",
        "Identifier",
        "SocialId",
        "CompanyEmployees",
        "SchoolAlumni",
        "GroupMembers",
        "Query",
    ] {
        assert!(schemas[format!("{shape}Input")].is_object(), "{shape}");
    }
    let key = &doc["components"]["parameters"]["IdempotencyKey"]["schema"];
    assert_eq!(
        (key["minLength"].as_u64(), key["maxLength"].as_u64()),
        (Some(8), Some(128))
    );
    let submit =
        &doc["paths"]["/v1/actions/network-extract-post-likers/run/async"]["post"]["responses"];
    for status in [
        "200", "202", "400", "401", "403", "404", "409", "429", "500",
    ] {
        assert!(
            submit.get(status).is_some(),
            "submission documents {status}"
        );
    }
    assert!(submit["429"]["headers"].get("Retry-After").is_some());
    assert_eq!(
        doc["paths"]["/v1/actions"]["get"]["security"],
        serde_json::json!([])
    );
    assert!(
        doc["paths"]["/v1/keys/{id}"]["delete"]["responses"]
            .get("204")
            .is_some()
    );
}

/// The edge answers (a body too large, a path parameter refused) are documented on every
/// operation that can give them, so schemathesis checks them as it checks the rest; a method a
/// path does not take is the contract's 405 body.
#[tokio::test]
async fn the_edge_answers_are_documented_where_they_happen() {
    let sb = Sandbox::fast();
    let doc = document(&sb).await;
    let too_large = format!(
        "{{\"x\":\"{}\"}}",
        "a".repeat(sandbox::routes::MAX_REQUEST_BODY_BYTES)
    );
    for route in &sandbox::ROUTES {
        let (method, path) = (route.method(), route.path());
        let documented_path = path.replace("{action}", "premium-search-people");
        let operation = &doc["paths"][&documented_path][method.as_str().to_lowercase()];
        assert!(
            operation.is_object(),
            "{method} {documented_path} is documented"
        );
        let answer = |status: StatusCode, code: &str, reply: &common::Reply| {
            let body: Value = serde_json::from_slice(&reply.body).unwrap_or(Value::Null);
            assert_eq!(reply.status, status, "{method} {path}: {body}");
            assert_eq!(body["error"]["code"], code, "{method} {path}");
            assert!(
                operation["responses"].get(status.as_str()).is_some(),
                "{method} {documented_path} documents its {status}"
            );
        };
        let concrete = documented_path.replace("{id}", "x");
        if operation.get("requestBody").is_some() {
            let reply = sb
                .send(
                    method.as_str(),
                    &concrete,
                    Some(sb.session()),
                    &[
                        ("content-type", "application/json"),
                        ("idempotency-key", "edge-key-123"),
                    ],
                    Some(&too_large),
                )
                .await;
            answer(StatusCode::PAYLOAD_TOO_LARGE, "request_too_large", &reply);
        }
        if path.contains("{id}") {
            // Not UTF-8 once decoded.
            let hostile = documented_path.replace("{id}", "%FF");
            let reply = sb
                .send(method.as_str(), &hostile, Some(sb.session()), &[], None)
                .await;
            answer(StatusCode::BAD_REQUEST, "invalid_path", &reply);
        }
        // A method no route of the path takes: the contract's body, never axum's empty 405.
        let other = if doc["paths"][&documented_path].get("put").is_none() {
            "PUT"
        } else {
            "PATCH"
        };
        let reply = sb
            .send(other, &concrete, Some(sb.session()), &[], None)
            .await;
        let body: Value = serde_json::from_slice(&reply.body).unwrap_or(Value::Null);
        assert_eq!(
            reply.status,
            StatusCode::METHOD_NOT_ALLOWED,
            "{other} {path}"
        );
        assert_eq!(
            body["error"]["code"], "method_not_allowed",
            "{other} {path}"
        );
    }
    assert!(
        doc["info"]["description"]
            .as_str()
            .unwrap()
            .contains("405 (`method_not_allowed`)")
    );
}

/// Every `$ref` in `value`, anywhere in it.
fn refs(value: &Value, found: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.get("$ref") {
                found.push(target.clone());
            }
            map.values().for_each(|v| refs(v, found));
        }
        Value::Array(items) => items.iter().for_each(|v| refs(v, found)),
        _ => {}
    }
}

#[tokio::test]
async fn every_reference_resolves_and_the_contract_limits_are_the_constants() {
    use api_contract::input::{KEY_NAME_MAX, MAX_RESULTS_LIMIT};
    use api_contract::{KEY_LIST_LIMIT, RUN_LIST_LIMIT};
    let sb = Sandbox::fast();
    let doc = document(&sb).await;
    let mut found = Vec::new();
    refs(&doc, &mut found);
    assert!(found.len() > 50, "{} references", found.len());
    for target in found {
        let pointer = target
            .strip_prefix('#')
            .expect("a reference inside the document");
        assert!(doc.pointer(pointer).is_some(), "{target} resolves");
    }
    // utoipa takes its bounds as literals: they must be the contract's constants.
    let schemas = &doc["components"]["schemas"];
    let limits = [
        (
            &schemas["RunList"]["properties"]["runs"]["maxItems"],
            RUN_LIST_LIMIT as u64,
        ),
        (
            &schemas["KeyList"]["properties"]["keys"]["maxItems"],
            KEY_LIST_LIMIT as u64,
        ),
        (
            &schemas["CreateKeyRequest"]["properties"]["name"]["maxLength"],
            KEY_NAME_MAX as u64,
        ),
        (
            &schemas["ActionEntry"]["properties"]["max_results"]["maximum"],
            u64::from(MAX_RESULTS_LIMIT),
        ),
    ];
    for (documented, constant) in limits {
        assert_eq!(documented.as_u64(), Some(constant));
    }
    assert_eq!(schemas["CreateKeyRequest"]["additionalProperties"], false);
    // A field left out when empty is not nullable; one sent as null until set is required.
    let run = &schemas["Run"]["properties"];
    assert_eq!(
        run["error"],
        serde_json::json!({ "$ref": "#/components/schemas/RunError" })
    );
    assert_eq!(
        run["completed_at"]["type"],
        serde_json::json!(["string", "null"])
    );
    for (schema, field) in [("Run", "completed_at"), ("ApiKey", "revoked_at")] {
        let required = schemas[schema]["required"].as_array().unwrap();
        assert!(
            required.iter().any(|r| r == field),
            "{schema}.{field} is always sent"
        );
    }
    let detail = &schemas["ErrorDetail"]["properties"];
    assert_eq!(detail["request_id"]["type"], "string");
    assert_eq!(detail["retry_after"]["type"], "number");
    assert_eq!(
        schemas["ActionEntry"]["properties"]["input_keys"]["type"],
        "array"
    );
}

/// The properties `schema` (a `components.schemas` entry) documents, and those it requires.
fn documented_fields(doc: &Value, schema: &str) -> (Vec<String>, Vec<String>) {
    let schema = &doc["components"]["schemas"][schema];
    let properties = schema["properties"]
        .as_object()
        .unwrap_or_else(|| panic!("{schema} has no properties"));
    let required = schema["required"].as_array().cloned().unwrap_or_default();
    (
        properties.keys().cloned().collect(),
        required
            .iter()
            .filter_map(|r| r.as_str().map(str::to_owned))
            .collect(),
    )
}

/// `answer` has every field `schema` requires, and only fields it documents.
fn assert_shaped_as(doc: &Value, schema: &str, answer: &Value) {
    let (documented, required) = documented_fields(doc, schema);
    let fields = answer
        .as_object()
        .unwrap_or_else(|| panic!("{schema}: {answer}"));
    for name in &required {
        assert!(
            fields.contains_key(name),
            "{schema} requires {name}: {answer}"
        );
    }
    for name in fields.keys() {
        assert!(
            documented.contains(name),
            "{schema} does not document {name}"
        );
    }
}

#[tokio::test]
async fn the_answers_have_the_fields_their_schemas_document() {
    let sb = Sandbox::fast();
    let doc = document(&sb).await;
    let (key, session) = (sb.key().to_owned(), sb.session().to_owned());
    let body = serde_json::json!({ "input": { "keywords": "sandbox:fail=upstream_timeout" }, "max_results": 2 });
    let failed: Value = sb
        .submit(
            &key,
            "premium-search-people",
            "live",
            "openapi-failed-run",
            &body,
        )
        .await
        .json();
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_shaped_as(&doc, "Run", &failed);
    assert_shaped_as(&doc, "RunError", &failed["error"]);
    assert_shaped_as(&doc, "Completeness", &failed["completeness"]);
    let runs: Value = sb.get("/v1/runs", &key).await.json();
    assert_shaped_as(&doc, "RunList", &runs);
    let id = failed["id"].as_str().unwrap();
    let outputs: Value = sb.get(&format!("/v1/runs/{id}/outputs"), &key).await.json();
    assert_shaped_as(&doc, "RunOutputs", &outputs);
    let workspace: Value = sb.get("/v1/workspace", &key).await.json();
    assert_shaped_as(&doc, "Workspace", &workspace);
    assert_shaped_as(&doc, "UsageToday", &workspace["usage_today"]);
    let actions: Value = sb.get("/v1/actions", &key).await.json();
    assert_shaped_as(&doc, "ActionList", &actions);
    for action in actions["actions"].as_array().unwrap() {
        assert_shaped_as(&doc, "ActionEntry", action);
    }
    let created: Value = sb
        .send(
            "POST",
            "/v1/keys",
            Some(&session),
            &[("content-type", "application/json")],
            Some(r#"{"name":"openapi"}"#),
        )
        .await
        .json();
    assert_shaped_as(&doc, "CreatedApiKey", &created);
    let keys: Value = sb.get("/v1/keys", &session).await.json();
    assert_shaped_as(&doc, "KeyList", &keys);
    for listed in keys["keys"].as_array().unwrap() {
        assert_shaped_as(&doc, "ApiKey", listed);
    }
    let refused = sb.get("/v1/runs/no-such-run", &key).await;
    assert_eq!(refused.status, StatusCode::NOT_FOUND);
    let refused: Value = refused.json();
    assert_shaped_as(&doc, "ErrorBody", &refused);
    assert_shaped_as(&doc, "ErrorDetail", &refused["error"]);
}
