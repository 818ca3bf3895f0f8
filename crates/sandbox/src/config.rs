//! Tunable behaviour of the sandbox: run timings, faults and rate limits.

use std::time::Duration;

/// How the sandbox behaves; every field has a command-line flag (see `main.rs`).
#[derive(Clone, Debug, PartialEq)]
pub struct SandboxConfig {
    /// Time a run stays `queued` before `processing`.
    pub queue_time: Duration,
    /// Time a run spends `processing` before it completes or fails.
    pub process_time: Duration,
    /// How long a live submission waits for a terminal run before answering 202.
    pub live_lease: Duration,
    /// Share of runs (0–1) that fail with `provider_error`.
    pub fail_share: f64,
    /// Share of submissions (0–1) answered 500 before any run is created.
    pub error_500_share: f64,
    /// Extra latency added to every `/v1` response.
    pub latency: Duration,
    /// Submissions a workspace may send in a burst before 429.
    pub rate_burst: u32,
    /// Submissions per second the burst refills with.
    pub rate_per_sec: f64,
    /// Starting credit balance of the first seeded workspace.
    pub initial_credits: u64,
    /// Origins, besides its own, the served console may call (its CSP `connect-src`).
    pub connect_src: Vec<String>,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        SandboxConfig {
            queue_time: Duration::from_millis(600),
            process_time: Duration::from_millis(1800),
            live_lease: Duration::from_secs(10),
            fail_share: 0.0,
            error_500_share: 0.0,
            latency: Duration::ZERO,
            rate_burst: 60,
            rate_per_sec: 2.0,
            initial_credits: 25_000,
            connect_src: Vec::new(),
        }
    }
}

impl SandboxConfig {
    /// Quick runs for tests: a few milliseconds per state.
    pub fn fast() -> Self {
        SandboxConfig {
            queue_time: Duration::from_millis(20),
            process_time: Duration::from_millis(40),
            live_lease: Duration::from_secs(5),
            ..SandboxConfig::default()
        }
    }
}
