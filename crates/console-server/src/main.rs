//! The console-server binary: checks its flags (each also an environment variable,
//! `CONSOLE_SERVER_…`), binds, prints one JSON line with its URL, logs one line per request on
//! stderr (text or JSON), and on SIGTERM or Ctrl-C answers 503 on `/healthz` (for
//! `--drain-secs` while it still takes requests), then stops taking them and lets those in flight
//! finish (up to `--shutdown-grace-secs`).

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use api_contract::{ConsoleEnvironment, EnvironmentKind};
use clap::Parser;
use console_server::{
    AccessLog, AllowedHosts, App, ConnectionLimits, Forwarder, Health, Metrics, Timeouts, Upstream,
    app, console_files, serve,
};
use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject;
use tracing_subscriber::filter::LevelFilter;

/// Serves the console and forwards /v1 to one API, so that the console works with an API that
/// was not built for browsers (no CORS). Credentials pass through to that API and nowhere else.
#[derive(Parser, Debug)]
#[command(name = "console-server", version)]
struct Cli {
    /// The API's base URL, e.g. https://api.provider.example (a base path is kept).
    #[arg(long, env = "CONSOLE_SERVER_UPSTREAM", value_name = "URL")]
    upstream: Upstream,

    /// Address to listen on. Port 0 picks a free port (the start-up line tells which).
    #[arg(long, env = "CONSOLE_SERVER_ADDR", default_value = "127.0.0.1:8080")]
    addr: SocketAddr,

    /// Serve the console built in DIR instead of the one built into this binary.
    #[arg(long, env = "CONSOLE_SERVER_DIST", value_name = "DIR")]
    dist: Option<PathBuf>,

    /// Seconds to wait for the answer to a live submission (the provider holds it until the run
    /// ends or its lease runs out).
    #[arg(long, env = "CONSOLE_SERVER_LIVE_TIMEOUT_SECS", value_name = "SECS", default_value_t = Timeouts::default().live.as_secs())]
    live_timeout_secs: u64,

    /// Seconds to wait for any other answer, and between two pieces of an answer's body.
    #[arg(long, env = "CONSOLE_SERVER_TIMEOUT_SECS", value_name = "SECS", default_value_t = Timeouts::default().other.as_secs())]
    timeout_secs: u64,

    /// Seconds to wait for a connection (and TLS handshake) to the API.
    #[arg(long, env = "CONSOLE_SERVER_CONNECT_TIMEOUT_SECS", value_name = "SECS", default_value_t = Timeouts::default().connect.as_secs())]
    connect_timeout_secs: u64,

    /// Seconds that requests in flight may take to finish after SIGTERM or Ctrl-C.
    #[arg(long, env = "CONSOLE_SERVER_SHUTDOWN_GRACE_SECS", value_name = "SECS", default_value_t = ConnectionLimits::default().drain.as_secs())]
    shutdown_grace_secs: u64,

