//! Serde types for every resource of the contract (section 2), field names exactly as published.
//!
//! Date-times are `DateTime<Utc>` and go through [`crate::timestamp`], so the wire keeps its
//! millisecond `Z` form whatever chrono's default would print.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::timestamp;

/// Lifecycle state of a run. Terminal states are `completed`, `failed` and `cancelled`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    Queued,
    Processing,
    Completed,
    Failed,
    Cancelled,
}

impl RunStatus {
    pub const ALL: [RunStatus; 5] = [
        RunStatus::Queued,
        RunStatus::Processing,
        RunStatus::Completed,
        RunStatus::Failed,
        RunStatus::Cancelled,
    ];

    /// A terminal run never changes again, so clients stop polling it.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            RunStatus::Completed | RunStatus::Failed | RunStatus::Cancelled
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Queued => "queued",
            RunStatus::Processing => "processing",
            RunStatus::Completed => "completed",
            RunStatus::Failed => "failed",
            RunStatus::Cancelled => "cancelled",
        }
    }
}

/// `completeness` of a run: `has_more` is a signal from the provider, never a page cursor.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Completeness {
    pub has_more: bool,
    /// Currently always `single_page`.
    #[cfg_attr(feature = "openapi", schema(schema_with = single_page_scope))]
    pub scope: String,
}

/// The schema of `scope`: the one value the contract knows.
#[cfg(feature = "openapi")]
fn single_page_scope() -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .enum_values(Some([Completeness::SINGLE_PAGE]))
        .build()
}

impl Completeness {
    pub const SINGLE_PAGE: &'static str = "single_page";

    pub fn single_page(has_more: bool) -> Self {
        Completeness {
            has_more,
            scope: Self::SINGLE_PAGE.to_owned(),
        }
    }
}

/// The `error` object of a failed run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RunError {
    pub code: String,
    pub message: String,
}

/// A run (RunResponse, section 2.1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Run {
    #[cfg_attr(feature = "openapi", schema(format = "uuid"))]
    pub id: String,
    pub action: String,
    pub status: RunStatus,
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<Object>))]
    pub output: Vec<Value>,
    pub credits_used: u64,
    pub credits_reserved: u64,
    #[serde(with = "timestamp")]
    pub created_at: DateTime<Utc>,
    // Always sent: null until there is one.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    #[serde(default, with = "timestamp::option")]
    pub completed_at: Option<DateTime<Utc>>,
    pub completeness: Completeness,
    // Absent when there is none, never null.
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<RunError>,
}

impl Run {
    /// This run without its records (a copy of everything else).
    pub fn without_output(&self) -> Run {
        Run {
            id: self.id.clone(),
            action: self.action.clone(),
            status: self.status,
            output: Vec::new(),
            credits_used: self.credits_used,
            credits_reserved: self.credits_reserved,
            created_at: self.created_at,
            completed_at: self.completed_at,
            completeness: self.completeness.clone(),
            error: self.error.clone(),
        }
    }
}

/// A run of `GET /v1/runs` read for everything but its records, which are counted and not
/// kept: for a client that keeps what the list says of each run and not the records (the
/// console's history), which a list of 100 finished runs carries by the thousand (2 MB for
/// 100 runs of 100 people). The same JSON as [`Run`], read without making a value of every
/// record.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct RunCounted {
    pub id: String,
    pub action: String,
    pub status: RunStatus,
    /// How many records `output` held.
    #[serde(rename = "output", deserialize_with = "count_items")]
    pub records: usize,
    pub credits_used: u64,
    pub credits_reserved: u64,
    #[serde(with = "timestamp")]
    pub created_at: DateTime<Utc>,
    #[serde(default, with = "timestamp::option")]
    pub completed_at: Option<DateTime<Utc>>,
    pub completeness: Completeness,
    #[serde(default)]
    pub error: Option<RunError>,
}

impl RunCounted {
    /// The run, without its records ([`RunCounted::records`] says how many it had).
    pub fn into_run(self) -> Run {
        Run {
            id: self.id,
            action: self.action,
            status: self.status,
            output: Vec::new(),
            credits_used: self.credits_used,
            credits_reserved: self.credits_reserved,
            created_at: self.created_at,
            completed_at: self.completed_at,
            completeness: self.completeness,
            error: self.error,
        }
    }
}

/// Response of `GET /v1/runs` with each run's records counted ([`RunCounted`]).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct RunListCounted {
    pub runs: Vec<RunCounted>,
}

