//! `/v1/…` to the upstream, after axum's reverse-proxy example: hyper-util's pooled client, TLS by
//! rustls. Only the contract's routes go (`routes`), each request's body read whole first, each
//! answer's streamed back. Only the headers the console and the contract need cross, in either
//! direction; an answer that is not JSON comes back as an attachment, never as a page of this
//! origin; a failure of the upstream becomes the contract's error body.

use std::error::Error as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use rustls_pki_types::CertificateDer;

use crate::metrics::Metrics;
use crate::refusal::{OwnCode, Refusal};
use crate::routes::{self, contract_route};
use crate::upstream::Upstream;

/// Request headers that go to the upstream: the credential, the body's type, what the console
/// accepts, the contract's idempotency key. Never cookies, `Origin`, `Host` (the upstream's own is
/// set), `Forwarded`, or hop-by-hop headers; the body's length is the length of what was read.
const FORWARDED_REQUEST_HEADERS: [HeaderName; 5] = [
    header::AUTHORIZATION,
    header::CONTENT_TYPE,
    header::ACCEPT,
    header::ACCEPT_ENCODING,
    HeaderName::from_static(api_contract::IDEMPOTENCY_KEY_HEADER),
];

/// Answer headers passed back: the body's type, size and encoding, the contract's `Retry-After`
/// and request id (and the common other spelling of it), caching, the challenge of a 401, and a
/// redirect's target (rewritten to this server when it points at the upstream). Never
/// `Set-Cookie`, nor anything hop-by-hop.
const PASSED_BACK_HEADERS: [HeaderName; 10] = [
    header::CONTENT_TYPE,
    header::CONTENT_LENGTH,
    header::CONTENT_ENCODING,
    header::RETRY_AFTER,
    HeaderName::from_static(api_contract::REQUEST_ID_HEADER),
    HeaderName::from_static("request-id"),
    header::CACHE_CONTROL,
    header::VARY,
    header::ETAG,
    header::WWW_AUTHENTICATE,
];

/// How long to wait for the upstream, and for a request's body.
#[derive(Clone, Copy, Debug)]
pub struct Timeouts {
    /// For the answer to a live submission (`/run/live`), which the provider holds until the
    /// run ends or its lease runs out.
    pub live: Duration,
    /// For the answer to any other request, and between two pieces of any answer's body.
    pub other: Duration,
    /// For a connection (and its TLS handshake) to the upstream.
    pub connect: Duration,
    /// For the whole of a request's body to arrive from the client (at most
    /// [`crate::MAX_REQUEST_BODY_BYTES`]), before anything of it goes to the upstream.
    pub request_body: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            live: Duration::from_secs(600),
            other: Duration::from_secs(30),
            connect: Duration::from_secs(10),
            request_body: Duration::from_secs(10),
        }
    }
}

/// How many idle connections to the upstream are kept for reuse.
const IDLE_CONNECTIONS_KEPT: usize = 32;

type UpstreamClient = Client<HttpsConnector<HttpConnector>, Body>;

/// The handler's state: one pooled client for the one upstream.
pub struct Forwarder {
    client: UpstreamClient,
    upstream: Upstream,
    timeouts: Timeouts,
}