    /// Seconds after SIGTERM during which requests are still taken while /healthz answers 503,
    /// so that a load balancer stops sending new ones before the listener closes.
    #[arg(
        long,
        env = "CONSOLE_SERVER_DRAIN_SECS",
        value_name = "SECS",
        default_value_t = 0
    )]
    drain_secs: u64,

    /// Seconds for a request's head to arrive, and for the next request on a kept-alive
    /// connection; then the connection is closed.
    #[arg(long, env = "CONSOLE_SERVER_HEADER_TIMEOUT_SECS", value_name = "SECS", default_value_t = ConnectionLimits::default().header.as_secs())]
    header_timeout_secs: u64,

    /// Seconds for a request's whole body to arrive (it is read before it is forwarded).
    #[arg(long, env = "CONSOLE_SERVER_BODY_TIMEOUT_SECS", value_name = "SECS", default_value_t = Timeouts::default().request_body.as_secs())]
    body_timeout_secs: u64,

    /// Client connections open at once; one more is answered 503 and closed.
    #[arg(long, env = "CONSOLE_SERVER_MAX_CONNECTIONS", value_name = "N", default_value_t = ConnectionLimits::default().max_connections as u64,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    max_connections: u64,

    /// /v1 requests forwarded at once; one more is answered 503 with Retry-After.
    #[arg(long, env = "CONSOLE_SERVER_MAX_REQUESTS", value_name = "N", default_value_t = console_server::DEFAULT_MAX_REQUESTS_IN_FLIGHT as u64,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    max_requests: u64,

    /// Seconds a client connection may stay open; then it finishes its request and closes.
    #[arg(long, env = "CONSOLE_SERVER_CONNECTION_MAX_SECS", value_name = "SECS", default_value_t = ConnectionLimits::default().max_age.as_secs())]
    connection_max_secs: u64,

    /// A name people reach this server under (console.example.com), besides its IP addresses
    /// and localhost; a request for any other Host is refused (repeatable, or comma-separated).
    #[arg(
        long,
        env = "CONSOLE_SERVER_PUBLIC_HOST",
        value_name = "NAME",
        value_delimiter = ','
    )]
    public_host: Vec<String>,

    /// Allow an http:// upstream that is neither loopback nor a private address: bearer tokens
    /// then cross the network in clear.
    #[arg(long, env = "CONSOLE_SERVER_ALLOW_PLAIN_HTTP_UPSTREAM")]
    allow_plain_http_upstream: bool,

    /// Serve metrics (Prometheus's text format) at http://ADDR/metrics; keep it private.
    #[arg(long, env = "CONSOLE_SERVER_METRICS_ADDR", value_name = "ADDR")]
    metrics_addr: Option<SocketAddr>,

    /// The name the console shows for this API, in its header and the tab's title (default:
    /// the upstream's host).
    #[arg(long, env = "CONSOLE_SERVER_ENVIRONMENT", value_name = "NAME")]
    environment: Option<String>,

    /// Whether runs here spend real credits (live) or play money (sandbox).
    #[arg(long, env = "CONSOLE_SERVER_ENVIRONMENT_KIND", value_name = "KIND", default_value = "live", value_parser = environment_kind)]
    environment_kind: EnvironmentKind,

    /// A PEM file of certificate authorities to trust for the API, besides the system's and
    /// Mozilla's (an API behind a private CA); repeatable, or comma-separated.
    #[arg(
        long,
        env = "CONSOLE_SERVER_UPSTREAM_CA",
        value_name = "PEM",
        value_delimiter = ','
    )]
    upstream_ca: Vec<PathBuf>,

    /// How the log on stderr is written: `text` (a line per event, key=value) or `json` (one
    /// JSON object per line, for a log shipper).
    #[arg(long, env = "CONSOLE_SERVER_LOG_FORMAT", value_name = "FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,

    /// The least severe events logged: error, warn, info (the access log's), debug, trace or off.
    #[arg(long, env = "CONSOLE_SERVER_LOG_LEVEL", value_name = "LEVEL", default_value_t = LevelFilter::INFO)]
    log_level: LevelFilter,

    /// Write an access-log line for each `GET /healthz` too (a load balancer's probes, left out
    /// by default).
    #[arg(long, env = "CONSOLE_SERVER_LOG_HEALTH_CHECKS")]
    log_health_checks: bool,
}

/// How the log's lines are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum LogFormat {
    /// `2026-12-02T03:04:05.678Z  INFO request{method=GET path=/v1/runs}: status=200 ms=12 …`
    Text,
    /// `{"timestamp":"…","level":"INFO","status":200,"ms":12,…,"span":{"method":"GET",…}}`
    Json,
}

/// The log on stderr, as the flags ask: never ANSI colours (a journal or a file reads it).
fn start_log(format: LogFormat, level: LevelFilter) {
    let log = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_ansi(false)
        .with_max_level(level);
    match format {
        LogFormat::Text => log.init(),
        // The event's fields at the top level, its request (method and path) under `span`.
        LogFormat::Json => log
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .init(),
    }
}

fn environment_kind(text: &str) -> Result<EnvironmentKind, String> {
    match text {
        "live" => Ok(EnvironmentKind::Live),
        "sandbox" => Ok(EnvironmentKind::Sandbox),
        _ => Err(format!("{text} is neither live nor sandbox")),
    }
}

fn read_roots(files: &[PathBuf]) -> Result<Vec<CertificateDer<'static>>, String> {
    let mut roots = Vec::new();
    for file in files {
        let before = roots.len();
        for cert in CertificateDer::pem_file_iter(file)
            .map_err(|e| format!("--upstream-ca {}: {e}", file.display()))?
        {
            roots.push(cert.map_err(|e| format!("--upstream-ca {}: {e}", file.display()))?);
        }
        if roots.len() == before {
            return Err(format!(
                "--upstream-ca {}: no certificate in it",
                file.display()
            ));
        }
    }
    Ok(roots)
}

