//! `/openapi.json` describes exactly the routes the sandbox serves, with the contract's bounds.

mod common;

use axum::http::StatusCode;
use common::Sandbox;
use serde_json::Value;

#[tokio::test]
async fn the_document_lists_every_route_and_nothing_else() {
    let sb = Sandbox::fast();
    let reply = sb.send("GET", "/openapi.json", None, &[], None).await;
    assert_eq!(reply.status, StatusCode::OK);
    let doc: Value = reply.json();
    assert_eq!(doc["openapi"], "3.0.3");
    assert_eq!(doc["info"]["version"], "1.0.0");

    let mut documented: Vec<(String, String)> = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            documented.push((method.to_uppercase(), path.clone()));
        }
    }
    let mut served: Vec<(String, String)> = sandbox::ROUTES
        .iter()
        .map(|(m, p)| (m.to_string(), p.to_string()))
        .collect();
    documented.sort();
    served.sort();
    assert_eq!(documented, served);

    // Every route in the table is really routed: none falls through to the unknown-route 404
    // or the 405 fallback.
    for (method, path) in sandbox::ROUTES {
        let concrete = path
            .replace("{action}", "premium-search-people")
            .replace("{id}", "x");
        let reply = sb
            .send(
                method,
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
    let doc: Value = sb
        .send("GET", "/openapi.json", None, &[], None)
        .await
        .json();
    let schemas = &doc["components"]["schemas"];
    assert_eq!(
        schemas["Submission"]["properties"]["max_results"]["maximum"],
        100
    );
    assert_eq!(
        schemas["Submission"]["properties"]["max_credits"]["maximum"],
        300000
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
    assert_eq!(schemas["RunInput"]["oneOf"].as_array().unwrap().len(), 8);
    let key = &doc["components"]["parameters"]["IdempotencyKey"]["schema"];
    assert_eq!(
        (key["minLength"].as_u64(), key["maxLength"].as_u64()),
        (Some(8), Some(128))
    );
    let submit = &doc["paths"]["/v1/actions/{action}/run/async"]["post"]["responses"];
    for status in [
        "200", "202", "400", "401", "403", "404", "409", "429", "500",
    ] {
        assert!(
            submit.get(status).is_some(),
            "submission documents {status}"
        );
    }
    assert_eq!(
        doc["paths"]["/v1/actions"]["get"]["security"],
        serde_json::json!([])
    );
    assert_eq!(
        doc["components"]["parameters"]["Action"]["schema"]["enum"]
            .as_array()
            .unwrap()
            .len(),
        16
    );
}
