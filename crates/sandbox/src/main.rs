//! The sandbox binary: binds, prints one JSON line with its URL and credentials, and serves.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Parser;
use sandbox::{SandboxState, app};

/// A faithful local implementation of the data-extraction API (/v1), for demos and tests.
#[derive(Parser, Debug)]
#[command(name = "sandbox", version)]
struct Cli {
    /// Address to listen on. Use port 0 to pick a free port (the start-up line tells which).
    #[arg(long, default_value = "127.0.0.1:8787")]
    addr: SocketAddr,

    /// A built console (trunk's dist/) to serve at `/`, with an SPA fallback to index.html.
    #[arg(long, value_name = "DIR")]
    dist: Option<PathBuf>,
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let cli = Cli::parse();
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
    let (state, seeded) = SandboxState::seeded();
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
