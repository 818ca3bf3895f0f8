//! The console-server binary as a service manager runs it: the access log on stderr, and a stop
//! on SIGTERM that lets a live request in flight finish.

mod common;

use std::process::Stdio;
use std::time::Duration;

use axum::body::Body;
use axum::http::StatusCode;
use common::{FakeUpstream, fixture_dist, send, submit_empty};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::{Child, Command};

/// The binary in front of `upstream`, and the address from its start-up line.
async fn spawn(upstream: &str) -> (Child, std::net::SocketAddr) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_console-server"))
        .args(["--addr", "127.0.0.1:0", "--upstream", upstream, "--dist"])
        .arg(fixture_dist())
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
    (child, url.trim_start_matches("http://").parse().unwrap())
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
