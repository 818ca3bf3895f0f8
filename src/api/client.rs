//! `ApiClient`: the one place that sends HTTP requests, with the bearer header, the
//! idempotency key and the JSON body, and reads every answer through [`interpret_response`].

use std::sync::Arc;

use api_contract::{
    ActionList, CreateKeyRequest, CreatedApiKey, Endpoint, KeyList, REQUEST_ID_HEADER, RouteMethod,
    Run, RunList, RunListCounted, Workspace,
};
use serde::de::DeserializeOwned;

use super::error::{ApiError, interpret_error, interpret_response};
use crate::model::request_log::Exchange;
use crate::model::urls::encode;

/// Called with the error when the API refuses the credential (401).
pub type UnauthorizedHandler = Arc<dyn Fn(&ApiError) + Send + Sync>;

/// Called with every request and its answer, for the request log (the credential is not in it).
pub type ExchangeObserver = Arc<dyn Fn(Exchange) + Send + Sync>;

/// Where the API lives, the bearer credential to send, and who hears about a 401.
#[derive(Clone)]
pub struct ApiClient {
    base_url: String,
    bearer: String,
    on_unauthorized: Option<UnauthorizedHandler>,
    on_exchange: Option<ExchangeObserver>,
}

impl std::fmt::Debug for ApiClient {
    // The bearer is a secret: it never reaches a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiClient")
            .field("base_url", &self.base_url)
            .finish_non_exhaustive()
    }
}

/// A value from the API with the `x-request-id` of the response that brought it.
#[derive(Clone, Debug, PartialEq)]
pub struct WithRequestId<T> {
    pub value: T,
    pub request_id: Option<String>,
    /// The size of the answer's body: what the read cost (bulk batches choose reads by it).
    pub body_bytes: usize,
}

/// How a submission was answered: 200 (the run is terminal) or 202 (still queued or processing).
#[derive(Clone, Debug, PartialEq)]
pub struct Submitted {
    pub status: u16,
    pub run: Run,
}

impl ApiClient {
    /// `base_url` without `/v1`; `bearer` is an API key or an account-session JWT.
    pub fn new(base_url: impl Into<String>, bearer: impl Into<String>) -> Self {
        ApiClient {
            base_url: base_url.into(),
            bearer: bearer.into(),
            on_unauthorized: None,
            on_exchange: None,
        }
    }

    /// Reports every 401 to `handler` (the session ends, so the app leads back to sign-in).
    pub fn on_unauthorized(mut self, handler: impl Fn(&ApiError) + Send + Sync + 'static) -> Self {
        self.on_unauthorized = Some(Arc::new(handler));
        self
    }

    /// Tells `observer` of every request and its answer (`crate::request_log`).
    pub fn on_exchange(mut self, observer: ExchangeObserver) -> Self {
        self.on_exchange = Some(observer);
        self
    }

    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// Sends one request and reads the whole answer, and tells the log. Not generic, so every
    /// endpoint shares one copy of this code in the wasm bundle.
    ///
    /// The log hears of the request even when its answer is never read: a page left while its
    /// request was out drops this future (its task is cancelled with the page), but the request
    /// was sent, and the API may have acted on it.
    async fn send(&self, request: Request<'_>) -> Result<Exchanged, ApiError> {
        let mut unread = UnreadAnswer {
            client: self,
            request: &request,
            started: chrono::Utc::now(),
            told: false,
        };
        let answered = self.exchange(&request).await;
        unread.told = true;
        let (status, request_id, answer, network_error) = match &answered {
            Ok(a) => (Some(a.status), a.request_id.clone(), a.body.clone(), None),
            Err(error) => (None, None, String::new(), Some(error.message())),
        };
        self.tell(
            &request,
            unread.started,
            Told {
                status,
                request_id,
                answer,
                network_error,
            },
        );
        answered
    }

    /// Tells the log of `request`, sent at `started`, and what came of it.
    fn tell(&self, request: &Request<'_>, started: chrono::DateTime<chrono::Utc>, told: Told) {
        let Some(observer) = &self.on_exchange else {
            return;
        };
        observer(Exchange {
            at: started,
            duration_ms: (chrono::Utc::now() - started)
                .num_milliseconds()
                .clamp(0, i64::from(u32::MAX)) as u32,
            method: request.endpoint.method().as_str().to_owned(),
            base_url: self.base_url.clone(),
            path: request.path.clone(),
            idempotency_key: request.idempotency_key.map(str::to_owned),
            request_body: request.json_body.map(str::to_owned),
            status: told.status,
            network_error: told.network_error,
            request_id: told.request_id,
            answer: told.answer,
        });
    }

