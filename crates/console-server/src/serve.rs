//! Accepting and serving connections with hyper's own limits, as axum's `serve-with-hyper`
//! example does (`axum::serve` sets no timer, so hyper's header-read timeout would be off): a
//! time limit on every connection, a cap on how many are open, and a graceful stop.
//!
//! Every connection has a deadline: its request's head within `header` (hyper's
//! `header_read_timeout`, which also bounds the wait for the next request on a kept-alive
//! connection), its body within the forwarder's `request_body`, the upstream's answer within the
//! forwarder's timeouts, and the whole connection within `max_age` plus `drain`.

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};

use crate::access_log;
use crate::metrics::Metrics;
use crate::refusal::{ConnectionRule, OwnCode, Refusal};

/// Limits on each client connection and on how many there are.
#[derive(Clone, Copy, Debug)]
pub struct ConnectionLimits {
    /// For a request's head to arrive, from the connection's start or the end of the previous
    /// answer: a client that sends nothing, or a byte at a time, is closed after this (nginx's
    /// `client_header_timeout` is 60 s; a browser sends a head at once).
    pub header: Duration,
    /// Connections open at once. One more is answered 503 (with `Retry-After`) and closed.
    pub max_connections: usize,
    /// How long one connection may stay open: then it finishes the request in flight and closes.
    pub max_age: Duration,
    /// How long the request in flight may take to finish once its connection must close (at
    /// `max_age`); then the connection is dropped.
    pub drain: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            header: Duration::from_secs(10),
            max_connections: 4096,
            // A live submission may take 10 minutes; a connection may then carry a few more.
            max_age: Duration::from_secs(15 * 60),
            drain: Duration::from_secs(60),
        }
    }
}

/// The largest request head read (nginx's `large_client_header_buffers` allows 4 × 8 KiB); it
/// also bounds what an idle connection holds.
const MAX_HEAD_BYTES: usize = 64 * 1024;

/// What `Retry-After` tells a client refused at the connection cap.
const RETRY_AT_CAP: Duration = Duration::from_secs(5);

/// Serves `app` on `listener` until `stop` resolves; then takes no new connection, lets each
/// open one finish the request it is answering, and returns when all are closed.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ConnectionLimits,
    metrics: Metrics,
    stop: impl Future<Output = ()>,
) {
    let open = Arc::new(Semaphore::new(limits.max_connections));
    // Refused connections are answered too, but only this many at once: past it, one is closed
    // at once, so a flood costs no more than this.
    let refusing = Arc::new(Semaphore::new((limits.max_connections / 16).max(64)));
    let (stop_tx, stop_rx) = watch::channel(false);
    tokio::pin!(stop);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => stream,
                Err(error) => {
                    // Out of descriptors, most often: wait rather than spin.
                    tracing::warn!("accepting a connection failed: {error}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let _ = stream.set_nodelay(true);
        if let Ok(permit) = open.clone().try_acquire_owned() {
            let app = app.clone();
            let metrics = metrics.clone();
            let stop_rx = stop_rx.clone();
            tokio::spawn(async move {
                let _open = metrics.connection_opened();
                serve_connection(stream, app, limits, &metrics, stop_rx).await;
                drop(permit);
            });
        } else {
            metrics.connection_refused(ConnectionRule::ConnectionCap);
            if let Ok(permit) = refusing.clone().try_acquire_owned() {
                tokio::spawn(async move {
                    refuse_connection(stream, limits).await;
                    drop(permit);
                });
            }
        }
    }
    drop(listener);
    let _ = stop_tx.send(true);
    // Every connection holds a receiver until it is closed.
    drop(stop_rx);
    stop_tx.closed().await;
}

fn http1_builder(limits: ConnectionLimits) -> http1::Builder {
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header)
        .max_buf_size(MAX_HEAD_BYTES);
    builder
}

async fn serve_connection(
    stream: TcpStream,
    app: Router,
    limits: ConnectionLimits,
    metrics: &Metrics,
    mut stop: watch::Receiver<bool>,
) {
    let builder = http1_builder(limits);
    let connection = builder.serve_connection(TokioIo::new(stream), TowerToHyperService::new(app));
    tokio::pin!(connection);
    let outcome = tokio::select! {
        outcome = connection.as_mut() => outcome,
        () = stopping(&mut stop) => {
            // The process's own grace period bounds this wait.
            connection.as_mut().graceful_shutdown();
            connection.await
        }
        () = tokio::time::sleep(limits.max_age) => {
            connection.as_mut().graceful_shutdown();
            match tokio::time::timeout(limits.drain, connection).await {
                Ok(outcome) => outcome,
                Err(_elapsed) => return,
            }
        }
    };
    if let Err(error) = outcome {
        log_refused_connection(&error, limits, metrics);
    }
}

/// Resolves once the server stops (or is gone).
async fn stopping(stop: &mut watch::Receiver<bool>) {
    let _ = stop.wait_for(|stopping| *stopping).await.map(drop);
}

/// A line in the access log for a connection whose request never reached the app.
fn log_refused_connection(error: &hyper::Error, limits: ConnectionLimits, metrics: &Metrics) {
    if error.is_timeout() {
        metrics.connection_refused(ConnectionRule::HeaderTimeout);
        access_log::connection_closed(
            StatusCode::REQUEST_TIMEOUT.as_u16(),
            &format!(
                "the request's head did not arrive within {} s",
                limits.header.as_secs()
            ),
        );
    } else if error.is_parse_too_large() {
        metrics.connection_refused(ConnectionRule::HeadTooLarge);
        access_log::connection_closed(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE.as_u16(),
            &error.to_string(),
        );
    } else if error.is_parse() {
        metrics.connection_refused(ConnectionRule::BadRequest);
        access_log::connection_closed(StatusCode::BAD_REQUEST.as_u16(), &error.to_string());
    }
}

/// A connection over the cap: its request, if it comes soon, is answered 503 and it is closed.
async fn refuse_connection(stream: TcpStream, limits: ConnectionLimits) {
    let mut builder = http1_builder(limits);
    builder.keep_alive(false);
    let service = hyper::service::service_fn(|_request: Request<Incoming>| async {
        Ok::<Response, Infallible>(at_capacity())
    });
    let connection = builder.serve_connection(TokioIo::new(stream), service);
    let _ = tokio::time::timeout(limits.header, connection).await;
}

fn at_capacity() -> Response {
    Refusal::new(
        StatusCode::SERVICE_UNAVAILABLE,
        OwnCode::ServerBusy,
        "console-server has as many connections open as it takes; try again in a few seconds.",
    )
    .retry_after(RETRY_AT_CAP)
    .into_response()
}
