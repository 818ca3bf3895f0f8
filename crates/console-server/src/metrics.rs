//! What operators watch, in Prometheus's OpenMetrics text format (the `prometheus-client` crate,
//! the Prometheus project's own), served on a separate address only when `--metrics-addr` asks
//! for it: requests by contract route and status class, the upstream's time to answer, open
//! connections, and the requests and connections this server refused, by rule.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

use crate::refusal::{ConnectionRule, OwnAnswer};

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    /// `GET /v1/runs/{id}`, `/v1 (no route)`, `/healthz` or `files`.
    route: &'static str,
    /// `2xx`, `4xx`…
    status: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    route: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RuleLabels {
    /// The contract `code` of the refusal (`not_found`, `invalid_path`, `misdirected_request`…),
    /// or what closed a connection before a request was read (`header_timeout`, `bad_request`,
    /// `connection_cap`).
    rule: &'static str,
}

/// The server's counters; clones share them (one reference count: a clone is made per request).
#[derive(Clone, Default)]
pub struct Metrics(Arc<Counters>);

struct Counters {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    upstream_seconds: Family<RouteLabels, Histogram, fn() -> Histogram>,
    upstream_failures: Family<RuleLabels, Counter>,
    refusals: Family<RuleLabels, Counter>,
    open_connections: Gauge,
}

fn upstream_histogram() -> Histogram {
    // 5 ms to about 11 min: a read on loopback to a live run held for its whole lease.
    Histogram::new(exponential_buckets(0.005, 2.0, 18))
}

impl Default for Counters {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("console_server");
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "requests",
            "Requests answered, by contract route and status class",
            requests.clone(),
        );
        let upstream_seconds =
            Family::<RouteLabels, Histogram, fn() -> Histogram>::new_with_constructor(
                upstream_histogram,
            );
        registry.register(
            "upstream_seconds",
            "Time from sending a request to the upstream to its answer's head, by contract route",
            upstream_seconds.clone(),
        );
        let upstream_failures = Family::<RuleLabels, Counter>::default();
        registry.register(
            "upstream_failures",
            "Requests the upstream gave no usable answer to (unreachable, timed out)",
            upstream_failures.clone(),
        );
        let refusals = Family::<RuleLabels, Counter>::default();
        registry.register(
            "refusals",
            "Requests and connections refused by this server, by rule",
            refusals.clone(),
        );
        let open_connections = Gauge::default();
        registry.register(
            "open_connections",
            "Client connections open now",
            open_connections.clone(),
        );
        Counters {
            registry,
            requests,
            upstream_seconds,
            upstream_failures,
            refusals,
            open_connections,
        }
    }
}

impl Metrics {
    pub fn upstream_answered(&self, route: &'static str, took: Duration) {
        self.0
            .upstream_seconds
            .get_or_create(&RouteLabels { route })
            .observe(took.as_secs_f64());
    }

    /// A connection closed by `rule` before a request on it was routed.
    pub fn connection_refused(&self, rule: ConnectionRule) {
        self.refused(rule.as_str());
    }

    fn refused(&self, rule: &'static str) {
        self.0.refusals.get_or_create(&RuleLabels { rule }).inc();
    }

    /// Counts an open connection until the guard is dropped.
    pub fn connection_opened(&self) -> OpenConnection {
        self.0.open_connections.inc();
        OpenConnection(self.0.open_connections.clone())
    }

    fn answered(&self, route: &'static str, response: &Response) {
        let status = match response.status().as_u16() / 100 {
            1 => "1xx",
            2 => "2xx",
            3 => "3xx",
            4 => "4xx",
            _ => "5xx",
        };
        self.0
            .requests
            .get_or_create(&RequestLabels { route, status })
            .inc();
        if let Some(own) = response.extensions().get::<OwnAnswer>() {
            let rule = own.code.as_str();
            if own.code.is_upstream_fault() {
                self.0
                    .upstream_failures
                    .get_or_create(&RuleLabels { rule })
                    .inc();
            } else {
                self.refused(rule);
            }
        }
    }

    /// The exposition, as a scrape reads it.
    pub fn encode(&self) -> String {
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.0.registry);
        text
    }

    /// The router for `--metrics-addr`: `GET /metrics`.
    pub fn router(&self) -> Router {
        Router::new()
            .route("/metrics", get(scrape))
            .with_state(self.clone())
    }
}

/// One open connection, counted while it lives.
pub struct OpenConnection(Gauge);

impl Drop for OpenConnection {
    fn drop(&mut self) {
        self.0.dec();
    }
}

async fn scrape(State(metrics): State<Metrics>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        metrics.encode(),
    )
        .into_response()
}

/// The middleware that counts every answer by route and status class, and this server's own
/// answers by their code.
pub async fn count_requests(
    State(metrics): State<Metrics>,
    request: Request,
    next: Next,
) -> Response {
    let route = route_of(request.method(), request.uri().path());
    let response = next.run(request).await;
    metrics.answered(route, &response);
    response
}

fn route_of(method: &axum::http::Method, path: &str) -> &'static str {
    if path == crate::health::HEALTH_PATH {
        crate::health::HEALTH_PATH
    } else if path == "/v1" || path.starts_with("/v1/") {
        api_contract::Endpoint::recognize(method.as_str(), path)
            .map_or("/v1 (no route)", api_contract::Endpoint::label)
    } else {
        "files"
    }
}