    async fn exchange(&self, request: &Request<'_>) -> Result<Exchanged, ApiError> {
        use gloo_net::http::RequestBuilder;
        let url = format!("{}{}", self.base_url, request.path);
        let mut builder = RequestBuilder::new(&url)
            .method(request.method())
            .header("Authorization", &format!("Bearer {}", self.bearer))
            .header("Accept", "application/json");
        if let Some(key) = request.idempotency_key {
            builder = builder.header("Idempotency-Key", key);
        }
        let sent = match request.json_body {
            Some(body) => {
                builder
                    .header("Content-Type", "application/json")
                    .body(body)
                    .map_err(|e| ApiError::Network(e.to_string()))?
                    .send()
                    .await
            }
            None => builder.send().await,
        };
        let response = match sent {
            Ok(response) => response,
            // The browser hides the cause of a failed fetch: gather what it does tell.
            Err(gloo_net::Error::JsError(_)) => {
                return Err(ApiError::NoAnswer(super::probe::why_no_answer(&url).await));
            }
            Err(other) => return Err(ApiError::Network(other.to_string())),
        };
        let status = response.status();
        let request_id = response.headers().get(REQUEST_ID_HEADER);
        let body = response
            .text()
            .await
            .map_err(|e| ApiError::Network(e.to_string()))?;
        if status == 401
            && let Some(handler) = &self.on_unauthorized
        {
            handler(&interpret_error(status, request_id.clone(), &body));
        }
        Ok(Exchanged {
            status,
            request_id,
            body,
        })
    }

    /// A request and its decoded answer, with the response's request id.
    async fn call<T: DeserializeOwned>(
        &self,
        request: Request<'_>,
    ) -> Result<(u16, WithRequestId<T>), ApiError> {
        let Exchanged {
            status,
            request_id,
            body,
        } = self.send(request).await?;
        let value = interpret_response(status, request_id.clone(), &body)?;
        Ok((
            status,
            WithRequestId {
                value,
                request_id,
                body_bytes: body.len(),
            },
        ))
    }

    async fn get<T: DeserializeOwned>(
        &self,
        request: Request<'_>,
    ) -> Result<WithRequestId<T>, ApiError> {
        self.call(request).await.map(|(_, answer)| answer)
    }

    /// `GET /v1/workspace`.
    pub async fn workspace(&self) -> Result<Workspace, ApiError> {
        self.get(Request::to(Endpoint::GetWorkspace))
            .await
            .map(|a| a.value)
    }

    /// `GET /v1/actions`.
    pub async fn actions(&self) -> Result<ActionList, ApiError> {
        self.get(Request::to(Endpoint::ListActions))
            .await
            .map(|a| a.value)
    }

    /// `POST /v1/actions/{action}/run/{live|async}` with a JSON `body` and its idempotency key.
    pub async fn submit(
        &self,
        action: &str,
        live: bool,
        idempotency_key: &str,
        body: &str,
    ) -> Result<Submitted, ApiError> {
        let endpoint = Endpoint::submit(live);
        let request = Request {
            json_body: Some(body),
            idempotency_key: Some(idempotency_key),
            ..Request::to_one(endpoint, action)
        };
        let (status, answer) = self.call(request).await?;
        Ok(Submitted {
            status,
            run: answer.value,
        })
    }

    /// `GET /v1/runs/{id}`.
    pub async fn run(&self, id: &str) -> Result<WithRequestId<Run>, ApiError> {
        self.get(Request::to_one(Endpoint::GetRun, id)).await
    }

    /// `GET /v1/runs`: the latest 100.
    pub async fn runs(&self) -> Result<WithRequestId<RunList>, ApiError> {
        self.get(Request::to(Endpoint::ListRuns)).await
    }

