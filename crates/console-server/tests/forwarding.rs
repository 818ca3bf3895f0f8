//! console-server in front of a fake upstream: what crosses in each direction, what never leaves
//! for another host, and what the console is told when the upstream fails.

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::StatusCode;
use common::{
    FakeUpstream, get, send, send_raw, start_server, start_server_trusting, submit_empty,
};
use console_server::Timeouts;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

/// Short enough for the fault tests, long enough that a busy machine never trips them elsewhere.
fn quick() -> Timeouts {
    Timeouts {
        live: Duration::from_secs(600),
        other: Duration::from_secs(10),
        connect: Duration::from_secs(10),
        request_body: Duration::from_secs(10),
    }
}

/// A fresh fake upstream, and console-server in front of it with the [`quick`] timeouts.
async fn quick_server() -> (FakeUpstream, SocketAddr) {
    let upstream = FakeUpstream::start().await;
    let server = start_server(&upstream.url(), quick()).await;
    (upstream, server)
}

#[tokio::test]
async fn only_the_contracts_headers_cross_and_the_upstream_sees_its_own_host() {
    let (upstream, server) = quick_server().await;
    let answer = send(
        server,
        "POST",
        "/v1/keys?expand=usage&x=%2F",
        &[
            ("authorization", "Bearer sk_test_123"),
            ("content-type", "application/json"),
            ("accept", "application/json"),
            ("idempotency-key", "key-0001"),
            ("cookie", "console_session=abc"),
            ("origin", "https://console.example"),
            ("host", "127.0.0.2:9999"),
            ("connection", "keep-alive, x-drop-me"),
            ("x-drop-me", "1"),
            ("x-forwarded-for", "10.0.0.1"),
            ("proxy-authorization", "Basic Zm9vOmJhcg=="),
            ("te", "trailers"),
        ],
        Body::from(r#"{"input":{}}"#),
    )
    .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text());

    let seen = upstream.seen();
    assert_eq!(seen.len(), 1);
    let request = &seen[0];
    assert_eq!(request.method, "POST");
    assert_eq!(request.target, "/v1/keys?expand=usage&x=%2F", "as sent");
    assert_eq!(request.body, br#"{"input":{}}"#);
    let header = |name: &str| request.headers.get(name).map(|v| v.to_str().unwrap());
    assert_eq!(header("authorization"), Some("Bearer sk_test_123"));
    assert_eq!(header("content-type"), Some("application/json"));
    assert_eq!(header("accept"), Some("application/json"));
    assert_eq!(header("idempotency-key"), Some("key-0001"));
    assert_eq!(header("host"), Some(upstream.addr.to_string().as_str()));
    for never in [
        "cookie",
        "origin",
        "x-drop-me",
        "x-forwarded-for",
        "proxy-authorization",
        "te",
    ] {
        assert_eq!(header(never), None, "{never} reached the upstream");
    }

    // Back: the body, its type, Retry-After and the request id; never a cookie or the
    // upstream's internal headers.
    assert_eq!(answer.header("content-type"), Some("application/json"));
    assert_eq!(answer.header("x-request-id"), Some("req_upstream_1"));
    assert_eq!(answer.header("retry-after"), Some("3"));
    assert_eq!(answer.header("set-cookie"), None);
    assert_eq!(answer.header("x-internal-host"), None);
    assert!(answer.text().contains("\"id\":\"key_1\""));
}

#[tokio::test]
async fn a_429_passes_through_unchanged() {
    let (_upstream, server) = quick_server().await;
    let answer = submit_empty(
        server,
        "/v1/actions/premium-search-people/run/async",
        "key-0002",
    )
    .await;
    assert_eq!(answer.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(answer.header("retry-after"), Some("7"));
    assert_eq!(
        answer.text(),
        r#"{"error":{"code":"rate_limited","message":"Slow down.","request_id":"req_429","retry_after":7.5}}"#
    );
}

#[tokio::test]
async fn path_tricks_never_reach_another_host() {
    let upstream = FakeUpstream::start().await;
    let canary = FakeUpstream::start().await;
    let server = start_server(&upstream.url(), quick()).await;
    let canary_host = canary.addr.to_string();
    for (trick, expected) in [
        // Not under /v1/: the console's own page, which never leaves this server.
        (
            format!("GET //{canary_host}/v1/workspace HTTP/1.1\r\nHost: localhost\r\n\r\n"),
            "200",
        ),
        (
            format!("GET /v1//{canary_host}/v1/workspace HTTP/1.1\r\nHost: localhost\r\n\r\n"),
            "404",
        ),
        (
            "GET /v1/../v1/workspace HTTP/1.1\r\nHost: localhost\r\n\r\n".to_owned(),
            "404",
        ),
        (
            "GET /v1/%2e%2e/admin HTTP/1.1\r\nHost: localhost\r\n\r\n".to_owned(),
            "404",
        ),
        (
            format!("GET /v1/runs/%2F%2F{canary_host} HTTP/1.1\r\nHost: localhost\r\n\r\n"),
            "400",
        ),
        (
            "GET /v1/runs\\..\\..\\admin HTTP/1.1\r\nHost: localhost\r\n\r\n".to_owned(),
            "404",
        ),
        (
            format!(
                "GET http://{canary_host}/v1/workspace HTTP/1.1\r\nHost: {canary_host}\r\n\r\n"
            ),
            "400",
        ),
        (
            format!("CONNECT {canary_host} HTTP/1.1\r\nHost: {canary_host}\r\n\r\n"),
            "405",
        ),
        (
            "TRACE /v1/workspace HTTP/1.1\r\nHost: localhost\r\n\r\n".to_owned(),
            "405",
        ),
    ] {
        let status = send_raw(server, &trick).await;
        assert!(
            status.starts_with(&format!("HTTP/1.1 {expected}")),
            "{trick:?} answered {status:?}"
        );
    }
    // Another site's Host header: the request goes to the upstream, as the upstream.
    let status = send_raw(
        server,
        &format!("GET /v1/workspace HTTP/1.1\r\nHost: {canary_host}\r\n\r\n"),
    )
    .await;
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    assert!(
        canary.seen().is_empty(),
        "the canary saw {:?}",
        canary.seen()
    );
    let seen = upstream.seen();
    assert_eq!(
        seen.len(),
        1,
        "only the plain request reached the upstream: {seen:?}"
    );
    assert_eq!(
        seen[0].headers.get("host").unwrap(),
        &upstream.addr.to_string()
    );
}

#[tokio::test]
async fn redirects_are_passed_back_not_followed() {
    let (upstream, server) = quick_server().await;
    let here = get(server, "/v1/runs/redirect-here").await;
    assert_eq!(here.status, StatusCode::FOUND);
    assert_eq!(
        here.header("location"),
        Some("/v1/workspace"),
        "back through this server"
    );
    let away = get(server, "/v1/runs/redirect-away").await;
    assert_eq!(away.status, StatusCode::FOUND);
    assert_eq!(
        away.header("location"),
        Some("https://elsewhere.example/v1/workspace")
    );
    let paths: Vec<_> = upstream.seen().into_iter().map(|s| s.target).collect();
    assert_eq!(
        paths,
        ["/v1/runs/redirect-here", "/v1/runs/redirect-away"],
        "nothing followed"
    );
}

#[tokio::test]
async fn an_upstream_that_is_down_is_a_502_in_the_contracts_form() {
    // A port that was free a moment ago: nothing listens there.
    let closed = TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap()
        .local_addr()
        .unwrap();
    let server = start_server(&format!("http://{closed}"), quick()).await;
    let answer = get(server, "/v1/workspace").await;
    assert_eq!(answer.status, StatusCode::BAD_GATEWAY);
    let error = answer.error();
    assert_eq!(error.code, "upstream_unreachable");
    assert!(
        error.message.contains(&format!("http://{closed}")),
        "{}",
        error.message
    );
    assert!(
        error
            .request_id
            .as_deref()
            .is_some_and(|id| id.starts_with("req_"))
    );
    assert_eq!(answer.header("x-request-id"), error.request_id.as_deref());
}

/// A server that accepts and then does `then` with the connection, instead of HTTP.
async fn misbehaving(then: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            match then {
                "reset" => {
                    // SO_LINGER 0: closing sends a reset rather than an orderly end.
                    let std_stream = stream.into_std().unwrap();
                    socket2::SockRef::from(&std_stream)
                        .set_linger(Some(Duration::ZERO))
                        .unwrap();
                    drop(std_stream);
                }
                "not-http" => {
                    let _ = stream.write_all(b"SSH-2.0-OpenSSH_9.2\r\n").await;
                    let _ = stream.shutdown().await;
                }
                _ => unreachable!(),
            }
        }
    });
    format!("http://{addr}")
}

