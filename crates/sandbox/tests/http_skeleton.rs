//! HTTP behaviour of the sandbox's registry, workspace, authentication, errors and console serving.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

use api_contract::{ActionList, ErrorBody, REQUEST_ID_HEADER, Workspace};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use sandbox::{SandboxState, SeededWorkspace, app};
use serde_json::Value;
use tower::ServiceExt;

struct Reply {
    csp: Option<String>,
    status: StatusCode,
    request_id: Option<String>,
    content_type: String,
    body: Vec<u8>,
}

impl Reply {
    fn json<T: serde::de::DeserializeOwned>(&self) -> T {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&self.body)))
    }
}

async fn get(router: &axum::Router, path: &str, bearer: Option<&str>) -> Reply {
    let mut request = Request::get(path);
    if let Some(bearer) = bearer {
        request = request.header("authorization", format!("Bearer {bearer}"));
    }
    let response = router
        .clone()
        .oneshot(request.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
    };
    Reply {
        csp: header("content-security-policy"),
        status: response.status(),
        request_id: header(REQUEST_ID_HEADER),
        content_type: header("content-type").unwrap_or_default(),
        body: response
            .into_body()
            .collect()
            .await
            .unwrap()
            .to_bytes()
            .to_vec(),
    }
}

fn sandbox() -> (axum::Router, Vec<SeededWorkspace>) {
    let (state, seeded) = SandboxState::seeded(sandbox::SandboxConfig::fast());
    (app(state, None), seeded)
}

/// Checks an error reply is the contract's body with the given code, and its request id
/// matches the response header.
fn assert_error(reply: &Reply, status: StatusCode, code: &str) {
    assert_eq!(reply.status, status);
    let body: ErrorBody = reply.json();
    assert_eq!(body.error.code, code);
    assert!(!body.error.message.is_empty());
    let id = body
        .error
        .request_id
        .expect("error bodies carry a request id");
    assert_eq!(Some(&id), reply.request_id.as_ref());
}

#[tokio::test]
async fn registry_lists_all_16_actions_in_published_order_without_credentials() {
    let (router, _) = sandbox();
    let reply = get(&router, "/v1/actions", None).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert!(reply.request_id.as_deref().unwrap().starts_with("req_"));
    let list: ActionList = reply.json();
    let expected: Vec<&str> = api_contract::ActionId::ALL
        .iter()
        .map(|a| a.as_str())
        .collect();
    let got: Vec<&str> = list.actions.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(got, expected);
    let enrich = &list.actions[10];
    assert_eq!(
        (
            enrich.id.as_str(),
            enrich.credits_per_record,
            enrich.max_results
        ),
        ("network-extract-people", 20, 1)
    );
    assert!(
        list.actions
            .iter()
            .all(|a| (1..=100).contains(&a.max_results))
    );
}

#[tokio::test]
async fn the_console_is_told_this_is_the_sandbox() {
    let (router, _) = sandbox();
    let reply = get(&router, api_contract::ENVIRONMENT_PATH, None).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.content_type, "application/json");
    assert_eq!(
        reply.json::<api_contract::ConsoleEnvironment>(),
        api_contract::ConsoleEnvironment::sandbox()
    );
}

#[tokio::test]
async fn workspace_is_scoped_to_the_credential() {
    let (router, seeded) = sandbox();
    for (seed, bearer) in seeded
        .iter()
        .flat_map(|s| [(s, &s.api_key), (s, &s.session_token)])
    {
        let reply = get(&router, "/v1/workspace", Some(bearer)).await;
        assert_eq!(reply.status, StatusCode::OK);
        let ws: Workspace = reply.json();
        assert_eq!(ws.workspace_id, seed.workspace_id);
        assert_eq!(ws.name, seed.name);
        assert!(ws.credits_balance > 0);
    }
    assert_ne!(seeded[0].workspace_id, seeded[1].workspace_id);
}

