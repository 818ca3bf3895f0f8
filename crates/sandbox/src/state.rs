//! The sandbox's in-memory store: workspaces, API keys (hashed) and the session signing secret.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use api_contract::{ActionId, Run, UsageToday, Workspace};
use chrono::{DateTime, SubsecRound, Utc};
use rand::RngCore;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::config::SandboxConfig;
use crate::jwt::{self, SessionClaims};

/// How long a session token printed at start-up stays valid.
pub const SESSION_LIFETIME_SECS: i64 = 12 * 60 * 60;

/// Length of the visible part of a key, shown in lists: `sk_sandbox_` and five hex digits,
/// enough to tell keys apart, never enough to use.
const KEY_PREFIX_LEN: usize = 16;

#[derive(Clone, Debug)]
pub struct WorkspaceRecord {
    pub workspace: Workspace,
    /// The account that owns the workspace (the `sub` of its sessions).
    pub account: String,
    /// The UTC day `usage_today` counts; a new day starts from zero.
    pub usage_day: chrono::NaiveDate,
}

impl WorkspaceRecord {
    /// Resets `usage_today` when the UTC day has changed since it was last counted.
    pub fn roll_usage_day(&mut self, today: chrono::NaiveDate) {
        if self.usage_day != today {
            self.usage_day = today;
            self.workspace.usage_today = UsageToday::default();
        }
    }
}

/// A run and what the sandbox needs to finish it.
#[derive(Clone, Debug)]
pub struct RunRecord {
    pub run: Run,
    pub workspace_id: String,
    pub action: ActionId,
    pub input: api_contract::RunInput,
    /// Most records the run may return: `max_results` capped at the action's ceiling, lowered
    /// so the cost fits `max_credits`.
    pub record_limit: usize,
    pub forced_failure: Option<String>,
    pub slow: bool,
}

/// What an `Idempotency-Key` was first used for, and the run it created (once one exists).
#[derive(Clone, Debug)]
pub struct IdempotencyRecord {
    /// Action and canonical body of the first submission with this key.
    pub fingerprint: String,
    pub run_id: Option<String>,
    /// Submissions seen with this key, including ones refused by a forced fault.
    pub attempts: u32,
}

/// Token bucket limiting a workspace's submissions.
#[derive(Clone, Debug)]
pub struct RateBucket {
    pub tokens: f64,
    pub updated: Instant,
}

#[derive(Clone, Debug)]
pub struct KeyRecord {
    pub id: String,
    pub workspace_id: String,
    pub name: String,
    pub prefix: String,
    /// SHA-256 of the secret; the secret itself is never stored.
    pub secret_hash: [u8; 32],
    pub created_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Default)]
pub struct Store {
    pub workspaces: Vec<WorkspaceRecord>,
    pub keys: Vec<KeyRecord>,
    pub runs: HashMap<String, RunRecord>,
    /// Run ids, oldest first.
    pub run_order: Vec<String>,
    /// Keyed by (workspace id, idempotency key): keys are scoped to a workspace.
    pub idempotency: HashMap<(String, String), IdempotencyRecord>,
    pub rate: HashMap<String, RateBucket>,
}

impl Store {
    pub fn workspace(&self, id: &str) -> Option<&WorkspaceRecord> {
        self.workspaces
            .iter()
            .find(|w| w.workspace.workspace_id == id)
    }

    pub fn workspace_mut(&mut self, id: &str) -> Option<&mut WorkspaceRecord> {
        self.workspaces
            .iter_mut()
            .find(|w| w.workspace.workspace_id == id)
    }

    /// A run of `workspace_id`; another workspace's run is as good as absent.
    pub fn run_in(&self, workspace_id: &str, run_id: &str) -> Option<&RunRecord> {
        self.runs
            .get(run_id)
            .filter(|r| r.workspace_id == workspace_id)
    }
}

/// Shared, cheaply clonable handle on the sandbox's state.
#[derive(Clone)]
pub struct SandboxState {
    inner: Arc<Inner>,
}

