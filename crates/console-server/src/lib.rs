//! console-server: the built console and, under `/v1`, the provider's API, on one origin. The
//! browser calls its own origin (no CORS, which an API built for servers does not send); this
//! server forwards each `/v1` request to the one `--upstream` and nowhere else.
//!
//! `app` builds the whole HTTP surface; `main.rs` parses flags, binds, logs and stops gracefully.
//! Stateless: any number of them may run behind any load balancer.

pub mod forward;
pub mod paths;
pub mod refusal;
pub mod upstream;

use std::path::Path;
use std::time::Duration;

use api_contract::ConsoleEnvironment;
use axum::extract::Request;
use axum::http::header;
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use axum::routing::get;
use axum::{Json, Router};
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::ResponseBodyTimeoutLayer;
use tower_http::trace::TraceLayer;

pub use forward::{Forwarder, Timeouts};
use refusal::Refusal;
pub use upstream::Upstream;

/// The largest request body forwarded. The console's largest is a submission, a few KiB.
pub const MAX_REQUEST_BODY_BYTES: usize = 1024 * 1024;

/// The release console, built into the binary from `dist/` (scripts/build-console.sh) when the
/// binary is compiled in release mode; debug builds read the folder at run time (rust-embed).
#[derive(rust_embed::RustEmbed)]
#[folder = "../../dist/"]
#[allow_missing = true]
struct BuiltConsole;

/// The console this server serves: the one built into it, or the build in `dist`.
pub fn console_files(dist: Option<&Path>) -> Result<Router, String> {
    // The console calls only its own origin: the API is here, under /v1.
    match dist {
        Some(dist) if dist.join("index.html").is_file() => Ok(console_hosting::from_dir(dist, &[])),
        Some(dist) => Err(format!(
            "--dist {} has no index.html; build the console first (bash scripts/build-console.sh)",
            dist.display()
        )),
        None => console_hosting::from_embedded::<BuiltConsole>(&[]).ok_or_else(|| {
            "this binary was built without the console (dist/ was empty when it was compiled): \
             build it with `make console-server`, or pass --dist DIR"
                .to_owned()
        }),
    }
}

/// The whole service: `/v1/…` forwarded, [`api_contract::ENVIRONMENT_PATH`] saying which API
/// that is, everything else the console's files; one access-log line per request.
pub fn app(
    forwarder: Forwarder,
    files: Router,
    environment: ConsoleEnvironment,
    body_timeout: Duration,
) -> Router {
    let api = Router::new()
        .route("/v1/{*rest}", any(forward::forward))
        .route("/v1", any(forward::forward))
        .with_state(forwarder)
        .layer(ResponseBodyTimeoutLayer::new(body_timeout))
        .layer(RequestBodyLimitLayer::new(MAX_REQUEST_BODY_BYTES))
        .layer(axum::middleware::map_response(body_limit_in_contract_form));
    let environment = Router::new().route(
        api_contract::ENVIRONMENT_PATH,
        get(move || {
            let environment = environment.clone();
            async move { ([(header::CACHE_CONTROL, "no-cache")], Json(environment)) }
        }),
    );
    api.merge(environment)
        .merge(files)
        .layer(axum::middleware::from_fn(refuse_foreign_targets))
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(|request: &Request| {
                    // The path only: never the query, a header or a body.
                    tracing::info_span!(
                        "request",
                        method = %request.method(),
                        path = %request.uri().path(),
                    )
                })
                .on_request(())
                .on_response(
                    |response: &Response, latency: Duration, _span: &tracing::Span| {
                        let request_id = response
                            .headers()
                            .get(api_contract::REQUEST_ID_HEADER)
                            .and_then(|v| v.to_str().ok())
                            .unwrap_or("-");
                        tracing::info!(
                            status = response.status().as_u16(),
                            ms = latency.as_millis() as u64,
                            %request_id,
                        );
                    },
                )
                .on_failure(()),
        )
}

/// `CONNECT`, `TRACE` and absolute-form targets (`GET http://elsewhere/ HTTP/1.1`) are not for
/// this server: it forwards to one upstream only, and never as an open proxy.
async fn refuse_foreign_targets(request: Request, next: Next) -> Response {
    if request.method() == Method::CONNECT || request.method() == Method::TRACE {
        return Refusal::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            format!("{} is not served here.", request.method()),
        )
        .into_response();
    }
    if request.uri().scheme().is_some() || request.uri().authority().is_some() {
        return Refusal::new(
            StatusCode::BAD_REQUEST,
            "invalid_path",
            "This server is not a proxy for other hosts: send the path only.",
        )
        .into_response();
    }
    next.run(request).await
}

/// tower-http's 413 (a `Content-Length` over the limit) in the contract's error body; an
/// upstream's own 413 passes as it came.
async fn body_limit_in_contract_form(response: Response) -> Response {
    let from_upstream = response
        .extensions()
        .get::<forward::FromUpstream>()
        .is_some();
    if response.status() == StatusCode::PAYLOAD_TOO_LARGE && !from_upstream {
        forward::too_large().into_response()
    } else {
        response
    }
}
