//! The sandbox binary: binds, prints one JSON line with its URL and credentials, and serves;
//! or, as `sandbox headers`, prints the headers a built console needs from another server.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;

use std::time::Duration;

use clap::{Parser, Subcommand};
use sandbox::{SandboxConfig, SandboxState, app};

/// A faithful local implementation of the data-extraction API (/v1), for demos and tests.
#[derive(Parser, Debug)]
#[command(name = "sandbox", version, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    /// Address to listen on. Use port 0 to pick a free port (the start-up line tells which).
    #[arg(long, default_value = "127.0.0.1:8787")]
    addr: SocketAddr,

    /// A built console (trunk's dist/) to serve at `/`, with an SPA fallback to index.html.
    #[arg(long, value_name = "DIR")]
    dist: Option<PathBuf>,

    /// Milliseconds a run stays queued before processing.
    #[arg(long, value_name = "MS", default_value_t = 600)]
    queue_ms: u64,

    /// Milliseconds a run processes before it completes or fails.
    #[arg(long, value_name = "MS", default_value_t = 1800)]
    process_ms: u64,

    /// Milliseconds a live submission waits for a terminal run before answering 202.
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    lease_ms: u64,

    /// Share of runs (0 to 1) that fail with error code provider_error.
    #[arg(long, value_name = "SHARE", default_value_t = 0.0, value_parser = share)]
    fail_share: f64,

    /// Share of submissions (0 to 1) answered 500 before any run is created.
    #[arg(long, value_name = "SHARE", default_value_t = 0.0, value_parser = share)]
    error_500_share: f64,

    /// Milliseconds added to every /v1 response.
    #[arg(long, value_name = "MS", default_value_t = 0)]
    latency_ms: u64,

    /// Submissions a workspace may send in a burst before 429.
    #[arg(long, value_name = "N", default_value_t = 60)]
    rate_burst: u32,

    /// Submissions per second a workspace's burst refills with.
    #[arg(long, value_name = "N", default_value_t = 2.0)]
    rate_per_sec: f64,

    /// Starting credit balance of the first workspace (Acme Research); the second has 1,500.
    #[arg(long, value_name = "N", default_value_t = 25_000)]
    credits: u64,

    /// An API origin the served console may call besides its own (CSP connect-src); repeatable.
    #[arg(long, value_name = "ORIGIN")]
    connect_src: Vec<String>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Prints the headers another web server must send with a built console (the CSP with its
    /// loader's hash, cache rules), then exits.
    Headers {
        /// The built console (trunk's dist/, after scripts/build-console.sh).
        #[arg(long, value_name = "DIR", default_value = "dist")]
        dist: PathBuf,

        /// The API's origin, e.g. https://api.example.com, when it is not the console's own
        /// (CSP connect-src); repeatable.
        #[arg(long, value_name = "ORIGIN", value_parser = origin)]
        api_origin: Vec<String>,
    },
}

/// `scheme://host[:port]`, as CSP source lists and browsers' Origin header write it.
fn origin(text: &str) -> Result<String, String> {
    let text = text.trim_end_matches('/');
    let host = text
        .strip_prefix("https://")
        .or_else(|| text.strip_prefix("http://"))
        .ok_or_else(|| format!("{text} does not start with https:// or http://"))?;
    let allowed = |c: char| c.is_ascii_alphanumeric() || ".-:[]*".contains(c);
    if host.is_empty() || !host.chars().all(allowed) {
        return Err(format!(
            "{text} is not an origin (scheme://host[:port], no path)"
        ));
    }
    Ok(text.to_owned())
}

fn share(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("{text} is not a number"))?;
    if (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(format!("{text} is not between 0 and 1"))
    }
}

impl Cli {
    fn config(&self) -> SandboxConfig {
        SandboxConfig {
            queue_time: Duration::from_millis(self.queue_ms),
            process_time: Duration::from_millis(self.process_ms),
            live_lease: Duration::from_millis(self.lease_ms),
            fail_share: self.fail_share,
            error_500_share: self.error_500_share,
            latency: Duration::from_millis(self.latency_ms),
            rate_burst: self.rate_burst.max(1),
            rate_per_sec: self.rate_per_sec.max(0.001),
            initial_credits: self.credits,
            connect_src: self.connect_src.clone(),
        }
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let cli = Cli::parse();
    if let Some(Command::Headers { dist, api_origin }) = &cli.command {
        match console_hosting::hosting_headers(dist, api_origin) {
            Ok(text) => {
                print!("{text}");
                return Ok(());
            }
            Err(e) => {
                eprintln!(
                    "sandbox headers: cannot read {}/index.html ({e}); build the console first",
                    dist.display()
                );
                std::process::exit(2);
            }
        }
    }
    if let Some(dist) = &cli.dist
        && !dist.join("index.html").is_file()
    {
        eprintln!(
            "sandbox: --dist {} has no index.html; build the console first (trunk build)",
            dist.display()
        );
        std::process::exit(2);
    }
    let listener = tokio::net::TcpListener::bind(cli.addr).await?;
    let addr = listener.local_addr()?;
    let (state, seeded) = SandboxState::seeded(cli.config());
    let primary = &seeded[0];
    let line = serde_json::json!({
        "url": format!("http://{addr}"),
        "api_key": primary.api_key,
        "session_token": primary.session_token,
        "workspace_id": primary.workspace_id,
        "workspaces": seeded,
        "serving_console": cli.dist.is_some(),
    });
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{line}")?;
    stdout.flush()?;
    drop(stdout);
    eprintln!("sandbox: listening on http://{addr}");

    axum::serve(listener, app(state, cli.dist))
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
}
