//! Hostile requests never make the sandbox fail: arbitrary bodies, headers, methods and paths,
//! most of them with a valid credential so that they get past authentication to the path, the
//! headers and the body, get a contract answer (never a 5xx, every error the contract's JSON
//! body) and leave the store consistent.

mod common;

use api_contract::routes::PATH_PARAMETER_MAX_LEN;
use api_contract::{Endpoint, ErrorBody, REQUEST_ID_HEADER};
use common::{Reply, Sandbox};
use proptest::prelude::*;

/// Methods a client may send, the contract's and others.
const METHODS: [&str; 9] = [
    "GET", "POST", "DELETE", "PUT", "PATCH", "PROPFIND", "PURGE", "HEAD", "OPTIONS",
];

/// Path segments that try to escape a route or to break its decoding: bytes that are not UTF-8
/// once decoded (`%FF`, the overlong `%C0%AE`), dot segments in disguise (`..;`, double-encoded,
/// fullwidth), separators and NUL encoded, right-to-left and emoji text, ids longer than any real
/// one, an empty segment.
fn hostile_segments() -> Vec<String> {
    let words = [
        "%FF",
        "%C0%AE",
        "%C0%AE%C0%AE",
        "..",
        "..;",
        "%2e%2e",
        "%252e%252e",
        "%%32%65",
        "%EF%BC%8E%EF%BC%8E",
        "a;jsessionid=1",
        "a%00",
        "a%2Fb",
        "%",
        "%zz",
        "{id}",
        "",
        "%E2%80%AE",
        "%F0%9F%92%A5",
    ];
    let overlong = [PATH_PARAMETER_MAX_LEN + 1, 8_000].map(|len| "a".repeat(len));
    words
        .map(str::to_owned)
        .into_iter()
        .chain(overlong)
        .collect()
}

/// The routes' own words, so that random paths come near real routes.
const ROUTE_SEGMENTS: [&str; 11] = [
    "actions",
    "runs",
    "keys",
    "workspace",
    "run",
    "live",
    "async",
    "outputs",
    "cancel",
    "premium-search-people",
    "network-extract-people",
];

/// Asserts that the answer to `method path` is one a client of the contract can read: never a
/// 5xx, and an error is the contract's JSON error body carrying the response's request id.
fn assert_contract_answer(method: &str, path: &str, reply: &Reply) {
    let request = format!("{method} {path}");
    let text = String::from_utf8_lossy(&reply.body);
    assert!(
        reply.status.as_u16() < 500,
        "{} for {request}: {text}",
        reply.status
    );
    if reply.status.as_u16() < 400 {
        return;
    }
    assert_eq!(
        reply.header("content-type"),
        Some("application/json"),
        "{} for {request}: {text}",
        reply.status
    );
    // An answer to HEAD has no body to read.
    if method == "HEAD" {
        return;
    }
    let body: ErrorBody = serde_json::from_slice(&reply.body).unwrap_or_else(|e| {
        panic!(
            "{} for {request} is not an error body ({e}): {text}",
            reply.status
        )
    });
    assert!(
        !body.error.code.is_empty() && !body.error.message.is_empty(),
        "{request}: {text}"
    );
    assert_eq!(
        body.error.request_id.as_deref(),
        reply.header(REQUEST_ID_HEADER),
        "{request}"
    );
}

/// Who a request says it is.
#[derive(Clone, Debug)]
enum Caller {
    ApiKey,
    Session,
    /// This `Authorization` header, whatever it is.
    Header(String),
    Anonymous,
}

fn caller() -> impl Strategy<Value = Caller> {
    prop_oneof![
        6 => Just(Caller::ApiKey),
        2 => Just(Caller::Session),
        1 => prop_oneof![Just("Basic Zm9vOmJhcg==".to_owned()), "Bearer [ -~]{0,60}", "[ -~]{0,60}"]
            .prop_map(Caller::Header),
        1 => Just(Caller::Anonymous),
    ]
}

fn segment() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(hostile_segments()),
        2 => prop::sample::select(ROUTE_SEGMENTS.to_vec()).prop_map(str::to_owned),
        1 => "[a-zA-Z0-9%._~;{}-]{1,20}",
    ]
}

