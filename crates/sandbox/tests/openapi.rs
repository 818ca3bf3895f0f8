//! `/openapi.json` describes exactly the routes the sandbox serves, with the contract's bounds.

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
    assert_eq!(doc["openapi"], "3.0.3");
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
            let (method, path) = (route.method.as_str(), route.path);
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
        let (method, path) = (route.method.as_str(), route.path);
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
