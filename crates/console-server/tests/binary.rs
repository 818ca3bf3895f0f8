//! The console-server binary as a service manager runs it: the access log on stderr, a stop on
//! SIGTERM that lets a live request in flight finish, a drain for load balancers, metrics on
//! their own address, the flags it refuses to start with, and the same flags given as
//! environment variables (a systemd unit's `Environment=`, a container's `-e`).

mod common;

use std::process::Stdio;
use std::time::Duration;

use axum::body::Body;
use axum::http::StatusCode;
use common::{FakeUpstream, fixture_dist, get, send, send_raw, submit_empty};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::{Child, Command};

/// The binary in front of `upstream`, and the address from its start-up line.
async fn spawn(upstream: &str) -> (Child, std::net::SocketAddr) {
    let (child, start) = spawn_with(upstream, &[]).await;
    (child, start.addr)
}

/// What the start-up line says.
struct StartUp {
    addr: std::net::SocketAddr,
    metrics: Option<String>,
}

/// The binary in front of `upstream` with `flags` besides.
async fn spawn_with(upstream: &str, flags: &[&str]) -> (Child, StartUp) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_console-server"));
    command
        .args(["--addr", "127.0.0.1:0", "--upstream", upstream, "--dist"])
        .arg(fixture_dist())
        .args(flags);
    let (child, start) = started(command).await;
    // Named after the upstream's host unless --environment says otherwise; live by default.
    assert_eq!(start["environment"]["kind"], "live");
    assert_eq!(
        start["environment"]["name"],
        upstream.trim_start_matches("http://")
    );
    let url = start["url"].as_str().unwrap();
    let addr = url.trim_start_matches("http://").parse().unwrap();
    let metrics = start["metrics"].as_str().map(str::to_owned);
    (child, StartUp { addr, metrics })
}

/// Starts `command` (the binary, its flags and variables), its output read here; resolves with
/// its start-up line, as JSON.
async fn started(mut command: Command) -> (Child, serde_json::Value) {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .await
        .unwrap();
    let start = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
    (child, start)
}

fn sigterm(child: &Child) {
    let pid = child.id().expect("running") as libc::pid_t;
    // SAFETY: kill(2) on the child's pid; it has not been waited for, so the pid is still its.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
}

async fn stderr_of(mut child: Child) -> String {
    let mut stderr = child.stderr.take().unwrap();
    let status = tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .expect("it stops within 10 s")
        .unwrap();
    assert!(status.success(), "{status:?}");
    let mut text = String::new();
    stderr.read_to_string(&mut text).await.unwrap();
    text
}

/// Starts a request's head and never ends it; resolves once the server has closed the
/// connection (`--header-timeout-secs`), within 10 s.
async fn send_a_head_that_never_ends(addr: std::net::SocketAddr) {
    let mut silent = tokio::net::TcpStream::connect(addr).await.unwrap();
    tokio::io::AsyncWriteExt::write_all(&mut silent, b"GET / HTTP/1.1\r\n")
        .await
        .unwrap();
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(10), silent.read_to_end(&mut rest)).await;
    assert!(closed.is_ok(), "the slow head was never closed");
}

/// A bearer token, as the console sends one.
const BEARER: &str = "Bearer sk_live_BEARERSECRET_0123456789";

/// What [`create_a_key`] sends and receives that no log line may hold: the bearer, the new key's
/// secret, the body, the query.
const SECRETS: [&str; 4] = ["BEARERSECRET", "NEWSECRET", "BODYSECRET", "note=q"];