/// A method and a path under `/v1`: mostly a route of the contract, with its own method, and
/// its parameter replaced by a hostile or random segment, so that the request gets past routing
/// to the route's own extractors; otherwise any method on any segments.
fn method_and_path() -> impl Strategy<Value = (&'static str, String)> {
    let any_method = prop::sample::select(METHODS.to_vec());
    let route_shaped = (
        prop::sample::select(Endpoint::ALL.to_vec()),
        segment(),
        prop::option::weighted(0.25, any_method.clone()),
    )
        .prop_map(|(endpoint, parameter, other_method)| {
            let path = endpoint
                .path()
                .replace("{action}", &parameter)
                .replace("{id}", &parameter);
            (other_method.unwrap_or(endpoint.method().as_str()), path)
        });
    let any_segments = (any_method, prop::collection::vec(segment(), 0..5))
        .prop_map(|(method, segments)| (method, format!("/v1/{}", segments.join("/"))));
    let query = prop::option::of("[a-zA-Z0-9%=&._-]{0,20}");
    (prop_oneof![3 => route_shaped, 1 => any_segments], query).prop_map(
        |((method, path), query)| match query {
            Some(query) => (method, format!("{path}?{query}")),
            None => (method, path),
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn arbitrary_submissions_get_a_contract_answer(
        body in prop_oneof![".{0,200}", r#"\{"input":\{"keywords":".{0,40}"\}(,"max_results":-?[0-9]{1,4})?\}"#],
        key in "[a-zA-Z0-9_:/ -]{0,20}",
        action in prop_oneof![Just("premium-search-people".to_owned()), Just("network-extract-people".to_owned()), "[a-z-]{1,20}"],
        mode in prop_oneof![Just("live"), Just("async")],
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let sb = Sandbox::fast();
            let path = format!("/v1/actions/{action}/run/{mode}");
            let reply = sb.send("POST", &path, Some(sb.key()),
                &[("content-type", "application/json"), ("idempotency-key", &key)], Some(&body)).await;
            assert_contract_answer("POST", &path, &reply);
            let ws = sb.workspace(sb.key()).await;
            assert!(ws.credits_reserved <= 100 * 20);
        });
    }

    #[test]
    fn arbitrary_requests_get_a_contract_answer(
        (method, path) in method_and_path(),
        caller in caller(),
        content_type in prop::option::of(prop_oneof![Just("application/json".to_owned()), Just("text/plain".to_owned()), "[ -~]{0,30}"]),
        idempotency_key in prop::option::of("[ -~]{0,140}"),
        body in prop::option::of(prop_oneof![".{0,200}", Just(r#"{"name":"fuzz"}"#.to_owned())]),
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let sb = Sandbox::fast();
            let mut headers: Vec<(&str, &str)> = Vec::new();
            let bearer = match &caller {
                Caller::ApiKey => Some(sb.key()),
                Caller::Session => Some(sb.session()),
                Caller::Header(value) => {
                    headers.push(("authorization", value));
                    None
                }
                Caller::Anonymous => None,
            };
            headers.extend(content_type.as_deref().map(|value| ("content-type", value)));
            headers.extend(idempotency_key.as_deref().map(|value| ("idempotency-key", value)));
            let reply = sb.send(method, &path, bearer, &headers, body.as_deref()).await;
            assert_contract_answer(method, &path, &reply);
        });
    }
}

/// Each hostile segment as every route's parameter, with each method, as the seeded workspace's
/// API key: the proptest above samples these; this sends every one.
#[tokio::test]
async fn every_hostile_parameter_with_every_method_gets_a_contract_answer() {
    let sb = Sandbox::fast();
    let templates = Endpoint::ALL.iter().map(|endpoint| endpoint.path());
    for template in templates.filter(|template| template.contains('{')) {
        for segment in hostile_segments() {
            let path = template
                .replace("{action}", &segment)
                .replace("{id}", &segment);
            for method in METHODS {
                let reply = sb
                    .send(
                        method,
                        &path,
                        Some(sb.key()),
                        &[("content-type", "application/json")],
                        Some("{}"),
                    )
                    .await;
                assert_contract_answer(method, &path, &reply);
            }
        }
    }
}