impl Forwarder {
    /// A client that trusts the platform's certificate store, Mozilla's roots and `extra_roots`
    /// (`--upstream-ca`, for an upstream with a private CA).
    pub fn new(
        upstream: Upstream,
        timeouts: Timeouts,
        extra_roots: &[CertificateDer<'static>],
    ) -> Result<Self, String> {
        let mut roots = rustls::RootCertStore::empty();
        roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        // Certificates the platform has but rustls cannot read are skipped, as curl skips them.
        let _ = roots.add_parsable_certificates(rustls_native_certs::load_native_certs().certs);
        for root in extra_roots {
            roots
                .add(root.clone())
                .map_err(|e| format!("an --upstream-ca certificate is not usable: {e}"))?;
        }
        let tls = rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
        let mut http = HttpConnector::new();
        http.enforce_http(false);
        http.set_connect_timeout(Some(timeouts.connect));
        http.set_nodelay(true);
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(tls)
            .https_or_http()
            .enable_http1()
            .wrap_connector(http);
        // Connections are reused, but after a burst (many live runs ending at once) only a few
        // stay open: idle ones hold buffers here and a connection at the provider. The timer
        // closes idle ones when their time is up, not only when the pool is next used.
        let client = Client::builder(TokioExecutor::new())
            .pool_timer(TokioTimer::new())
            .pool_idle_timeout(Duration::from_secs(60))
            .pool_max_idle_per_host(IDLE_CONNECTIONS_KEPT)
            .build(https);
        Ok(Forwarder {
            client,
            upstream,
            timeouts,
        })
    }
}

impl Forwarder {
    pub fn timeouts(&self) -> Timeouts {
        self.timeouts
    }
}

/// The `/v1/…` handler's state: the forwarder, and the metrics it records the upstream's time in;
/// shared, not copied, by each request.
#[derive(Clone)]
pub struct ApiState {
    pub forwarder: Arc<Forwarder>,
    pub metrics: Metrics,
}

/// The `/v1/…` handler.
pub async fn forward(State(state): State<ApiState>, request: Request) -> Response {
    let ApiState { forwarder, metrics } = state;
    let (parts, body) = request.into_parts();
    let endpoint = match contract_route(&parts.method, parts.uri.path()) {
        Ok(endpoint) => endpoint,
        Err(why) => return routes::refusal(&parts.method, why),
    };
    let path_and_query = parts
        .uri
        .path_and_query()
        .map_or(parts.uri.path(), |p| p.as_str());
    let Ok(target) = forwarder.upstream.target(path_and_query) else {
        return Refusal::new(
            StatusCode::BAD_REQUEST,
            OwnCode::InvalidPath,
            "The path is not a valid URL path.",
        )
        .into_response();
    };
    // Whole, before anything reaches the upstream: a request that is too large or too slow never
    // leaves this server, not even its headers.
    let body = match read_body(body, forwarder.timeouts.request_body).await {
        Ok(body) => body,
        Err(refusal) => return refusal.into_response(),
    };
    let mut outgoing = axum::http::Request::new(Body::from(body));
    *outgoing.method_mut() = parts.method.clone();
    *outgoing.uri_mut() = target;
    copy_headers(
        &parts.headers,
        outgoing.headers_mut(),
        &FORWARDED_REQUEST_HEADERS,
    );
    outgoing.headers_mut().insert(
        header::USER_AGENT,
        HeaderValue::from_static(concat!("console-server/", env!("CARGO_PKG_VERSION"))),
    );
    let limit = if endpoint == api_contract::Endpoint::SubmitLive {
        forwarder.timeouts.live
    } else {
        forwarder.timeouts.other
    };
    let origin = forwarder.upstream.origin();
    let asked = Instant::now();
    let answer = tokio::time::timeout(limit, forwarder.client.request(outgoing)).await;
    metrics.upstream_answered(endpoint.label(), asked.elapsed());
    match answer {
        Err(_elapsed) => Refusal::new(
            StatusCode::GATEWAY_TIMEOUT,
            OwnCode::UpstreamTimeout,
            format!(
                "The API at {origin} did not answer within {} s. The request may still have \
                 reached it: look for its run before sending it again.",
                limit.as_secs()
            ),
        )
        .into_response(),
        Ok(Err(error)) => refusal_for(&error, origin).into_response(),
        Ok(Ok(answer)) => passed_back(answer, &forwarder.upstream),
    }
}

/// A request's body, read whole within `timeout`: at most [`crate::MAX_REQUEST_BODY_BYTES`],
/// whether its length said so or its chunks did.
async fn read_body(body: Body, timeout: Duration) -> Result<axum::body::Bytes, Refusal> {
    let read = axum::body::to_bytes(body, crate::MAX_REQUEST_BODY_BYTES);
    match tokio::time::timeout(timeout, read).await {
        Err(_elapsed) => Err(Refusal::new(
            StatusCode::REQUEST_TIMEOUT,
            OwnCode::RequestTimeout,
            format!(
                "The request's body did not arrive within {} s; the API did not receive it.",
                timeout.as_secs()
            ),
        )),
        Ok(Err(error)) if has_cause::<http_body_util::LengthLimitError>(&error) => Err(too_large()),
        Ok(Err(error)) => Err(Refusal::new(
            StatusCode::BAD_REQUEST,
            OwnCode::InvalidRequest,
            format!("The request's body could not be read ({error}); the API did not receive it."),
        )),
        Ok(Ok(bytes)) => Ok(bytes),
    }
}

/// The upstream's answer as this server sends it on: its status and body, the allowed headers, a
/// redirect to the upstream pointed back here, and anything that is not JSON as an attachment.
fn passed_back(
    answer: axum::http::Response<hyper::body::Incoming>,
    upstream: &Upstream,
) -> Response {
    let (answer_parts, answer_body) = answer.into_parts();
    let mut response = Response::new(Body::new(answer_body));
    *response.status_mut() = answer_parts.status;
    copy_headers(
        &answer_parts.headers,
        response.headers_mut(),
        &PASSED_BACK_HEADERS,
    );
    if let Some(location) = answer_parts
        .headers
        .get(header::LOCATION)
        .and_then(|v| v.to_str().ok())
    {
        let location = upstream
            .relative_location(location)
            .unwrap_or_else(|| location.to_owned());
        if let Ok(value) = HeaderValue::from_str(&location) {
            response.headers_mut().insert(header::LOCATION, value);
        }
    }
    if !is_json(answer_parts.headers.get(header::CONTENT_TYPE)) {
        // An error page or a bot challenge from the upstream or a CDN before it: followed as a
        // link, it is saved, never opened as a page with the console's storage.
        response.headers_mut().insert(
            header::CONTENT_DISPOSITION,
            HeaderValue::from_static("attachment"),
        );
    }
    response
}

/// `application/json` or a `+json` type (`application/problem+json`), whatever its parameters.
fn is_json(content_type: Option<&HeaderValue>) -> bool {
    let Some(media_type) = content_type.and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let essence = media_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"))
}

/// Whether an error of type `E` is among `error`'s causes.
fn has_cause<E: std::error::Error + 'static>(error: &(dyn std::error::Error + 'static)) -> bool {
    std::iter::successors(Some(error), |cause| (*cause).source()).any(|e| e.is::<E>())
}

