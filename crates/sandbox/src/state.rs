//! The sandbox's in-memory store: workspaces, API keys (hashed) and the session signing secret.

use std::sync::{Arc, Mutex, MutexGuard};

use api_contract::{UsageToday, Workspace};
use rand::RngCore;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::jwt::{self, SessionClaims};

/// How long a session token printed at start-up stays valid.
pub const SESSION_LIFETIME_SECS: i64 = 12 * 60 * 60;

/// Length of the visible part of a key, shown in lists so people can tell keys apart.
const KEY_PREFIX_LEN: usize = 12;

#[derive(Clone, Debug)]
pub struct WorkspaceRecord {
    pub workspace: Workspace,
    /// The account that owns the workspace (the `sub` of its sessions).
    pub account: String,
}

#[derive(Clone, Debug)]
pub struct KeyRecord {
    pub id: String,
    pub workspace_id: String,
    pub name: String,
    pub prefix: String,
    /// SHA-256 of the secret; the secret itself is never stored.
    pub secret_hash: [u8; 32],
    pub created_at: String,
    pub revoked_at: Option<String>,
}

#[derive(Debug, Default)]
pub struct Store {
    pub workspaces: Vec<WorkspaceRecord>,
    pub keys: Vec<KeyRecord>,
}

impl Store {
    pub fn workspace(&self, id: &str) -> Option<&WorkspaceRecord> {
        self.workspaces
            .iter()
            .find(|w| w.workspace.workspace_id == id)
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

pub fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

impl SandboxState {
    /// A fresh sandbox with two workspaces, each with one API key and one account session,
    /// so isolation between workspaces can be shown and tested.
    pub fn seeded() -> (SandboxState, Vec<SeededWorkspace>) {
        let mut secret = [0u8; 32];
        rand::thread_rng().fill_bytes(&mut secret);
        let state = SandboxState {
            inner: Arc::new(Inner {
                store: Mutex::new(Store::default()),
                session_secret: secret,
            }),
        };
        let seeds = [
            ("ws_acme", "Acme Research", "admin@acme.example", 25_000),
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

    /// Creates a key and returns its record and the secret (the only time it exists in clear).
    pub fn create_key(&self, workspace_id: &str, name: &str) -> (KeyRecord, String) {
        let secret = format!("sk_sandbox_{}", random_hex(24));
        let record = KeyRecord {
            id: format!("key_{}", random_hex(8)),
            workspace_id: workspace_id.to_owned(),
            name: name.to_owned(),
            prefix: secret[..KEY_PREFIX_LEN].to_owned(),
            secret_hash: hash_secret(&secret),
            created_at: now_rfc3339(),
            revoked_at: None,
        };
        self.store().keys.push(record.clone());
        (record, secret)
    }

    /// Signs an account-session token for `account` in `workspace_id`.
    pub fn issue_session(&self, workspace_id: &str, account: &str, lifetime_secs: i64) -> String {
        let now = chrono::Utc::now().timestamp();
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