#[tokio::test]
async fn missing_or_wrong_credentials_are_401_with_the_contract_error_body() {
    let (router, seeded) = sandbox();
    assert_error(
        &get(&router, "/v1/workspace", None).await,
        StatusCode::UNAUTHORIZED,
        "missing_credential",
    );
    assert_error(
        &get(&router, "/v1/workspace", Some("sk_sandbox_nope")).await,
        StatusCode::UNAUTHORIZED,
        "invalid_api_key",
    );
    let token = &seeded[0].session_token;
    let tampered = format!("{}x", &token[..token.len() - 1]);
    assert_error(
        &get(&router, "/v1/workspace", Some(&tampered)).await,
        StatusCode::UNAUTHORIZED,
        "invalid_session",
    );
}

#[tokio::test]
async fn an_expired_session_is_401_session_expired() {
    let (state, seeded) = SandboxState::seeded(sandbox::SandboxConfig::fast());
    let expired = state.issue_session(&seeded[0].workspace_id, &seeded[0].account, -1);
    let router = app(state, None);
    assert_error(
        &get(&router, "/v1/workspace", Some(&expired)).await,
        StatusCode::UNAUTHORIZED,
        "session_expired",
    );
}

#[tokio::test]
async fn responses_are_gzipped_for_clients_that_accept_it() {
    let (router, _) = sandbox();
    let response = router
        .oneshot(
            Request::get("/v1/actions")
                .header("accept-encoding", "gzip")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["content-encoding"], "gzip");
    let (plain, _) = sandbox();
    let reply = get(&plain, "/v1/actions", None).await;
    assert_eq!(
        reply.json::<ActionList>().actions.len(),
        16,
        "plain without Accept-Encoding"
    );
}

#[tokio::test]
async fn unknown_api_paths_are_json_404_even_when_serving_the_console() {
    let dist = std::env::temp_dir().join(format!("sandbox-dist-{}", std::process::id()));
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(
        dist.join("index.html"),
        "<!doctype html><title>console</title>",
    )
    .unwrap();
    std::fs::write(dist.join("app.css"), "body{}").unwrap();
    let (state, _) = SandboxState::seeded(sandbox::SandboxConfig::fast());
    let router = app(state, Some(dist.clone()));

    // `/v1/` too, which a router nested at `/v1` would have handed to the console's files.
    for path in ["/v1/nothing-here", "/v1", "/v1/", "/v1//workspace"] {
        let reply = get(&router, path, None).await;
        assert_eq!(reply.content_type, "application/json", "{path}");
        assert_error(&reply, StatusCode::NOT_FOUND, "not_found");
    }

    let deep_link = get(&router, "/runs/0b7c8a4e", None).await;
    assert_eq!(deep_link.status, StatusCode::OK);
    assert!(String::from_utf8_lossy(&deep_link.body).contains("<title>console</title>"));
    let policy = deep_link
        .csp
        .as_deref()
        .expect("the console is served with a CSP");
    assert!(policy.contains("frame-ancestors 'none'") && policy.contains("'wasm-unsafe-eval'"));
    assert_eq!(
        get(&router, "/v1/actions", None).await.csp,
        None,
        "the API needs no CSP"
    );
    let asset = get(&router, "/app.css", None).await;
    assert_eq!(
        (asset.status, asset.content_type.as_str()),
        (StatusCode::OK, "text/css")
    );
    std::fs::remove_dir_all(dist).unwrap();
}

/// The binary as scripts use it: start on a free port, read the JSON line, call the API.
#[test]
fn binary_prints_its_credentials_and_serves_on_a_real_socket() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sandbox"))
        .args(["--addr", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let start: Value = serde_json::from_str(&line).expect("one JSON line");
    let url = start["url"].as_str().unwrap();
    let api_key = start["api_key"].as_str().unwrap();
    assert!(start["session_token"].as_str().unwrap().starts_with("eyJ"));
    assert_eq!(start["workspaces"].as_array().unwrap().len(), 2);

    let host = url.strip_prefix("http://").unwrap();
    let mut stream = TcpStream::connect(host).unwrap();
    write!(
        stream,
        "GET /v1/workspace HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {api_key}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    child.kill().unwrap();
    let _ = child.wait();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(
        response.contains(r#""workspace_id":"ws_acme""#),
        "{response}"
    );
}

#[test]
fn a_dist_without_index_html_is_refused_at_start() {
    let status = Command::new(env!("CARGO_BIN_EXE_sandbox"))
        .args(["--addr", "127.0.0.1:0", "--dist", "/nonexistent-dist"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(2));
}