struct Inner {
    store: Mutex<Store>,
    session_secret: [u8; 32],
    config: SandboxConfig,
    /// Woken whenever a run changes state, for live submissions waiting on it.
    run_changed: tokio::sync::Notify,
}

/// Credentials of a seeded workspace, as printed at start-up.
#[derive(Clone, Debug, Serialize)]
pub struct SeededWorkspace {
    pub workspace_id: String,
    pub name: String,
    pub account: String,
    pub api_key: String,
    pub session_token: String,
}

pub fn hash_secret(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    rand::thread_rng().fill_bytes(&mut buf);
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

/// The current time at the precision the wire carries (milliseconds), so a run held here equals
/// the run a client decodes from its JSON.
pub fn now_millis() -> DateTime<Utc> {
    Utc::now().trunc_subsecs(3)
}

impl SandboxState {
    /// A fresh sandbox with two workspaces, each with one API key and one account session,
    /// so isolation between workspaces can be shown and tested.
    pub fn seeded(config: SandboxConfig) -> (SandboxState, Vec<SeededWorkspace>) {
        let mut secret = [0u8; 32];
        rand::thread_rng().fill_bytes(&mut secret);
        let state = SandboxState {
            inner: Arc::new(Inner {
                store: Mutex::new(Store::default()),
                session_secret: secret,
                config,
                run_changed: tokio::sync::Notify::new(),
            }),
        };
        let seeds = [
            (
                "ws_acme",
                "Acme Research",
                "admin@acme.example",
                state.config().initial_credits,
            ),
            ("ws_globex", "Globex Analytics", "ops@globex.example", 1_500),
        ];
        let mut seeded = Vec::new();
        for (id, name, account, balance) in seeds {
            state.store().workspaces.push(WorkspaceRecord {
                workspace: Workspace {
                    workspace_id: id.to_owned(),
                    name: name.to_owned(),
                    credits_balance: balance,
                    credits_reserved: 0,
                    usage_today: UsageToday::default(),
                },
                account: account.to_owned(),
                usage_day: Utc::now().date_naive(),
            });
            let (_, api_key) = state.create_key(id, "Sandbox default key");
            let session_token = state.issue_session(id, account, SESSION_LIFETIME_SECS);
            seeded.push(SeededWorkspace {
                workspace_id: id.to_owned(),
                name: name.to_owned(),
                account: account.to_owned(),
                api_key,
                session_token,
            });
        }
        (state, seeded)
    }

    pub fn store(&self) -> MutexGuard<'_, Store> {
        // A panic while holding the lock must not take the whole sandbox down with it.
        self.inner
            .store
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn session_secret(&self) -> &[u8] {
        &self.inner.session_secret
    }

    pub fn config(&self) -> &SandboxConfig {
        &self.inner.config
    }

    pub fn run_changed(&self) -> &tokio::sync::Notify {
        &self.inner.run_changed
    }

    /// Creates a key and returns its record and the secret (the only time it exists in clear).
    pub fn create_key(&self, workspace_id: &str, name: &str) -> (KeyRecord, String) {
        let secret = format!("sk_sandbox_{}", random_hex(24));
        let record = KeyRecord {
            id: format!("key_{}", random_hex(8)),
            workspace_id: workspace_id.to_owned(),
            name: name.to_owned(),
            prefix: secret[..KEY_PREFIX_LEN].to_owned(),
            secret_hash: hash_secret(&secret),
            created_at: now_millis(),
            revoked_at: None,
        };
        self.store().keys.push(record.clone());
        (record, secret)
    }

    /// Signs an account-session token for `account` in `workspace_id`.
    pub fn issue_session(&self, workspace_id: &str, account: &str, lifetime_secs: i64) -> String {
        let now = Utc::now().timestamp();
        jwt::sign(
            &SessionClaims {
                sub: account.to_owned(),
                workspace_id: workspace_id.to_owned(),
                iat: now,
                exp: now + lifetime_secs,
            },
            self.session_secret(),
        )
    }
}