fn copy_headers(from: &HeaderMap, to: &mut HeaderMap, names: &[HeaderName]) {
    for name in names {
        for value in from.get_all(name) {
            to.append(name.clone(), value.clone());
        }
    }
}

/// What the person is told when the upstream gave no usable answer.
fn refusal_for(error: &hyper_util::client::legacy::Error, origin: &str) -> Refusal {
    let causes = || std::iter::successors(error.source(), |cause| (*cause).source());
    let tls_error = error.source().and_then(tls_cause);
    if let Some(tls) = tls_error {
        return Refusal::new(
            StatusCode::BAD_GATEWAY,
            OwnCode::UpstreamUnreachable,
            format!(
                "The API at {origin} could not be reached securely ({tls}). If it uses a private \
                 certificate authority, start console-server with --upstream-ca."
            ),
        );
    }
    // The innermost cause says it best: "Connection refused", "connection reset", "invalid HTTP
    // version parsed".
    let cause = causes()
        .last()
        .map_or_else(|| error.to_string(), |e| e.to_string());
    if error.is_connect() {
        Refusal::new(
            StatusCode::BAD_GATEWAY,
            OwnCode::UpstreamUnreachable,
            format!(
                "The API at {origin} could not be reached ({cause}). The console's server is \
                 up; check that the API is, and that --upstream names it."
            ),
        )
    } else {
        Refusal::new(
            StatusCode::BAD_GATEWAY,
            OwnCode::UpstreamUnreachable,
            format!(
                "The API at {origin} gave no valid answer ({cause}). The request may have reached \
                 it: look for its run before sending it again."
            ),
        )
    }
}

/// The rustls error among `error`'s causes. It arrives inside io::Errors, whose `source` skips
/// their own payload, so those are opened too.
fn tls_cause<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a rustls::Error> {
    let mut cause = error;
    loop {
        if let Some(tls) = cause.downcast_ref::<rustls::Error>() {
            return Some(tls);
        }
        let payload = cause
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
            .map(|inner| inner as &(dyn std::error::Error + 'static));
        cause = payload.or_else(|| cause.source())?;
    }
}

/// The 413 for a body over the limit.
pub fn too_large() -> Refusal {
    Refusal::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        OwnCode::RequestTooLarge,
        format!(
            "The request's body is over {} KiB; the API did not receive it.",
            crate::MAX_REQUEST_BODY_BYTES / 1024
        ),
    )
}
