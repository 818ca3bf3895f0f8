//! Helpers shared by the sandbox's HTTP tests: one request in, one parsed reply out.
#![allow(dead_code)]

use api_contract::{ErrorBody, REQUEST_ID_HEADER};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use sandbox::{SandboxConfig, SandboxState, SeededWorkspace, app};
use serde_json::Value;
use tower::ServiceExt;

/// Asserts that `value` is a date-time as the sandbox has always written it: RFC 3339 in UTC
/// with `Z` and exactly three fraction digits (`2026-11-20T14:03:09.123Z`), never chrono's
/// default of 0, 6 or 9 digits.
pub fn assert_millisecond_utc(value: &Value, what: &str) {
    static FORM: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$").unwrap()
    });
    let text = value
        .as_str()
        .unwrap_or_else(|| panic!("{what} is not a string: {value}"));
    assert!(FORM.is_match(text), "{what} = {text:?}");
}

pub struct Reply {
    pub status: StatusCode,
    pub headers: axum::http::HeaderMap,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn json<T: serde::de::DeserializeOwned>(&self) -> T {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&self.body)))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|v| v.to_str().unwrap())
    }

    /// Asserts the contract's error body with `code`, and that its request id is the header's.
    pub fn assert_error(&self, status: StatusCode, code: &str) -> ErrorBody {
        assert_eq!(
            self.status,
            status,
            "{}",
            String::from_utf8_lossy(&self.body)
        );
        let body: ErrorBody = self.json();
        assert_eq!(body.error.code, code, "{}", body.error.message);
        assert!(!body.error.message.is_empty());
        assert_eq!(
            body.error.request_id.as_deref(),
            self.header(REQUEST_ID_HEADER)
        );
        assert!(
            body.error
                .request_id
                .as_deref()
                .unwrap()
                .starts_with("req_")
        );
        body
    }
}

#[derive(Clone)]
pub struct Sandbox {
    pub router: axum::Router,
    pub state: SandboxState,
    pub seeded: Vec<SeededWorkspace>,
}

impl Sandbox {
    pub fn new(config: SandboxConfig) -> Self {
        let (state, seeded) = SandboxState::seeded(config);
        Sandbox {
            router: app(state.clone(), None),
            state,
            seeded,
        }
    }

    /// A fast sandbox that also serves the built console in `dist`, as `--dist` does.
    pub fn serving_console(dist: std::path::PathBuf) -> Self {
        let (state, seeded) = SandboxState::seeded(SandboxConfig::fast());
        Sandbox {
            router: app(state.clone(), Some(dist)),
            state,
            seeded,
        }
    }

    pub fn fast() -> Self {
        Sandbox::new(SandboxConfig::fast())
    }

    pub fn key(&self) -> &str {
        &self.seeded[0].api_key
    }

    pub fn session(&self) -> &str {
        &self.seeded[0].session_token
    }

    pub async fn send(
        &self,
        method: &str,
        path: &str,
        bearer: Option<&str>,
        headers: &[(&str, &str)],
        body: Option<&str>,
    ) -> Reply {
        let mut request = Request::builder().method(method).uri(path);
        if let Some(bearer) = bearer {
            request = request.header("authorization", format!("Bearer {bearer}"));
        }
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let body = body.map_or_else(Body::empty, |b| Body::from(b.to_owned()));
        let response = self
            .router
            .clone()
            .oneshot(request.body(body).unwrap())
            .await
            .unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let body = response
            .into_body()
            .collect()
            .await
            .unwrap()
            .to_bytes()
            .to_vec();
        Reply {
            status,
            headers,
            body,
        }
    }

    /// A request with a credential and nothing else: no other header, no body.
    pub async fn request(&self, method: &str, path: &str, bearer: &str) -> Reply {
        self.send(method, path, Some(bearer), &[], None).await
    }

    pub async fn get(&self, path: &str, bearer: &str) -> Reply {
        self.request("GET", path, bearer).await
    }

    /// Submits `body` to `action` in `mode` ("live" or "async") with an idempotency key.
    pub async fn submit(
        &self,
        bearer: &str,
        action: &str,
        mode: &str,
        key: &str,
        body: &Value,
    ) -> Reply {
        self.send(
            "POST",
            &format!("/v1/actions/{action}/run/{mode}"),
            Some(bearer),
            &[
                ("content-type", "application/json"),
                ("idempotency-key", key),
            ],
            Some(&body.to_string()),
        )
        .await
    }

    /// [`Sandbox::submit`] as the seeded workspace's API key.
    pub async fn submit_with_key(
        &self,
        action: &str,
        mode: &str,
        key: &str,
        body: &Value,
    ) -> Reply {
        self.submit(self.key(), action, mode, key, body).await
    }

    pub async fn workspace(&self, bearer: &str) -> api_contract::Workspace {
        self.get("/v1/workspace", bearer).await.json()
    }

    /// Polls a run until it is terminal (bounded).
    pub async fn wait_terminal(&self, bearer: &str, run_id: &str) -> api_contract::Run {
        for _ in 0..400 {
            let run: api_contract::Run =
                self.get(&format!("/v1/runs/{run_id}"), bearer).await.json();
            if run.status.is_terminal() {
                return run;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        panic!("run {run_id} did not finish");
    }
}
