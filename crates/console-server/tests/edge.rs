//! console-server as an edge server, one rule a test: only the contract's routes reach the
//! upstream, every connection has a time limit, the caps answer 503, nothing it returns can run
//! as a page of its origin, and it answers only for its own hosts.

mod common;

use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::StatusCode;
use common::{FakeUpstream, Server, get, send, send_raw};
use console_server::{ConnectionLimits, Timeouts};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const API_CSP: &str = "default-src 'none'; frame-ancestors 'none'; sandbox";

fn timeouts() -> Timeouts {
    Timeouts {
        other: Duration::from_secs(10),
        ..Timeouts::default()
    }
}

/// Short enough to watch a test wait for them, long enough that a busy machine never trips them
/// for a client that sends at once.
fn quick_limits() -> ConnectionLimits {
    ConnectionLimits {
        header: Duration::from_secs(2),
        ..ConnectionLimits::default()
    }
}

/// Whether the server closes `stream` within `within`, reading (and dropping) whatever it sends.
async fn closed_within(stream: &mut TcpStream, within: Duration) -> bool {
    let mut buffer = [0u8; 1024];
    let deadline = Instant::now() + within;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, stream.read(&mut buffer)).await {
            Err(_elapsed) => return false,
            Ok(Ok(0) | Err(_)) => return true,
            Ok(Ok(_)) => {}
        }
    }
}

