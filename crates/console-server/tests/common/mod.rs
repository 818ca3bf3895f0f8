//! A fake upstream that records what reaches it, console-server in front of it (in this process
//! or as its binary), and a client that sends exactly the headers a test gives.

#![allow(dead_code)] // each test file uses its own part

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use console_server::{
    AllowedHosts, App, ConnectionLimits, Forwarder, Health, Metrics, Timeouts, Upstream,
};
use http_body_util::BodyExt;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use tokio::net::TcpListener;

/// A request as the upstream saw it.
#[derive(Clone, Debug)]
pub struct Seen {
    pub method: String,
    /// Path and query as they arrived.
    pub target: String,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

/// A server that records every request and answers by path (see `answer`).
pub struct FakeUpstream {
    pub addr: SocketAddr,
    pub seen: Arc<Mutex<Vec<Seen>>>,
}

impl FakeUpstream {
    pub async fn start() -> Self {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = seen.clone();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let app = Router::new().fallback(move |request: Request| {
            let record = record.clone();
            async move { answer(request, &record, addr).await }
        });
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        FakeUpstream { addr, seen }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

/// What the fake upstream answers: the contract's shapes where the console reads them, and
/// headers a forwarder must not pass back.
async fn answer(request: Request, seen: &Mutex<Vec<Seen>>, own: SocketAddr) -> Response {
    let (parts, body) = request.into_parts();
    let target = parts
        .uri
        .path_and_query()
        .map_or_else(String::new, |p| p.to_string());
    let path = parts.uri.path().to_owned();
    // A body over the limit is cut off before its end: such a request never completes here.
    let Ok(body) = body.collect().await else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    seen.lock().unwrap().push(Seen {
        method: parts.method.to_string(),
        target,
        headers: parts.headers,
        body: body.to_bytes().to_vec(),
    });
    let hold = |default: u64| {
        parts
            .uri
            .query()
            .and_then(|q| q.strip_prefix("hold_ms="))
            .and_then(|ms| ms.parse().ok())
            .map_or(Duration::from_millis(default), Duration::from_millis)
    };
    match path.as_str() {
        "/v1/workspace" => (
            [("content-type", "application/json")],
            r#"{"workspace_id":"ws_1","name":"W","credits_balance":1,"credits_reserved":0,"usage_today":{"profiles":0,"premium_lines":0}}"#,
        )
            .into_response(),
        "/v1/actions/premium-search-people/run/async" => (
            StatusCode::TOO_MANY_REQUESTS,
            [("content-type", "application/json"), ("retry-after", "7")],
            r#"{"error":{"code":"rate_limited","message":"Slow down.","request_id":"req_429","retry_after":7.5}}"#,
        )
            .into_response(),
        "/v1/actions/premium-search-people/run/live" => {
            tokio::time::sleep(hold(0)).await;
            ([("content-type", "application/json")], r#"{"live":"done"}"#).into_response()
        }
        "/v1/runs/slow" => {
            tokio::time::sleep(hold(0)).await;
            "late".into_response()
        }
        "/v1/keys" => (
            StatusCode::CREATED,
            [
                ("content-type", "application/json"),
                ("x-request-id", "req_upstream_1"),
                ("set-cookie", "session=upstream-cookie; Path=/"),
                ("x-internal-host", "db-7.internal"),
                ("retry-after", "3"),
            ],
            r#"{"id":"key_1","name":"n","api_key":"sk_live_NEWSECRET_abc123","created_at":"2026-11-26T09:00:00Z"}"#,
        )
            .into_response(),
        "/v1/runs/redirect-here" => (
            StatusCode::FOUND,
            [("location", format!("http://{own}/v1/workspace"))],
        )
            .into_response(),
        "/v1/runs/redirect-away" => (
            StatusCode::FOUND,
            [("location", "https://elsewhere.example/v1/workspace")],
        )
            .into_response(),
        "/v1/runs/huge" => {
            // 64 MiB in 64 KiB pieces, made as they are read.
            let piece = bytes::Bytes::from(vec![b'x'; 64 * 1024]);
            let stream = futures_util::stream::iter(
                (0..1024).map(move |_| Ok::<_, std::io::Error>(piece.clone())),
            );
            Body::from_stream(stream).into_response()
        }
        // An error page from a CDN before the API, with a script in it.
        "/v1/runs/html" => (
            StatusCode::BAD_GATEWAY,
            [("content-type", "text/html; charset=utf-8")],
            "<html><body><script>fetch('/v1/keys')</script>Bad gateway</body></html>",
        )
            .into_response(),
        "/v1/runs/problem" => (
            StatusCode::CONFLICT,
            [("content-type", "application/problem+json")],
            r#"{"title":"Conflict"}"#,
        )
            .into_response(),
        _ => (
            StatusCode::NOT_FOUND,
            [("content-type", "application/json")],
            r#"{"error":{"code":"not_found","message":"No such path."}}"#,
        )
            .into_response(),
    }
}

/// tests/fixture-dist of console-hosting: a console for the server to serve (the binary's own
/// may not be built yet when the tests run).
pub fn fixture_dist() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../console-hosting/tests/fixture-dist")
}

/// console-server in this process, in front of `upstream`.
pub async fn start_server(upstream: &str, timeouts: Timeouts) -> SocketAddr {
    start_server_trusting(upstream, timeouts, &[]).await
}

pub async fn start_server_trusting(
    upstream: &str,
    timeouts: Timeouts,
    roots: &[rustls_pki_types::CertificateDer<'static>],
) -> SocketAddr {
    let upstream: Upstream = upstream.parse().unwrap();
    let forwarder = Forwarder::new(upstream, timeouts, roots).unwrap();
    Server {
        forwarder,
        ..Server::default()
    }
    .start()
    .await
    .addr
}

/// console-server in this process as a test sets it up: by default in front of nothing
/// reachable, with the default limits and fresh metrics.
pub struct Server {
    pub forwarder: Forwarder,
    pub limits: ConnectionLimits,
    pub max_requests_in_flight: usize,
    pub public_hosts: Vec<&'static str>,
    pub health: Health,
    pub metrics: Metrics,
}

impl Default for Server {
    fn default() -> Self {
        let nowhere: Upstream = "http://127.0.0.1:9".parse().unwrap();
        Server {
            forwarder: Forwarder::new(nowhere, Timeouts::default(), &[]).unwrap(),
            limits: ConnectionLimits::default(),
            max_requests_in_flight: console_server::DEFAULT_MAX_REQUESTS_IN_FLIGHT,
            public_hosts: Vec::new(),
            health: Health::default(),
            metrics: Metrics::default(),
        }
    }
}

/// A running [`Server`]: its address, and what stops it.
pub struct Running {
    pub addr: SocketAddr,
    pub stop: Option<tokio::sync::oneshot::Sender<()>>,
    pub served: tokio::task::JoinHandle<()>,
}

impl Server {
    pub fn in_front_of(upstream: &str, timeouts: Timeouts) -> Self {
        let upstream: Upstream = upstream.parse().unwrap();
        Server {
            forwarder: Forwarder::new(upstream, timeouts, &[]).unwrap(),
            ..Server::default()
        }
    }

    pub async fn start(self) -> Running {
        let files = console_server::console_files(Some(&fixture_dist())).unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let environment = api_contract::ConsoleEnvironment {
            kind: api_contract::EnvironmentKind::Live,
            name: "Production".to_owned(),
        };
        let app = console_server::app(App {
            forwarder: self.forwarder,
            files,
            environment,
            hosts: AllowedHosts::new(self.public_hosts.iter().copied()).unwrap(),
            max_requests_in_flight: self.max_requests_in_flight,
            health: self.health,
            metrics: self.metrics.clone(),
            access_log: console_server::AccessLog::default(),
        });
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let served = tokio::spawn(console_server::serve(
            listener,
            app,
            self.limits,
            self.metrics,
            async move {
                // Stopped when told to, not when the sender is dropped.
                if stopped.await.is_err() {
                    std::future::pending::<()>().await;
                }
            },
        ));
        Running {
            addr,
            stop: Some(stop),
            served,
        }
    }
}

/// An answer, read whole.
pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|v| v.to_str().unwrap())
    }