    /// `GET /v1/runs`: the latest 100, each run's records counted and not kept (a list of 100
    /// finished runs can carry 10,000 records).
    pub async fn runs_counted(&self) -> Result<WithRequestId<RunListCounted>, ApiError> {
        self.get(Request::to(Endpoint::ListRuns)).await
    }

    /// `GET /v1/keys`: up to 100 recent keys, without secrets (an account session only).
    pub async fn keys(&self) -> Result<KeyList, ApiError> {
        self.get(Request::to(Endpoint::ListKeys))
            .await
            .map(|a| a.value)
    }

    /// `POST /v1/keys`: a new key, whose `api_key` secret this answer is the only one to carry.
    pub async fn create_key(&self, name: &str) -> Result<CreatedApiKey, ApiError> {
        let body = serde_json::to_string_pretty(&CreateKeyRequest {
            name: name.to_owned(),
        })
        .map_err(|e| ApiError::Network(e.to_string()))?;
        let request = Request {
            json_body: Some(&body),
            ..Request::to(Endpoint::CreateKey)
        };
        self.call(request).await.map(|(_, answer)| answer.value)
    }

    /// `DELETE /v1/keys/{id}`: 204 with no body.
    pub async fn revoke_key(&self, id: &str) -> Result<(), ApiError> {
        let Exchanged {
            status,
            request_id,
            body,
        } = self.send(Request::to_one(Endpoint::RevokeKey, id)).await?;
        if (200..300).contains(&status) {
            Ok(())
        } else {
            Err(interpret_error(status, request_id, &body))
        }
    }

    /// `POST /v1/runs/{id}/cancel`.
    pub async fn cancel(&self, id: &str) -> Result<Run, ApiError> {
        self.call(Request::to_one(Endpoint::CancelRun, id))
            .await
            .map(|(_, answer)| answer.value)
    }
}

/// A request as plain data; [`ApiClient::send`] executes it. Its method and path are the
/// contract's route's (`api_contract::Endpoint`), as the sandbox and console-server know them.
struct Request<'a> {
    endpoint: Endpoint,
    /// The route's path, its parameter filled in (percent-encoded).
    path: String,
    json_body: Option<&'a str>,
    idempotency_key: Option<&'a str>,
}

impl Request<'_> {
    /// A request to a route without a parameter, with no body and no key.
    fn to(endpoint: Endpoint) -> Self {
        Request {
            endpoint,
            path: endpoint.path().to_owned(),
            json_body: None,
            idempotency_key: None,
        }
    }

    /// A request to a route about one thing (`{action}`, `{id}`): `parameter`, percent-encoded.
    fn to_one(endpoint: Endpoint, parameter: &str) -> Self {
        Request {
            path: endpoint.path_with(&encode(parameter)),
            ..Request::to(endpoint)
        }
    }

    fn method(&self) -> gloo_net::http::Method {
        match self.endpoint.method() {
            RouteMethod::Get => gloo_net::http::Method::GET,
            RouteMethod::Post => gloo_net::http::Method::POST,
            RouteMethod::Delete => gloo_net::http::Method::DELETE,
        }
    }
}

/// What came back: status, request id header and the body as text.
struct Exchanged {
    status: u16,
    request_id: Option<String>,
    body: String,
}

/// What the log is told of an exchange besides the request.
struct Told {
    status: Option<u16>,
    request_id: Option<String>,
    answer: String,
    network_error: Option<String>,
}

/// Said in the log of a request whose answer was never read.
const ANSWER_NOT_READ: &str = "The page that sent it was left before its answer came: the request \
    went, and the API may have acted on it.";

/// A request out, until its answer is read: dropped before that (the page that sent it was
/// left), it tells the log that the request went and its answer was not read.
struct UnreadAnswer<'a> {
    client: &'a ApiClient,
    request: &'a Request<'a>,
    started: chrono::DateTime<chrono::Utc>,
    told: bool,
}

impl Drop for UnreadAnswer<'_> {
    fn drop(&mut self) {
        if !self.told {
            self.client.tell(
                self.request,
                self.started,
                Told {
                    status: None,
                    request_id: None,
                    answer: String::new(),
                    network_error: Some(ANSWER_NOT_READ.to_owned()),
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_never_shows_the_bearer() {
        let client = ApiClient::new("http://x", "sk_secret_value");
        assert!(!format!("{client:?}").contains("sk_secret_value"));
    }
}
