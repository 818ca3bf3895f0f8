//! console-server: the built console and, under `/v1`, the provider's API, on one origin. The
//! browser calls its own origin (no CORS, which an API built for servers does not send); this
//! server forwards the contract's routes under `/v1` to the one `--upstream` and nowhere else.
//!
//! `app` builds the whole HTTP surface, `serve` runs it with a time limit on every connection;
//! `main.rs` parses flags, binds, logs and stops gracefully. Stateless: any number of them may
//! run behind any load balancer.

pub mod access_log;
pub mod forward;
pub mod health;
pub mod hosts;
pub mod metrics;
pub mod refusal;
pub mod routes;
pub mod serve;
pub mod upstream;

use std::path::Path;
use std::time::Duration;

use api_contract::ConsoleEnvironment;
use axum::error_handling::HandleErrorLayer;
use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use axum::{BoxError, Json, Router};
use tower::ServiceBuilder;
use tower::layer::util::{Identity, Stack};
use tower::limit::GlobalConcurrencyLimitLayer;
use tower::load_shed::LoadShedLayer;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::timeout::ResponseBodyTimeoutLayer;

pub use access_log::AccessLog;
pub use forward::{Forwarder, Timeouts};
pub use health::Health;
pub use hosts::AllowedHosts;
pub use metrics::Metrics;
use refusal::{API_CONTENT_SECURITY_POLICY, OwnCode, Refusal};
pub use serve::{ConnectionLimits, serve};
pub use upstream::Upstream;

/// The largest request body forwarded. The console's largest is a submission, a few KiB.
pub const MAX_REQUEST_BODY_BYTES: usize = 1024 * 1024;

/// `/v1` requests forwarded at once, by default: more wait for none, they are answered 503.
pub const DEFAULT_MAX_REQUESTS_IN_FLIGHT: usize = 2048;

/// What `Retry-After` tells a request refused at the cap of requests in flight.
const RETRY_WHEN_BUSY: Duration = Duration::from_secs(2);

/// The release console, built into the binary from `dist/` (scripts/build-console.sh). Debug
/// builds embed it too (rust-embed's `debug-embed`), so they serve it exactly as release builds
/// do, never from the disk.
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

/// Everything the service is made of.
pub struct App {
    pub forwarder: Forwarder,
    /// The console's files (`console_files`).
    pub files: Router,
    /// What `/console-environment.json` says.
    pub environment: ConsoleEnvironment,
    pub hosts: AllowedHosts,
    pub max_requests_in_flight: usize,
    pub health: Health,
    pub metrics: Metrics,
    pub access_log: AccessLog,
}

/// The whole service: `/v1/…` forwarded, [`api_contract::ENVIRONMENT_PATH`] saying which API
/// that is, `/healthz`, everything else the console's files; one access-log line per request.
pub fn app(parts: App) -> Router {
    let App {
        forwarder,
        files,
        environment,
        hosts,
        max_requests_in_flight,
        health,
        metrics,
        access_log,
    } = parts;
    let body_timeout = forwarder.timeouts().other;
    // Each `ServiceBuilder` below is applied with one `Router::layer` call: axum boxes a route
    // once per call, and each boxing level costs every request a clone and an allocation.
    let api = Router::new()
        .route("/v1/{*rest}", any(forward::forward))
        .route("/v1", any(forward::forward))
        .with_state(forward::ApiState {
            forwarder: std::sync::Arc::new(forwarder),
            metrics: metrics.clone(),
        })
        .layer(
            ServiceBuilder::new()
                // Whatever the upstream answers, it cannot run as a page of this origin.
                .layer(api_headers(SetResponseHeaderLayer::overriding))
                // The cap on requests in flight: past it, a 503 at once rather than a queue.
                .layer(HandleErrorLayer::new(|_: BoxError| async { busy() }))
                .layer(LoadShedLayer::new())
                .layer(GlobalConcurrencyLimitLayer::new(max_requests_in_flight))
                .layer(ResponseBodyTimeoutLayer::new(body_timeout)),
        );
    let environment = Router::new().route(
        api_contract::ENVIRONMENT_PATH,
        get(move || {
            let environment = environment.clone();
            async move { ([(header::CACHE_CONTROL, "no-cache")], Json(environment)) }
        }),
    );
    let health = Router::new()
        .route(health::HEALTH_PATH, get(health::health))
        .with_state(health);
    api.merge(environment).merge(health).merge(files).layer(
        ServiceBuilder::new()
            .layer(access_log.layer())
            .layer(axum::middleware::from_fn_with_state(
                metrics,
                metrics::count_requests,
            ))
            .layer(axum::middleware::from_fn_with_state(
                hosts,
                hosts::refuse_other_hosts,
            ))
            .layer(axum::middleware::from_fn(refuse_foreign_targets))
            // The environment and the health check: JSON that is no page either. The console's
            // files carry their own policy.
            .layer(api_headers(SetResponseHeaderLayer::if_not_present)),
    )
}

/// The two layers of [`api_headers`], outer first.
type ApiHeaders = ServiceBuilder<
    Stack<
        SetResponseHeaderLayer<HeaderValue>,
        Stack<SetResponseHeaderLayer<HeaderValue>, Identity>,
    >,
>;

/// The layers that give an answer the API's policy and `nosniff`, set by `rule` (overriding what
/// an answer had, or only where it had none).
fn api_headers(
    rule: fn(HeaderName, HeaderValue) -> SetResponseHeaderLayer<HeaderValue>,
) -> ApiHeaders {
    ServiceBuilder::new()
        .layer(rule(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(API_CONTENT_SECURITY_POLICY),
        ))
        .layer(rule(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
}

/// The 503 of a server with as many `/v1` requests in flight as it takes.
fn busy() -> Response {
    Refusal::new(
        StatusCode::SERVICE_UNAVAILABLE,
        OwnCode::ServerBusy,
        "console-server is forwarding as many requests as it takes; try again in a moment. \
         The API did not receive this one.",
    )
    .retry_after(RETRY_WHEN_BUSY)
    .into_response()
}

/// `CONNECT`, `TRACE` and absolute-form targets (`GET http://elsewhere/ HTTP/1.1`) are not for
/// this server: it forwards to one upstream only, and never as an open proxy.
async fn refuse_foreign_targets(request: Request, next: Next) -> Response {
    if request.method() == Method::CONNECT || request.method() == Method::TRACE {
        return Refusal::new(
            StatusCode::METHOD_NOT_ALLOWED,
            OwnCode::MethodNotAllowed,
            format!("{} is not served here.", request.method()),
        )
        .into_response();
    }
    if request.uri().scheme().is_some() || request.uri().authority().is_some() {
        return Refusal::new(
            StatusCode::BAD_REQUEST,
            OwnCode::InvalidPath,
            "This server is not a proxy for other hosts: send the path only.",
        )
        .into_response();
    }
    next.run(request).await
}