fn fail(message: &str) -> ! {
    eprintln!("console-server: {message}");
    std::process::exit(2);
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let cli = Cli::parse();
    start_log(cli.log_format, cli.log_level);
    let files = console_files(cli.dist.as_deref()).unwrap_or_else(|e| fail(&e));
    let roots = read_roots(&cli.upstream_ca).unwrap_or_else(|e| fail(&e));
    let hosts =
        AllowedHosts::new(cli.public_host.iter().map(String::as_str)).unwrap_or_else(|e| fail(&e));
    let upstream = cli.upstream.clone();
    if !upstream.is_https() && !upstream.is_private() && !cli.allow_plain_http_upstream {
        fail(&format!(
            "--upstream {upstream} is plain http to a public address: bearer tokens would cross \
             the network in clear. Use https://, or add --allow-plain-http-upstream if the \
             network between is yours."
        ));
    }
    let timeouts = Timeouts {
        live: Duration::from_secs(cli.live_timeout_secs),
        other: Duration::from_secs(cli.timeout_secs),
        connect: Duration::from_secs(cli.connect_timeout_secs),
        request_body: Duration::from_secs(cli.body_timeout_secs),
    };
    let limits = ConnectionLimits {
        header: Duration::from_secs(cli.header_timeout_secs),
        max_connections: cli.max_connections as usize,
        max_age: Duration::from_secs(cli.connection_max_secs),
        drain: Duration::from_secs(cli.shutdown_grace_secs),
    };
    let forwarder = Forwarder::new(upstream.clone(), timeouts, &roots).unwrap_or_else(|e| fail(&e));
    let environment = ConsoleEnvironment {
        kind: cli.environment_kind,
        name: cli
            .environment
            .clone()
            .filter(|name| !name.trim().is_empty())
            .unwrap_or_else(|| ConsoleEnvironment::live_at(upstream.origin()).name),
    };
    raise_descriptor_limit(limits.max_connections);
    let stop_signal = stop_signal()?;
    let listener = tokio::net::TcpListener::bind(cli.addr).await?;
    let addr = listener.local_addr()?;
    let metrics = Metrics::default();
    let metrics_url = match cli.metrics_addr {
        Some(metrics_addr) => {
            let metrics_listener = tokio::net::TcpListener::bind(metrics_addr).await?;
            let url = format!("http://{}/metrics", metrics_listener.local_addr()?);
            tokio::spawn(serve(
                metrics_listener,
                metrics.router(),
                limits,
                metrics.clone(),
                std::future::pending(),
            ));
            Some(url)
        }
        None => None,
    };
    let line = serde_json::json!({
        "url": format!("http://{addr}"),
        "upstream": upstream.to_string(),
        "environment": environment,
        "metrics": metrics_url,
    });
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{line}")?;
    stdout.flush()?;
    drop(stdout);
    let kind = if environment.is_live() {
        "live: real credits"
    } else {
        "sandbox"
    };
    tracing::info!(
        "the console on http://{addr}, /v1 forwarded to {upstream} ({}, {kind})",
        environment.name
    );
    if !upstream.is_https() && !upstream.is_loopback() {
        tracing::warn!("{upstream} is plain http; credentials cross the network unencrypted");
    }

    let health = Health::default();
    let service = app(App {
        forwarder,
        files,
        environment: environment.clone(),
        hosts,
        max_requests_in_flight: cli.max_requests as usize,
        health: health.clone(),
        metrics: metrics.clone(),
        access_log: AccessLog {
            health_checks: cli.log_health_checks,
        },
    });
    let drain = Duration::from_secs(cli.drain_secs);
    let (stopping_tx, stopping_rx) = tokio::sync::oneshot::channel::<()>();
    let stop = async move {
        stop_signal.await;
        health.start_draining();
        if !drain.is_zero() {
            tracing::info!(
                "draining: /healthz answers 503; taking requests for {} s more",
                drain.as_secs()
            );
            tokio::time::sleep(drain).await;
        }
        tracing::info!("stopping; finishing the requests in flight");
        let _ = stopping_tx.send(());
    };
    let grace = Duration::from_secs(cli.shutdown_grace_secs);
    tokio::select! {
        () = serve(listener, service, limits, metrics, stop) => {}
        () = async {
            let _ = stopping_rx.await;
            tokio::time::sleep(grace).await;
        } => {
            tracing::warn!(
                "requests still in flight after {} s; stopping anyway",
                grace.as_secs()
            );
        }
    }
    Ok(())
}

/// Each client connection may hold a second descriptor, to the upstream: the soft limit is
/// raised towards what `max_connections` needs (as nginx's `worker_rlimit_nofile` and Go's
/// runtime do), and a start-up warning says when the hard limit is lower.
fn raise_descriptor_limit(max_connections: usize) {
    let needed = 2 * max_connections as u64 + 64;
    match rlimit::increase_nofile_limit(needed) {
        Ok(limit) if limit < needed => tracing::warn!(
            "the open-file limit is {limit}; --max-connections \
             {max_connections} needs about {needed} (raise it, e.g. LimitNOFILE= in a systemd \
             unit, or lower --max-connections)"
        ),
        Ok(_) => {}
        Err(error) => tracing::warn!("the open-file limit: {error}"),
    }
}

/// SIGTERM (a service manager, a container's stop) or Ctrl-C. Listened for from the moment it
/// is made, so a signal sent as soon as the start-up line is read is not the default's kill.
fn stop_signal() -> std::io::Result<impl Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut terminate = signal(SignalKind::terminate())?;
        let mut interrupt = signal(SignalKind::interrupt())?;
        Ok(async move {
            tokio::select! {
                _ = terminate.recv() => {},
                _ = interrupt.recv() => {},
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
        })
    }
}
