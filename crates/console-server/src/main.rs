//! The console-server binary: checks its flags, binds, prints one JSON line with its URL, logs
//! one line per request on stderr, and on SIGTERM or Ctrl-C stops taking requests and lets those
//! in flight finish (up to `--shutdown-grace-secs`).

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use api_contract::{ConsoleEnvironment, EnvironmentKind};
use clap::Parser;
use console_server::{Forwarder, Timeouts, Upstream, app, console_files};
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
    let timeouts = Timeouts {
        live: Duration::from_secs(cli.live_timeout_secs),
        other: Duration::from_secs(cli.timeout_secs),
        connect: Duration::from_secs(cli.connect_timeout_secs),
    };
    let upstream = cli.upstream.clone();
    let forwarder = Forwarder::new(upstream.clone(), timeouts, &roots).unwrap_or_else(|e| fail(&e));
    let environment = ConsoleEnvironment {
        kind: cli.environment_kind,
        name: cli
            .environment
            .clone()
            .filter(|name| !name.trim().is_empty())
            .unwrap_or_else(|| ConsoleEnvironment::live_at(upstream.origin()).name),
    };
    let listener = tokio::net::TcpListener::bind(cli.addr).await?;
    let addr = listener.local_addr()?;
    let line = serde_json::json!({
        "url": format!("http://{addr}"),
        "upstream": upstream.to_string(),
        "environment": environment,
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

    let (stopping_tx, stopping_rx) = tokio::sync::oneshot::channel::<()>();
    let server = axum::serve(
        listener,
        app(forwarder, files, environment.clone(), timeouts.other),
    )
    .with_graceful_shutdown(async move {
        stop_signal().await;
        eprintln!("console-server: stopping; finishing the requests in flight");
        let _ = stopping_tx.send(());
    });
    let grace = Duration::from_secs(cli.shutdown_grace_secs);
    tokio::select! {
        served = server => served,
        () = async {
            let _ = stopping_rx.await;
            tokio::time::sleep(grace).await;
        } => {
            eprintln!(
                "console-server: requests still in flight after {} s; stopping anyway",
                grace.as_secs()
            );
            Ok(())
        }
    }
}

/// SIGTERM (a service manager, a container's stop) or Ctrl-C.
async fn stop_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}