/// The length of a JSON array, its items read and dropped (an array is still required).
fn count_items<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<usize, D::Error> {
    struct Count;
    impl<'de> serde::de::Visitor<'de> for Count {
        type Value = usize;
        fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
            formatter.write_str("an array")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut items: A) -> Result<usize, A::Error> {
            let mut count = 0;
            while items.next_element::<serde::de::IgnoredAny>()?.is_some() {
                count += 1;
            }
            Ok(count)
        }
    }
    deserializer.deserialize_seq(Count)
}

/// Response of `GET /v1/runs/{id}/outputs` (section 2.2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RunOutputs {
    pub run_id: String,
    pub status: RunStatus,
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<Object>))]
    pub output: Vec<Value>,
    pub completeness: Completeness,
}

/// `usage_today` of a workspace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UsageToday {
    pub profiles: u64,
    pub premium_lines: u64,
}

/// Response of `GET /v1/workspace` (section 2.3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Workspace {
    pub workspace_id: String,
    pub name: String,
    pub credits_balance: u64,
    pub credits_reserved: u64,
    pub usage_today: UsageToday,
}

impl Workspace {
    /// Credits a new submission can still reserve. Never negative, even if a server
    /// reports more reserved than held.
    pub fn credits_available(&self) -> u64 {
        self.credits_balance.saturating_sub(self.credits_reserved)
    }
}

/// An API key as listed by `GET /v1/keys` (section 2.4): never carries the secret.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ApiKey {
    pub id: String,
    pub name: String,
    pub prefix: String,
    #[serde(with = "timestamp")]
    pub created_at: DateTime<Utc>,
    // Always sent: null until there is one.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    #[serde(default, with = "timestamp::option")]
    pub revoked_at: Option<DateTime<Utc>>,
}

/// Response of `POST /v1/keys`: the only place the secret `api_key` ever appears.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreatedApiKey {
    pub id: String,
    pub api_key: String,
    pub prefix: String,
    pub name: String,
    #[serde(with = "timestamp")]
    pub created_at: DateTime<Utc>,
}

impl std::fmt::Debug for CreatedApiKey {
    // The secret must never reach a log line through `{:?}`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CreatedApiKey")
            .field("id", &self.id)
            .field("api_key", &"<redacted>")
            .field("prefix", &self.prefix)
            .field("name", &self.name)
            .field("created_at", &self.created_at)
            .finish()
    }
}

/// Body of `POST /v1/keys`: a name and nothing else.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CreateKeyRequest {
    // 1 to KEY_NAME_MAX characters (a literal for utoipa; the sandbox's tests/openapi.rs checks it).
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 100))]
    pub name: String,
}

/// One entry of the action registry (section 2.5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ActionEntry {
    pub id: String,
    /// Required input field names; absent where no single field is required.
    // Absent when there is none, never null.
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_keys: Option<Vec<String>>,
    /// Name of the input shape the action takes.
    // One of `crate::InputShape::name`'s.
    pub input_key: String,
    #[cfg_attr(feature = "openapi", schema(minimum = 1))]
    pub credits_per_record: u64,
    // utoipa's bounds are literals: 100 is MAX_RESULTS_LIMIT, as the sandbox's tests/openapi.rs checks.
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 100))]
    pub max_results: u32,
}

/// Response of `GET /v1/actions`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ActionList {
    pub actions: Vec<ActionEntry>,
}

/// How many runs `GET /v1/runs` returns at most: the workspace's latest (section 2.2).
pub const RUN_LIST_LIMIT: usize = 100;

/// Response of `GET /v1/runs`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RunList {
    // RUN_LIST_LIMIT (a literal for utoipa; the sandbox's tests/openapi.rs checks it).
    #[cfg_attr(feature = "openapi", schema(max_items = 100))]
    pub runs: Vec<Run>,
}

/// How many keys `GET /v1/keys` returns at most: the workspace's most recent (section 4.5).
pub const KEY_LIST_LIMIT: usize = 100;

/// Response of `GET /v1/keys`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct KeyList {
    // KEY_LIST_LIMIT (a literal for utoipa; the sandbox's tests/openapi.rs checks it).
    #[cfg_attr(feature = "openapi", schema(max_items = 100))]
    pub keys: Vec<ApiKey>,
}

/// The error body every failing endpoint returns (section 2.6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

/// The `error` object inside `ErrorBody`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorDetail {
    pub code: String,
    pub message: String,
    // Absent when there is none, never null.
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    // Absent when there is none, never null.
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    /// Seconds to wait before retrying (429).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after: Option<f64>,
}

/// The header that carries the request id on every sandbox response.
pub const REQUEST_ID_HEADER: &str = "x-request-id";
/// The header that makes a submission idempotent.
pub const IDEMPOTENCY_KEY_HEADER: &str = "idempotency-key";