#[tokio::test]
async fn a_reset_and_an_answer_that_is_not_http_are_502s() {
    for fault in ["reset", "not-http"] {
        let server = start_server(&misbehaving(fault).await, quick()).await;
        let answer = get(server, "/v1/workspace").await;
        assert_eq!(answer.status, StatusCode::BAD_GATEWAY, "{fault}");
        assert_eq!(answer.error().code, "upstream_unreachable", "{fault}");
    }
}

#[tokio::test]
async fn a_slow_upstream_is_a_504_after_the_timeout_not_a_hang() {
    let upstream = FakeUpstream::start().await;
    let two_seconds = Timeouts {
        other: Duration::from_secs(2),
        ..quick()
    };
    let server = start_server(&upstream.url(), two_seconds).await;
    let started = Instant::now();
    let answer = get(server, "/v1/runs/slow?hold_ms=30000").await;
    assert_eq!(answer.status, StatusCode::GATEWAY_TIMEOUT);
    assert_eq!(answer.error().code, "upstream_timeout");
    assert!(
        answer.error().message.contains("2 s"),
        "{}",
        answer.error().message
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_live_submission_may_take_longer_than_other_requests() {
    // Held 90 s by the upstream, as a provider holds a live run until its lease ends; the short
    // timeout (the default, 30 s) does not apply to it.
    let upstream = FakeUpstream::start().await;
    let server = start_server(&upstream.url(), Timeouts::default()).await;
    let started = Instant::now();
    let answer = submit_empty(
        server,
        "/v1/actions/premium-search-people/run/live?hold_ms=90000",
        "key-live-90",
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    assert_eq!(answer.text(), r#"{"live":"done"}"#);
    assert!(started.elapsed() >= Duration::from_secs(90));
}

#[tokio::test]
async fn a_huge_answer_streams_through_whole() {
    let (_upstream, server) = quick_server().await;
    let answer = get(server, "/v1/runs/huge").await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.body.len(), 64 * 1024 * 1024);
}

#[tokio::test]
async fn a_body_over_one_mib_is_refused_before_it_is_forwarded() {
    let (upstream, server) = quick_server().await;
    let over = vec![b'a'; console_server::MAX_REQUEST_BODY_BYTES + 1];
    let answer = send(
        server,
        "POST",
        "/v1/actions/premium-search-people/run/async",
        &[("content-type", "application/json")],
        Body::from(over.clone()),
    )
    .await;
    assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(answer.error().code, "request_too_large");
    // 2 MiB without a length (chunked), with a credential: read up to the limit and refused,
    // so neither its headers nor its first MiB reach the upstream.
    let two_mib = vec![b'a'; 2 * 1024 * 1024];
    let chunks = futures_util::stream::iter(
        two_mib
            .chunks(64 * 1024)
            .map(|c| Ok::<_, std::io::Error>(bytes::Bytes::copy_from_slice(c)))
            .collect::<Vec<_>>(),
    );
    let answer = send(
        server,
        "POST",
        "/v1/actions/premium-search-people/run/async",
        &[
            ("authorization", "Bearer sk_live_CHUNKED"),
            ("content-type", "application/json"),
            ("idempotency-key", "key-chunked-1"),
        ],
        Body::from_stream(chunks),
    )
    .await;
    assert_eq!(
        answer.status,
        StatusCode::PAYLOAD_TOO_LARGE,
        "{}",
        answer.text()
    );
    assert_eq!(answer.error().code, "request_too_large");
    assert!(upstream.seen().is_empty(), "{:?}", upstream.seen().len());
    // And one just at the limit goes.
    let at_limit = vec![b'a'; console_server::MAX_REQUEST_BODY_BYTES];
    let answer = send(server, "POST", "/v1/keys", &[], Body::from(at_limit)).await;
    assert_eq!(answer.status, StatusCode::CREATED);
}

#[tokio::test]
async fn tls_to_the_upstream_is_verified() {
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let cert = certified.cert.der().clone();
    let key = rustls_pki_types::PrivateKeyDer::Pkcs8(certified.signing_key.serialize_der().into());
    let tls = rustls::ServerConfig::builder_with_provider(std::sync::Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(vec![cert.clone()], key)
    .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(std::sync::Arc::new(tls));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(stream) = acceptor.accept(stream).await else {
                    return;
                };
                let service = hyper::service::service_fn(|_request| async {
                    Ok::<_, std::convert::Infallible>(
                        axum::http::Response::builder()
                            .header("content-type", "application/json")
                            .body(http_body_util::Full::new(bytes::Bytes::from_static(
                                br#"{"over":"tls"}"#,
                            )))
                            .unwrap(),
                    )
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    let url = format!("https://localhost:{port}");

    let untrusted = start_server(&url, quick()).await;
    let refused = get(untrusted, "/v1/workspace").await;
    assert_eq!(refused.status, StatusCode::BAD_GATEWAY);
    let error = refused.error();
    assert_eq!(error.code, "upstream_unreachable");
    assert!(error.message.contains("securely"), "{}", error.message);
    assert!(error.message.contains("--upstream-ca"), "{}", error.message);

    let trusting = start_server_trusting(&url, quick(), &[cert]).await;
    let answer = get(trusting, "/v1/workspace").await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    assert_eq!(answer.text(), r#"{"over":"tls"}"#);
}

#[tokio::test]
async fn the_console_is_served_beside_the_api() {
    let (upstream, server) = quick_server().await;
    let page = get(server, "/runs/0b7c8a4e").await;
    assert_eq!(page.status, StatusCode::OK);
    let csp = page.header("content-security-policy").unwrap();
    assert!(
        csp.contains("connect-src 'self';"),
        "the API is on this origin: {csp}"
    );
    let environment = get(server, api_contract::ENVIRONMENT_PATH).await;
    assert_eq!(environment.status, StatusCode::OK);
    assert_eq!(environment.header("cache-control"), Some("no-cache"));
    assert_eq!(environment.text(), r#"{"kind":"live","name":"Production"}"#);
    assert!(upstream.seen().is_empty(), "files never reach the upstream");
}