#[tokio::test]
async fn only_the_contracts_routes_and_methods_reach_the_upstream() {
    let upstream = FakeUpstream::start().await;
    let server = Server::in_front_of(&upstream.url(), timeouts())
        .start()
        .await
        .addr;
    for (method, target, status) in [
        // Paths that a server behind might read as another path.
        ("GET", "/v1/..;/admin", "404"),
        ("GET", "/v1/runs/..;/admin", "404"),
        ("GET", "/v1/runs/..;", "400"),
        ("GET", "/v1/%252e%252e/admin", "404"),
        ("GET", "/v1/runs/%252e%252e", "400"),
        ("GET", "/v1/runs/%%32%65%%32%65", "400"),
        ("GET", "/v1/runs/%C0%AE%C0%AE", "400"),
        ("GET", "/v1/runs/%EF%BC%8E%EF%BC%8E", "400"),
        ("GET", "/v1/runs/r1;jsessionid=x/outputs", "400"),
        ("GET", "/v1/keys/%2e%2e", "400"),
        ("GET", "/v1/runs/r1/outputs/..", "404"),
        ("GET", "/v1/admin", "404"),
        ("GET", "/v1", "404"),
        // Methods the contract's routes do not take.
        ("PUT", "/v1/workspace", "405"),
        ("PATCH", "/v1/workspace", "405"),
        ("PURGE", "/v1/workspace", "405"),
        ("PROPFIND", "/v1/workspace", "405"),
        ("DELETE", "/v1/runs/r1", "405"),
        ("OPTIONS", "/v1/keys", "405"),
        ("HEAD", "/v1/runs", "405"),
    ] {
        let status_line = send_raw(
            server,
            &format!("{method} {target} HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n"),
        )
        .await;
        assert!(
            status_line.starts_with(&format!("HTTP/1.1 {status}")),
            "{method} {target} answered {status_line:?}"
        );
    }
    // Fullwidth dots as UTF-8 bytes on the wire, which no client library would send.
    let fullwidth = send_raw(
        server,
        "GET /v1/runs/\u{ff0e}\u{ff0e}/outputs HTTP/1.1\r\nHost: localhost\r\n\r\n",
    )
    .await;
    assert!(
        fullwidth.starts_with("HTTP/1.1 400"),
        "fullwidth dots answered {fullwidth:?}"
    );
    assert!(
        upstream.seen().is_empty(),
        "the upstream saw {:?}",
        upstream.seen()
    );

    // The refusals are the contract's error body, and a 405 names the route's methods.
    let refused = send(server, "PUT", "/v1/keys", &[], Body::empty()).await;
    assert_eq!(refused.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(refused.header("allow"), Some("GET, POST"));
    assert_eq!(refused.error().code, "method_not_allowed");
    let bad_id = get(server, "/v1/runs/%252e%252e").await;
    assert_eq!(bad_id.error().code, "invalid_path");
    let none = get(server, "/v1/..;/admin").await;
    assert_eq!(none.error().code, "not_found");

    // Every route of the contract goes, the query as sent.
    for endpoint in api_contract::Endpoint::ALL {
        let path = endpoint
            .path()
            .replace("{action}", "premium-search-people")
            .replace("{id}", "3f2b6c1e-0d4a-4e8b-9a57-1c2d3e4f5a6b");
        let answer = send(
            server,
            endpoint.method().as_str(),
            &format!("{path}?q=%2F..%2F"),
            &[("idempotency-key", "key-route-0001")],
            Body::empty(),
        )
        .await;
        assert_ne!(answer.status, StatusCode::METHOD_NOT_ALLOWED, "{path}");
        assert_ne!(answer.status, StatusCode::BAD_REQUEST, "{path}");
    }
    let seen: Vec<String> = upstream
        .seen()
        .into_iter()
        .map(|s| format!("{} {}", s.method, s.target))
        .collect();
    assert_eq!(seen.len(), api_contract::Endpoint::ALL.len(), "{seen:?}");
    assert!(seen.iter().all(|s| s.ends_with("?q=%2F..%2F")), "{seen:?}");
}

#[tokio::test]
async fn slow_clients_are_closed_by_the_header_timeout_while_others_are_served() {
    let upstream = FakeUpstream::start().await;
    let server = Server {
        limits: quick_limits(),
        ..Server::in_front_of(&upstream.url(), timeouts())
    }
    .start()
    .await
    .addr;
    // Slowloris: 50 connections, each sending its head a byte every 200 ms, never finishing.
    let started = Instant::now();
    let mut slow = Vec::new();
    for _ in 0..50 {
        slow.push(tokio::spawn(async move {
            let mut stream = TcpStream::connect(server).await.unwrap();
            let head = b"GET /v1/workspace HTTP/1.1\r\nHost: localhost\r\nX-Slow: ";
            for byte in head.iter().chain(std::iter::repeat(&b'a')) {
                if stream.write_all(&[*byte]).await.is_err() {
                    return started.elapsed();
                }
                if let Ok(Ok(0) | Err(_)) =
                    tokio::time::timeout(Duration::from_millis(200), stream.read(&mut [0u8; 64]))
                        .await
                {
                    return started.elapsed();
                }
                assert!(started.elapsed() < Duration::from_secs(30), "never closed");
            }
            unreachable!()
        }));
    }
    // Meanwhile a client that sends its request at once is served.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let served = get(server, "/v1/workspace").await;
    assert_eq!(served.status, StatusCode::OK, "{}", served.text());
    for connection in slow {
        let closed_after = connection.await.unwrap();
        assert!(
            closed_after >= Duration::from_secs(2) && closed_after < Duration::from_secs(10),
            "closed after {closed_after:?}"
        );
    }
    assert_eq!(upstream.seen().len(), 1, "only the whole request went");
}

#[tokio::test]
async fn a_connection_that_sends_nothing_or_idles_after_an_answer_is_closed() {
    let server = Server {
        limits: quick_limits(),
        ..Server::default()
    }
    .start()
    .await
    .addr;
    let mut silent = TcpStream::connect(server).await.unwrap();
    assert!(closed_within(&mut silent, Duration::from_secs(8)).await);

    // Kept alive after an answer, then idle: closed the same way.
    let mut kept = TcpStream::connect(server).await.unwrap();
    kept.write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let mut buffer = [0u8; 1024];
    let read = kept.read(&mut buffer).await.unwrap();
    assert!(buffer[..read].starts_with(b"HTTP/1.1 200"));
    let idle_from = Instant::now();
    assert!(closed_within(&mut kept, Duration::from_secs(8)).await);
    assert!(idle_from.elapsed() >= Duration::from_millis(1500));
}

#[tokio::test]
async fn over_the_connection_cap_a_client_gets_a_503_in_the_contracts_form() {
    let upstream = FakeUpstream::start().await;
    let server = Server {
        limits: ConnectionLimits {
            max_connections: 4,
            ..ConnectionLimits::default()
        },
        ..Server::in_front_of(&upstream.url(), timeouts())
    }
    .start()
    .await
    .addr;
    let mut held = Vec::new();
    for _ in 0..4 {
        let mut stream = TcpStream::connect(server).await.unwrap();
        // One request each, so the connection is surely counted before the next one comes.
        stream
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
            .await
            .unwrap();
        let mut buffer = [0u8; 1024];
        let read = stream.read(&mut buffer).await.unwrap();
        assert!(buffer[..read].starts_with(b"HTTP/1.1 200"));
        held.push(stream);
    }
    let refused = get(server, "/v1/workspace").await;
    assert_eq!(refused.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(refused.error().code, "server_busy");
    assert_eq!(refused.header("retry-after"), Some("5"));
    assert_eq!(refused.header("content-security-policy"), Some(API_CSP));
    assert!(upstream.seen().is_empty());
    // One closes: the next client is served.
    drop(held.pop());
    let served = async {
        loop {
            let answer = get(server, "/v1/workspace").await;
            if answer.status == StatusCode::OK {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(10), served)
        .await
        .expect("served once a connection closed");
}

#[tokio::test]
async fn over_the_cap_of_requests_in_flight_a_request_gets_a_503_and_never_leaves() {
    let upstream = FakeUpstream::start().await;
    let server = Server {
        max_requests_in_flight: 2,
        ..Server::in_front_of(&upstream.url(), timeouts())
    }
    .start()
    .await
    .addr;
    let held: Vec<_> = (0..2)
        .map(|_| tokio::spawn(get(server, "/v1/runs/slow?hold_ms=3000")))
        .collect();
    while upstream.seen().len() < 2 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let refused = get(server, "/v1/workspace").await;
    assert_eq!(refused.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(refused.error().code, "server_busy");
    assert_eq!(refused.header("retry-after"), Some("2"));
    assert_eq!(upstream.seen().len(), 2, "the refused request never left");
    // The console's files and the health check are not held up by the API's requests.
    assert_eq!(get(server, "/healthz").await.status, StatusCode::OK);
    for request in held {
        assert_eq!(request.await.unwrap().status, StatusCode::OK);
    }
    assert_eq!(get(server, "/v1/workspace").await.status, StatusCode::OK);
}

#[tokio::test]
async fn a_body_that_stops_halfway_is_a_408_and_never_reaches_the_upstream() {
    let upstream = FakeUpstream::start().await;
    let server = Server::in_front_of(
        &upstream.url(),
        Timeouts {
            request_body: Duration::from_secs(2),
            ..timeouts()
        },
    )
    .start()
    .await
    .addr;
    let mut stream = TcpStream::connect(server).await.unwrap();
    stream
        .write_all(
            b"POST /v1/keys HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
              Content-Length: 100\r\n\r\n{\"name\":",
        )
        .await
        .unwrap();
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer)).await;
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("\"request_timeout\""), "{answer}");
    assert!(upstream.seen().is_empty(), "{:?}", upstream.seen());
}

#[tokio::test]
async fn an_upstream_answer_that_is_not_json_cannot_run_as_a_page() {
    let upstream = FakeUpstream::start().await;
    let server = Server::in_front_of(&upstream.url(), timeouts())
        .start()
        .await
        .addr;
    let page = get(server, "/v1/runs/html").await;
    assert_eq!(
        page.status,
        StatusCode::BAD_GATEWAY,
        "the status as it came"
    );
    assert!(page.text().contains("<script>"), "the body as it came");
    assert_eq!(page.header("content-security-policy"), Some(API_CSP));
    assert_eq!(page.header("x-content-type-options"), Some("nosniff"));
    assert_eq!(page.header("content-disposition"), Some("attachment"));

    // JSON, of either spelling, is no attachment; it carries the policy all the same.
    for path in ["/v1/workspace", "/v1/runs/problem"] {
        let json = get(server, path).await;
        assert_eq!(
            json.header("content-security-policy"),
            Some(API_CSP),
            "{path}"
        );
        assert_eq!(
            json.header("x-content-type-options"),
            Some("nosniff"),
            "{path}"
        );
        assert_eq!(json.header("content-disposition"), None, "{path}");
    }
    // So do this server's own answers, and its JSON outside /v1.
    for path in ["/v1/nothing", "/healthz", api_contract::ENVIRONMENT_PATH] {
        let own = get(server, path).await;
        assert_eq!(
            own.header("content-security-policy"),
            Some(API_CSP),
            "{path}"
        );
        assert_eq!(
            own.header("x-content-type-options"),
            Some("nosniff"),
            "{path}"
        );
    }
    // The console's pages keep their own policy.
    let app = get(server, "/runs/r1").await;
    let csp = app.header("content-security-policy").unwrap();
    assert!(csp.contains("script-src"), "{csp}");
}

#[tokio::test]
async fn a_request_for_another_host_is_refused_before_it_is_read() {
    let upstream = FakeUpstream::start().await;
    let server = Server {
        public_hosts: vec!["console.example.com"],
        ..Server::in_front_of(&upstream.url(), timeouts())
    }
    .start()
    .await
    .addr;
    for host in [
        "evil.example",
        "evil.example:80",
        "console.example.com.evil.example",
    ] {
        let status = send_raw(
            server,
            &format!("GET /v1/workspace HTTP/1.1\r\nHost: {host}\r\n\r\n"),
        )
        .await;
        assert!(status.starts_with("HTTP/1.1 421"), "{host}: {status}");
        let page = send_raw(server, &format!("GET / HTTP/1.1\r\nHost: {host}\r\n\r\n")).await;
        assert!(page.starts_with("HTTP/1.1 421"), "{host}: {page}");
    }
    assert!(upstream.seen().is_empty());
    let refused = send(
        server,
        "GET",
        "/v1/workspace",
        &[("host", "rebound.evil.example")],
        Body::empty(),
    )
    .await;
    assert_eq!(refused.error().code, "misdirected_request");
    assert!(
        refused.error().message.contains("--public-host"),
        "{}",
        refused.error().message
    );
    for host in [
        "console.example.com".to_owned(),
        "CONSOLE.example.com:443".to_owned(),
        "localhost:8080".to_owned(),
        server.to_string(),
    ] {
        let status = send_raw(
            server,
            &format!("GET /v1/workspace HTTP/1.1\r\nHost: {host}\r\n\r\n"),
        )
        .await;
        assert!(status.starts_with("HTTP/1.1 200"), "{host}: {status}");
    }
    let no_host = send_raw(server, "GET /v1/workspace HTTP/1.0\r\n\r\n").await;
    assert!(
        no_host.starts_with("HTTP/1.0 400") || no_host.starts_with("HTTP/1.1 400"),
        "{no_host}"
    );
}

#[tokio::test]
async fn the_health_check_says_when_the_server_drains_and_never_calls_the_upstream() {
    let upstream = FakeUpstream::start().await;
    let server = Server::in_front_of(&upstream.url(), timeouts());
    let health = server.health.clone();
    let addr = server.start().await.addr;
    let serving = get(addr, "/healthz").await;
    assert_eq!(serving.status, StatusCode::OK);
    assert_eq!(serving.text(), r#"{"status":"serving"}"#);
    assert_eq!(serving.header("cache-control"), Some("no-store"));
    health.start_draining();
    let draining = get(addr, "/healthz").await;
    assert_eq!(draining.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(draining.text(), r#"{"status":"draining"}"#);
    // Requests are still served while the load balancer takes it out of rotation.
    assert_eq!(get(addr, "/v1/workspace").await.status, StatusCode::OK);
    assert_eq!(upstream.seen().len(), 1);
}

#[tokio::test]
async fn metrics_count_routes_refusals_and_connections() {
    let upstream = FakeUpstream::start().await;
    let server = Server::in_front_of(&upstream.url(), timeouts());
    let metrics = server.metrics.clone();
    let addr = server.start().await.addr;
    get(addr, "/v1/workspace").await;
    get(addr, "/v1/workspace").await;
    get(addr, "/v1/runs/..;").await;
    send(addr, "PATCH", "/v1/workspace", &[], Body::empty()).await;
    send(addr, "GET", "/", &[("host", "evil.example")], Body::empty()).await;
    let mut idle = TcpStream::connect(addr).await.unwrap();
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let _ = idle.read(&mut [0u8; 512]).await.unwrap();
    // The other clients' connections close as the server notices their end.
    let one_open = async {
        while !metrics
            .encode()
            .contains("console_server_open_connections 1\n")
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(10), one_open)
        .await
        .unwrap_or_else(|_| panic!("not one open connection:\n{}", metrics.encode()));
    let text = metrics.encode();
    for line in [
        r#"console_server_requests_total{route="GET /v1/workspace",status="2xx"} 2"#,
        r#"console_server_requests_total{route="/v1 (no route)",status="4xx"} 2"#,
        r#"console_server_requests_total{route="files",status="4xx"} 1"#,
        r#"console_server_refusals_total{rule="invalid_path"} 1"#,
        r#"console_server_refusals_total{rule="method_not_allowed"} 1"#,
        r#"console_server_refusals_total{rule="misdirected_request"} 1"#,
        r#"console_server_upstream_seconds_count{route="GET /v1/workspace"} 2"#,
        "console_server_open_connections 1",
    ] {
        assert!(text.contains(line), "no {line} in\n{text}");
    }
}