/// `POST /v1/keys` with a bearer, a query and a body, answered 201 with a new key's secret.
async fn create_a_key(addr: std::net::SocketAddr) -> common::Answer {
    let created = send(
        addr,
        "POST",
        "/v1/keys?note=q",
        &[
            ("authorization", BEARER),
            ("content-type", "application/json"),
        ],
        Body::from(r#"{"name":"BODYSECRET key"}"#),
    )
    .await;
    assert_eq!(created.status, StatusCode::CREATED);
    created
}

#[tokio::test]
async fn the_access_log_has_a_line_per_request_and_no_secret() {
    let upstream = FakeUpstream::start().await;
    let (child, addr) = spawn(&upstream.url()).await;
    let created = create_a_key(addr).await;
    assert!(created.text().contains("sk_live_NEWSECRET_abc123"));
    let missing = send(
        addr,
        "GET",
        "/v1/nothing",
        &[("authorization", BEARER)],
        Body::empty(),
    )
    .await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    sigterm(&child);
    let log = stderr_of(child).await;

    for secret in SECRETS {
        assert!(!log.contains(secret), "{secret} in the log:\n{log}");
    }
    let lines: Vec<&str> = log.lines().filter(|l| l.contains("request{")).collect();
    assert_eq!(lines.len(), 2, "one line per request:\n{log}");
    assert!(
        lines[0].contains("method=POST path=/v1/keys") && lines[0].contains("status=201"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].contains("status=404") && lines[1].contains("ms="),
        "{}",
        lines[1]
    );
    // The time, first, as RFC 3339.
    assert!(
        lines[0].starts_with("20") && lines[0].contains('T'),
        "{}",
        lines[0]
    );
}

#[tokio::test]
async fn sigterm_lets_a_live_request_finish_and_takes_no_new_one() {
    let upstream = FakeUpstream::start().await;
    let (child, addr) = spawn(&upstream.url()).await;
    let live = tokio::spawn(async move {
        submit_empty(
            addr,
            "/v1/actions/premium-search-people/run/live?hold_ms=3000",
            "key-live-term",
        )
        .await
    });
    // The request is at the upstream when the signal comes.
    while upstream.seen().is_empty() {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    sigterm(&child);
    // New connections are refused once the signal is handled (the listener is closed).
    let mut refused = false;
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(addr).await.is_err() {
            refused = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(refused, "still taking connections after SIGTERM");
    let answer = live.await.unwrap();
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    assert_eq!(answer.text(), r#"{"live":"done"}"#);
    let log = stderr_of(child).await;
    assert!(log.contains("stopping"), "{log}");
    assert!(log.contains("status=200"), "the live request logged: {log}");
}

#[tokio::test]
async fn the_log_escapes_what_is_not_printable_and_has_a_line_for_a_head_that_never_came() {
    let upstream = FakeUpstream::start().await;
    let (child, start) = spawn_with(&upstream.url(), &["--header-timeout-secs", "1"]).await;
    let addr = start.addr;
    // A right-to-left override and an escape code: percent-encoded, as a browser sends them, the
    // path reaches the log (escaped or not, they are printable there); as raw bytes, hyper
    // refuses the request before routing, and the log has a line for it without them.
    let encoded = get(addr, "/v1/runs/abc%E2%80%AEfdp.exe%1B[2J").await;
    assert_eq!(encoded.status, StatusCode::BAD_REQUEST);
    let status = send_raw(
        addr,
        "GET /v1/runs/abc\u{202e}fdp.exe\u{1b}[2J HTTP/1.1\r\nHost: localhost\r\n\r\n",
    )
    .await;
    assert!(status.starts_with("HTTP/1.1 400"), "{status}");
    // A head that never ends: closed after a second, with a line saying so.
    send_a_head_that_never_ends(addr).await;
    // A head hyper cannot parse.
    let garbled = send_raw(addr, "GET /\x01 HTTP/1.1\r\nHost: localhost\r\n\r\n").await;
    assert!(garbled.starts_with("HTTP/1.1 400"), "{garbled}");
    sigterm(&child);
    let log = stderr_of(child).await;

    assert!(
        !log.contains('\u{202e}') && !log.contains('\u{1b}'),
        "{log}"
    );
    assert!(
        log.contains("path=/v1/runs/abc%E2%80%AEfdp.exe%1B[2J"),
        "the encoded path as sent:\n{log}"
    );
    let refused: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("request{method=- path=-}"))
        .collect();
    assert!(
        refused.iter().any(|l| l.contains("status=408")),
        "a line for the timed-out head:\n{log}"
    );
    assert!(
        refused.iter().any(|l| l.contains("status=400")),
        "a line for the garbled head:\n{log}"
    );
}

#[tokio::test]
async fn sigterm_with_a_drain_answers_503_on_healthz_while_it_still_serves() {
    let upstream = FakeUpstream::start().await;
    let (child, start) = spawn_with(&upstream.url(), &["--drain-secs", "3"]).await;
    let addr = start.addr;
    assert_eq!(get(addr, "/healthz").await.status, StatusCode::OK);
    sigterm(&child);
    let draining = async {
        while get(addr, "/healthz").await.status != StatusCode::SERVICE_UNAVAILABLE {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(5), draining)
        .await
        .expect("/healthz answers 503 once the signal is handled");
    // New connections are still taken and served while the load balancer notices.
    let served = get(addr, "/v1/workspace").await;
    assert_eq!(served.status, StatusCode::OK, "{}", served.text());
    let log = stderr_of(child).await;
    assert!(log.contains("draining"), "{log}");
    assert!(log.contains("stopping"), "{log}");
}

#[tokio::test]
async fn metrics_are_served_on_their_own_address_only_when_asked() {
    let upstream = FakeUpstream::start().await;
    let (child, start) = spawn_with(&upstream.url(), &["--metrics-addr", "127.0.0.1:0"]).await;
    get(start.addr, "/v1/workspace").await;
    let url = start
        .metrics
        .expect("the start-up line names the metrics' URL");
    let metrics_addr = url
        .trim_start_matches("http://")
        .trim_end_matches("/metrics")
        .parse()
        .unwrap();
    let scrape = get(metrics_addr, "/metrics").await;
    assert_eq!(scrape.status, StatusCode::OK);
    assert!(
        scrape
            .header("content-type")
            .is_some_and(|t| t.starts_with("application/openmetrics-text")),
        "{:?}",
        scrape.header("content-type")
    );
    assert!(
        scrape
            .text()
            .contains(r#"console_server_requests_total{route="GET /v1/workspace",status="2xx"} 1"#),
        "{}",
        scrape.text()
    );
    // Not on the console's own address.
    let not_here = get(start.addr, "/metrics").await;
    assert!(
        !not_here.text().contains("console_server_"),
        "{}",
        not_here.text()
    );
    sigterm(&child);
    stderr_of(child).await;

    let (child, start) = spawn_with(&upstream.url(), &[]).await;
    assert!(start.metrics.is_none());
    sigterm(&child);
    stderr_of(child).await;
}

#[tokio::test]
async fn a_plain_http_upstream_on_a_public_address_needs_an_explicit_flag() {
    let refused = Command::new(env!("CARGO_BIN_EXE_console-server"))
        .args([
            "--addr",
            "127.0.0.1:0",
            "--upstream",
            "http://api.provider.example",
            "--dist",
        ])
        .arg(fixture_dist())
        .output()
        .await
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("--allow-plain-http-upstream"), "{said}");
    assert!(refused.stdout.is_empty(), "it never started");

    let (child, _start) = spawn_with(
        "http://api.provider.example",
        &["--allow-plain-http-upstream"],
    )
    .await;
    sigterm(&child);
    let log = stderr_of(child).await;
    assert!(
        log.contains("WARN http://api.provider.example is plain http"),
        "{log}"
    );
}

/// The access log's lines of `log`, as their paths.
fn logged_paths(log: &str) -> Vec<String> {
    log.lines()
        .filter_map(|line| line.split("path=").nth(1))
        .filter_map(|rest| rest.split('}').next())
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn every_flag_can_be_an_environment_variable_and_a_flag_given_wins() {
    let upstream = FakeUpstream::start().await;
    let mut command = Command::new(env!("CARGO_BIN_EXE_console-server"));
    command
        .env("CONSOLE_SERVER_UPSTREAM", upstream.url())
        .env("CONSOLE_SERVER_ADDR", "127.0.0.1:0")
        .env("CONSOLE_SERVER_DIST", fixture_dist())
        .env("CONSOLE_SERVER_ENVIRONMENT", "Staging")
        .env("CONSOLE_SERVER_ENVIRONMENT_KIND", "sandbox")
        .env(
            "CONSOLE_SERVER_PUBLIC_HOST",
            "console.example.com,ops.example.com",
        )
        .env("CONSOLE_SERVER_LOG_HEALTH_CHECKS", "true")
        // Given both ways: the flag's value is the one taken.
        .env("CONSOLE_SERVER_HEADER_TIMEOUT_SECS", "600")
        .args(["--header-timeout-secs", "1"]);
    let (child, start) = started(command).await;
    assert_eq!(start["environment"]["name"], "Staging", "{start}");
    assert_eq!(start["environment"]["kind"], "sandbox", "{start}");
    assert_eq!(start["upstream"], upstream.url(), "{start}");
    let addr: std::net::SocketAddr = start["url"]
        .as_str()
        .unwrap()
        .trim_start_matches("http://")
        .parse()
        .unwrap();
    // Both names of the comma-separated list are served; any other is refused.
    for (host, status) in [
        ("console.example.com", "200"),
        ("ops.example.com", "200"),
        ("elsewhere.example.com", "421"),
    ] {
        let answer = send_raw(
            addr,
            &format!("GET /healthz HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
        )
        .await;
        assert!(
            answer.starts_with(&format!("HTTP/1.1 {status}")),
            "{host}: {answer}"
        );
    }
    // The header timeout is the flag's second, not the variable's ten minutes.
    let mut silent = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(5), silent.read_to_end(&mut rest)).await;
    assert!(closed.is_ok(), "an idle connection still open after 5 s");
    sigterm(&child);
    let log = stderr_of(child).await;
    // CONSOLE_SERVER_LOG_HEALTH_CHECKS: the probes have their lines.
    assert_eq!(
        logged_paths(&log)
            .iter()
            .filter(|path| *path == "/healthz")
            .count(),
        3,
        "{log}"
    );
}

#[tokio::test]
async fn health_checks_have_no_access_log_line_unless_asked_for() {
    let upstream = FakeUpstream::start().await;
    let (child, addr) = spawn(&upstream.url()).await;
    assert_eq!(get(addr, "/healthz").await.status, StatusCode::OK);
    assert_eq!(get(addr, "/v1/workspace").await.status, StatusCode::OK);
    assert_eq!(get(addr, "/healthz/").await.status, StatusCode::OK);
    sigterm(&child);
    let log = stderr_of(child).await;
    // Only the probe itself is left out: `/healthz/` is the console's files, a request like any.
    assert_eq!(logged_paths(&log), ["/v1/workspace", "/healthz/"], "{log}");

    let (child, start) = spawn_with(&upstream.url(), &["--log-health-checks"]).await;
    assert_eq!(get(start.addr, "/healthz").await.status, StatusCode::OK);
    sigterm(&child);
    let log = stderr_of(child).await;
    assert_eq!(logged_paths(&log), ["/healthz"], "{log}");
}

#[tokio::test]
async fn the_json_log_is_one_object_a_line_with_the_same_fields_and_no_secret() {
    let upstream = FakeUpstream::start().await;
    let (child, start) = spawn_with(
        &upstream.url(),
        &["--log-format", "json", "--header-timeout-secs", "1"],
    )
    .await;
    let addr = start.addr;
    let created = create_a_key(addr).await;
    let request_id = created.header("x-request-id").unwrap_or("-").to_owned();
    // A path whose characters a terminal would act on: JSON escapes them, and they stay escaped.
    get(addr, "/v1/runs/abc%E2%80%AEfdp.exe%1B[2J").await;
    // A head that never ends: its line says so, without a request.
    send_a_head_that_never_ends(addr).await;
    sigterm(&child);
    let log = stderr_of(child).await;

    for secret in SECRETS {
        assert!(!log.contains(secret), "{secret} in the log:\n{log}");
    }
    let events: Vec<serde_json::Value> = log
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    for event in &events {
        assert!(
            event["timestamp"]
                .as_str()
                .is_some_and(|t| t.starts_with("20")),
            "{event}"
        );
        assert!(event["level"].is_string(), "{event}");
    }
    let requests: Vec<&serde_json::Value> = events
        .iter()
        .filter(|e| e["span"]["name"] == "request")
        .collect();
    assert_eq!(requests.len(), 3, "{log}");
    let created_line = requests[0];
    assert_eq!(created_line["span"]["method"], "POST", "{created_line}");
    assert_eq!(created_line["span"]["path"], "/v1/keys", "{created_line}");
    assert_eq!(created_line["status"], 201, "{created_line}");
    assert!(created_line["ms"].is_u64(), "{created_line}");
    assert_eq!(
        created_line["request_id"],
        request_id.as_str(),
        "{created_line}"
    );
    assert_eq!(requests[1]["status"], 400, "{}", requests[1]);
    assert_eq!(requests[2]["span"]["path"], "-", "{}", requests[2]);
    assert_eq!(requests[2]["status"], 408, "{}", requests[2]);
    assert!(
        events.iter().any(|e| e["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("stopping"))),
        "{log}"
    );
}

#[tokio::test]
async fn the_log_level_leaves_out_what_is_less_severe() {
    let (child, start) = spawn_with(
        "http://api.provider.example",
        &["--allow-plain-http-upstream", "--log-level", "warn"],
    )
    .await;
    get(start.addr, "/healthz").await;
    get(start.addr, "/").await;
    sigterm(&child);
    let log = stderr_of(child).await;
    // The warning stays; the start, the requests and the stop (info) are left out.
    assert!(log.contains("WARN"), "{log}");
    assert!(logged_paths(&log).is_empty(), "{log}");
    assert!(!log.contains("stopping"), "{log}");

    let refused = Command::new(env!("CARGO_BIN_EXE_console-server"))
        .args(["--upstream", "http://127.0.0.1:9", "--log-level", "loud"])
        .output()
        .await
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("--log-level"), "{said}");
}