    pub fn error(&self) -> api_contract::ErrorDetail {
        serde_json::from_slice::<api_contract::ErrorBody>(&self.body)
            .unwrap_or_else(|e| panic!("not the contract's error body ({e}): {:?}", self.text()))
            .error
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Sends `method path` to `addr` with exactly `headers` (and `Host`), and reads the answer.
pub async fn send(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Body,
) -> Answer {
    let client: Client<HttpConnector, Body> = Client::builder(TokioExecutor::new()).build_http();
    let mut request = axum::http::Request::builder()
        .method(method)
        .uri(format!("http://{addr}{path}"));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = client.request(request.body(body).unwrap()).await.unwrap();
    let (parts, body) = response.into_parts();
    Answer {
        status: parts.status,
        headers: parts.headers,
        body: body.collect().await.unwrap().to_bytes().to_vec(),
    }
}

/// Posts the submission `{}` to `path` under `idempotency_key`: the fake upstream answers by
/// path, not by body.
pub async fn submit_empty(addr: SocketAddr, path: &str, idempotency_key: &str) -> Answer {
    let headers = [("idempotency-key", idempotency_key)];
    send(addr, "POST", path, &headers, Body::from("{}")).await
}

pub async fn get(addr: SocketAddr, path: &str) -> Answer {
    send(addr, "GET", path, &[], Body::empty()).await
}

/// Writes `raw` bytes as the request and returns the status line of the answer: for targets and
/// headers an HTTP client library would not send.
pub async fn send_raw(addr: SocketAddr, raw: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(raw.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    // Until the status line is in (the server keeps the connection open after it).
    while !answer.windows(2).any(|w| w == b"\r\n") {
        let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buffer))
            .await
            .expect("an answer within 10 s")
            .unwrap();
        if read == 0 {
            break;
        }
        answer.extend_from_slice(&buffer[..read]);
    }
    let text = String::from_utf8_lossy(&answer).into_owned();
    text.lines().next().unwrap_or_default().to_owned()
}
