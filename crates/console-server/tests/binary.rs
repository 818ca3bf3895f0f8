//! The console-server binary as a service manager runs it: the access log on stderr, a stop on
//! SIGTERM that lets a live request in flight finish, a drain for load balancers, metrics on
//! their own address, and the flags it refuses to start with.

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
    let mut child = Command::new(env!("CARGO_BIN_EXE_console-server"))
        .args(["--addr", "127.0.0.1:0", "--upstream", upstream, "--dist"])
        .arg(fixture_dist())
        .args(flags)
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
    let start: serde_json::Value = serde_json::from_str(&line).unwrap();
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

#[tokio::test]
async fn the_access_log_has_a_line_per_request_and_no_secret() {
    let upstream = FakeUpstream::start().await;
    let (child, addr) = spawn(&upstream.url()).await;
    let bearer = "Bearer sk_live_BEARERSECRET_0123456789";
    let created = send(
        addr,
        "POST",
        "/v1/keys?note=q",
        &[
            ("authorization", bearer),
            ("content-type", "application/json"),
        ],
        Body::from(r#"{"name":"BODYSECRET key"}"#),
    )
    .await;
    assert_eq!(created.status, StatusCode::CREATED);
    assert!(created.text().contains("sk_live_NEWSECRET_abc123"));
    let missing = send(
        addr,
        "GET",
        "/v1/nothing",
        &[("authorization", bearer)],
        Body::empty(),
    )
    .await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    sigterm(&child);
    let log = stderr_of(child).await;

    for secret in ["BEARERSECRET", "NEWSECRET", "BODYSECRET", "note=q"] {
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
    let mut silent = tokio::net::TcpStream::connect(addr).await.unwrap();
    tokio::io::AsyncWriteExt::write_all(&mut silent, b"GET / HTTP/1.1\r\n")
        .await
        .unwrap();
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(10), silent.read_to_end(&mut rest)).await;
    assert!(closed.is_ok(), "the slow head was never closed");
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
    assert!(log.contains("warning"), "{log}");
}
