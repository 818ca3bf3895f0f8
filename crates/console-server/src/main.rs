//! The console-server binary: checks its flags, binds, prints one JSON line with its URL, logs
//! one line per request on stderr, and on SIGTERM or Ctrl-C answers 503 on `/healthz` (for
//! `--drain-secs` while it still takes requests), then stops taking them and lets those in flight
//! finish (up to `--shutdown-grace-secs`).

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use api_contract::{ConsoleEnvironment, EnvironmentKind};
use clap::Parser;
use console_server::{
    AllowedHosts, App, ConnectionLimits, Forwarder, Health, Metrics, Timeouts, Upstream, app,
    console_files, serve,
};
use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject;

/// Serves the console and forwards /v1 to one API, so that the console works with an API that
/// was not built for browsers (no CORS). Credentials pass through to that API and nowhere else.
#[derive(Parser, Debug)]
#[command(name = "console-server", version)]
struct Cli {
    /// The API's base URL, e.g. https://api.provider.example (a base path is kept).
    #[arg(long, value_name = "URL")]
    upstream: Upstream,

    /// Address to listen on. Port 0 picks a free port (the start-up line tells which).
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,

    /// Serve the console built in DIR instead of the one built into this binary.
    #[arg(long, value_name = "DIR")]
    dist: Option<PathBuf>,

    /// Seconds to wait for the answer to a live submission (the provider holds it until the run
    /// ends or its lease runs out).
    #[arg(long, value_name = "SECS", default_value_t = 600)]
    live_timeout_secs: u64,

    /// Seconds to wait for any other answer, and between two pieces of an answer's body.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    timeout_secs: u64,

    /// Seconds to wait for a connection (and TLS handshake) to the API.
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    connect_timeout_secs: u64,

    /// Seconds that requests in flight may take to finish after SIGTERM or Ctrl-C.
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    shutdown_grace_secs: u64,

    /// Seconds after SIGTERM during which requests are still taken while /healthz answers 503,
    /// so that a load balancer stops sending new ones before the listener closes.
    #[arg(long, value_name = "SECS", default_value_t = 0)]
    drain_secs: u64,

    /// Seconds for a request's head to arrive, and for the next request on a kept-alive
    /// connection; then the connection is closed.
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    header_timeout_secs: u64,

    /// Seconds for a request's whole body to arrive (it is read before it is forwarded).
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    body_timeout_secs: u64,

    /// Client connections open at once; one more is answered 503 and closed.
    #[arg(long, value_name = "N", default_value_t = ConnectionLimits::default().max_connections as u64,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    max_connections: u64,

    /// /v1 requests forwarded at once; one more is answered 503 with Retry-After.
    #[arg(long, value_name = "N", default_value_t = console_server::DEFAULT_MAX_REQUESTS_IN_FLIGHT as u64,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    max_requests: u64,

    /// Seconds a client connection may stay open; then it finishes its request and closes.
    #[arg(long, value_name = "SECS", default_value_t = ConnectionLimits::default().max_age.as_secs())]
    connection_max_secs: u64,

    /// A name people reach this server under (console.example.com), besides its IP addresses
    /// and localhost; a request for any other Host is refused (repeatable).
    #[arg(long, value_name = "NAME")]
    public_host: Vec<String>,

    /// Allow an http:// upstream that is neither loopback nor a private address: bearer tokens
    /// then cross the network in clear.
    #[arg(long)]
    allow_plain_http_upstream: bool,

    /// Serve metrics (Prometheus's text format) at http://ADDR/metrics; keep it private.
    #[arg(long, value_name = "ADDR")]
    metrics_addr: Option<SocketAddr>,

    /// The name the console shows for this API, in its header and the tab's title (default:
    /// the upstream's host).
    #[arg(long, value_name = "NAME")]
    environment: Option<String>,

    /// Whether runs here spend real credits (live) or play money (sandbox).
    #[arg(long, value_name = "KIND", default_value = "live", value_parser = environment_kind)]
    environment_kind: EnvironmentKind,

    /// A PEM file of certificate authorities to trust for the API, besides the system's and
    /// Mozilla's (an API behind a private CA); repeatable.
    #[arg(long, value_name = "PEM")]
    upstream_ca: Vec<PathBuf>,
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
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_ansi(false)
        .init();
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
    eprintln!(
        "console-server: the console on http://{addr}, /v1 forwarded to {upstream} ({}, {kind})",
        environment.name
    );
    if !upstream.is_https() && !upstream.is_loopback() {
        eprintln!(
            "console-server: warning: {upstream} is plain http; credentials cross the network \
             unencrypted"
        );
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
    });
    let drain = Duration::from_secs(cli.drain_secs);
    let (stopping_tx, stopping_rx) = tokio::sync::oneshot::channel::<()>();
    let stop = async move {
        stop_signal.await;
        health.start_draining();
        if !drain.is_zero() {
            eprintln!(
                "console-server: draining: /healthz answers 503; taking requests for {} s more",
                drain.as_secs()
            );
            tokio::time::sleep(drain).await;
        }
        eprintln!("console-server: stopping; finishing the requests in flight");
        let _ = stopping_tx.send(());
    };
    let grace = Duration::from_secs(cli.shutdown_grace_secs);
    tokio::select! {
        () = serve(listener, service, limits, metrics, stop) => {}
        () = async {
            let _ = stopping_rx.await;
            tokio::time::sleep(grace).await;
        } => {
            eprintln!(
                "console-server: requests still in flight after {} s; stopping anyway",
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
        Ok(limit) if limit < needed => eprintln!(
            "console-server: warning: the open-file limit is {limit}; --max-connections \
             {max_connections} needs about {needed} (raise it, e.g. LimitNOFILE= in a systemd \
             unit, or lower --max-connections)"
        ),
        Ok(_) => {}
        Err(error) => eprintln!("console-server: warning: the open-file limit: {error}"),
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
