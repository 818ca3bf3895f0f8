//! The one place that talks HTTP: requests, the bearer header, and the mapping of
//! status + body to [`ApiError`]. Pages call the typed functions here, never gloo-net.

use api_contract::{
    ActionList, ErrorBody, ErrorDetail, REQUEST_ID_HEADER, Run, RunList, Workspace,
};

use crate::decode::{FromJson, decode};
use crate::routes::percent_encode;
use crate::session::Session;

/// Everything that can go wrong between the console and the API.
#[derive(Clone, Debug, PartialEq)]
pub enum ApiError {
    /// The server answered with the contract's error body (section 2.6).
    Api { status: u16, detail: ErrorDetail },
    /// An error status without the contract's error body: something else answered (a proxy,
    /// a static file server, another API).
    UnexpectedStatus {
        status: u16,
        request_id: Option<String>,
        snippet: String,
    },
    /// A success status whose body is not what the contract describes.
    Decode {
        status: u16,
        request_id: Option<String>,
        detail: String,
    },
    /// No answer at all: the server is down, the URL is wrong, or CORS refused it.
    Network(String),
}

impl ApiError {
    pub fn status(&self) -> Option<u16> {
        match self {
            ApiError::Api { status, .. }
            | ApiError::UnexpectedStatus { status, .. }
            | ApiError::Decode { status, .. } => Some(*status),
            ApiError::Network(_) => None,
        }
    }

    /// The server's request id, to quote in a support ticket.
    pub fn request_id(&self) -> Option<&str> {
        match self {
            ApiError::Api { detail, .. } => detail.request_id.as_deref(),
            ApiError::UnexpectedStatus { request_id, .. } | ApiError::Decode { request_id, .. } => {
                request_id.as_deref()
            }
            ApiError::Network(_) => None,
        }
    }

    /// The contract's `error.code`, when the server sent one.
    pub fn code(&self) -> Option<&str> {
        match self {
            ApiError::Api { detail, .. } => Some(&detail.code),
            _ => None,
        }
    }

    pub fn is_unauthorized(&self) -> bool {
        self.status() == Some(401)
    }

    /// A sentence for people: what happened, in words, without jargon they cannot act on.
    pub fn message(&self) -> String {
        match self {
            ApiError::Api { status, detail } => {
                let lead = match status {
                    401 => "Not signed in or the credential was refused",
                    403 => "This credential may not do that",
                    404 => "Not found",
                    409 => "Conflict",
                    429 => "Too many requests",
                    400 => "The request was not accepted",
                    s if *s >= 500 => "The API failed to handle the request",
                    _ => "The API refused the request",
                };
                format!("{lead}: {}", detail.message)
            }
            ApiError::UnexpectedStatus {
                status, snippet, ..
            } => format!(
                "The server answered HTTP {status} without the API's error format; is the API \
                 base URL right?{}",
                if snippet.is_empty() {
                    String::new()
                } else {
                    format!(" It said: “{snippet}”")
                }
            ),
            ApiError::Decode { status, detail, .. } => format!(
                "The server answered HTTP {status}, but not like this API: {detail}. Is the API \
                 base URL right?"
            ),
            ApiError::Network(detail) => format!(
                "The API could not be reached ({detail}). Check the base URL and your connection."
            ),
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for ApiError {}

/// Turns an HTTP answer into the typed value or the typed error. Pure, so it is tested natively.
/// Only the decoding of a success is generic; everything else is shared by every endpoint.
pub fn interpret_response<T: FromJson>(
    status: u16,
    request_id_header: Option<String>,
    body: &str,
) -> Result<T, ApiError> {
    if !(200..300).contains(&status) {
        return Err(interpret_error(status, request_id_header, body));
    }
    decode(body).map_err(|detail| ApiError::Decode {
        status,
        request_id: request_id_header,
        detail,
    })
}

/// The typed error for a non-success answer: the contract's error body, or a foreign page.
pub fn interpret_error(status: u16, request_id_header: Option<String>, body: &str) -> ApiError {
    match decode::<ErrorBody>(body) {
        Ok(ErrorBody { mut error }) => {
            if error.request_id.is_none() {
                error.request_id = request_id_header;
            }
            ApiError::Api {
                status,
                detail: error,
            }
        }
        Err(_) => ApiError::UnexpectedStatus {
            status,
            request_id: request_id_header,
            snippet: snippet(body),
        },
    }
}

/// The start of a body, as plain text, for an error message.
fn snippet(body: &str) -> String {
    let flat: String = body.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: String = flat.chars().take(120).collect();
    if flat.chars().count() > 120 {
        out.push('…');
    }
    out
}

/// Where the API lives and the bearer credential to send.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiClient {
    base_url: String,
    bearer: String,
    /// When set, a 401 signs this session out so the app leads back to sign-in.
    session: Option<Session>,
}

impl std::fmt::Debug for ApiClient {
    // The bearer is a secret: it never reaches a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiClient")
            .field("base_url", &self.base_url)
            .finish_non_exhaustive()
    }
}

impl ApiClient {
    /// A client that only reports errors; used to check a credential before signing in.
    pub fn new(base_url: impl Into<String>, bearer: impl Into<String>) -> Self {
        ApiClient {
            base_url: base_url.into(),
            bearer: bearer.into(),
            session: None,
        }
    }

    /// A client whose 401s end `session`.
    pub fn for_session(
        base_url: impl Into<String>,
        bearer: impl Into<String>,
        session: Session,
    ) -> Self {
        ApiClient {
            session: Some(session),
            ..ApiClient::new(base_url, bearer)
        }
    }

    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// Sends one request and reads the whole answer. Not generic, so every endpoint shares one
    /// copy of this code in the wasm bundle.
    async fn send(&self, request: Request<'_>) -> Result<Exchange, ApiError> {
        use gloo_net::http::RequestBuilder;
        let url = format!("{}{}", self.base_url, request.path);
        let builder = match request.method {
            Method::Get => RequestBuilder::new(&url),
            Method::Post => RequestBuilder::new(&url).method(gloo_net::http::Method::POST),
        }
        .header("Authorization", &format!("Bearer {}", self.bearer))
        .header("Accept", "application/json");
        let builder = match request.idempotency_key {
            Some(key) => builder.header("Idempotency-Key", key),
            None => builder,
        };
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
        let exchange = match sent {
            Ok(response) => {
                let status = response.status();
                let request_id = response.headers().get(REQUEST_ID_HEADER);
                match response.text().await {
                    Ok(body) => Ok(Exchange {
                        status,
                        request_id,
                        body,
                    }),
                    Err(e) => Err(ApiError::Network(e.to_string())),
                }
            }
            Err(e) => Err(ApiError::Network(network_reason(&e))),
        }?;
        if exchange.status == 401
            && let Some(session) = self.session
        {
            let error =
                interpret_error(exchange.status, exchange.request_id.clone(), &exchange.body);
            session.expire(error.message());
        }
        Ok(exchange)
    }

    /// A GET and its decoded answer, with the response's request id.
    async fn get_json<T: FromJson>(&self, path: &str) -> Result<(T, Option<String>), ApiError> {
        let ex = self.send(Request::get(path)).await?;
        let request_id = ex.request_id.clone();
        interpret_response(ex.status, ex.request_id, &ex.body).map(|value| (value, request_id))
    }

    /// `GET /v1/workspace`.
    pub async fn workspace(&self) -> Result<Workspace, ApiError> {
        self.get_json("/v1/workspace").await.map(|(w, _)| w)
    }

    /// `GET /v1/actions`.
    pub async fn actions(&self) -> Result<ActionList, ApiError> {
        self.get_json("/v1/actions").await.map(|(a, _)| a)
    }

    /// `POST /v1/actions/{action}/run/{live|async}`: the HTTP status (200 terminal, 202 not yet)
    /// and the run.
    pub async fn submit(
        &self,
        action: &str,
        live: bool,
        idempotency_key: &str,
        body: &str,
    ) -> Result<(u16, Run), ApiError> {
        let path = format!(
            "/v1/actions/{action}/run/{}",
            if live { "live" } else { "async" }
        );
        let ex = self
            .send(Request {
                method: Method::Post,
                path: &path,
                json_body: Some(body),
                idempotency_key: Some(idempotency_key),
            })
            .await?;
        let status = ex.status;
        interpret_response(status, ex.request_id, &ex.body).map(|run| (status, run))
    }

    /// `GET /v1/runs/{id}`, with the response's request id.
    pub async fn run(&self, id: &str) -> Result<(Run, Option<String>), ApiError> {
        self.get_json(&format!("/v1/runs/{}", percent_encode(id)))
            .await
    }

    /// `GET /v1/runs`: the latest 100, with the response's request id.
    pub async fn runs(&self) -> Result<(RunList, Option<String>), ApiError> {
        self.get_json("/v1/runs").await
    }

    /// `POST /v1/runs/{id}/cancel`.
    pub async fn cancel(&self, id: &str) -> Result<Run, ApiError> {
        let path = format!("/v1/runs/{}/cancel", percent_encode(id));
        let ex = self
            .send(Request {
                method: Method::Post,
                path: &path,
                json_body: None,
                idempotency_key: None,
            })
            .await?;
        interpret_response(ex.status, ex.request_id, &ex.body)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Method {
    Get,
    Post,
}

/// A request as plain data; [`ApiClient::send`] executes it.
struct Request<'a> {
    method: Method,
    path: &'a str,
    json_body: Option<&'a str>,
    idempotency_key: Option<&'a str>,
}

impl<'a> Request<'a> {
    fn get(path: &'a str) -> Self {
        Request {
            method: Method::Get,
            path,
            json_body: None,
            idempotency_key: None,
        }
    }
}

/// What came back: status, request id header and the body as text.
struct Exchange {
    status: u16,
    request_id: Option<String>,
    body: String,
}

fn network_reason(error: &gloo_net::Error) -> String {
    match error {
        // The browser hides the cause of a failed fetch; say what it usually is.
        gloo_net::Error::JsError(_) => {
            "no response; the server may be down or refuse this origin".to_owned()
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn success_bodies_decode() {
        let ws: Workspace = interpret_response(
            200,
            Some("req_1".into()),
            r#"{"workspace_id":"ws","name":"n","credits_balance":5,"credits_reserved":1,"usage_today":{"profiles":0,"premium_lines":0}}"#,
        )
        .unwrap();
        assert_eq!(ws.credits_available(), 4);
    }

    #[test]
    fn contract_error_bodies_become_api_errors_with_the_request_id() {
        let err = interpret_response::<Workspace>(
            401,
            Some("req_header".into()),
            r#"{"error":{"code":"invalid_api_key","message":"The API key is not valid.","request_id":"req_body"}}"#,
        )
        .unwrap_err();
        assert!(err.is_unauthorized());
        assert_eq!(err.code(), Some("invalid_api_key"));
        assert_eq!(err.request_id(), Some("req_body"));
        assert!(err.message().contains("The API key is not valid."));

        let no_body_id = interpret_response::<Workspace>(
            429,
            Some("req_header".into()),
            r#"{"error":{"code":"rate_limited","message":"Slow down.","retry_after":2}}"#,
        )
        .unwrap_err();
        assert_eq!(no_body_id.request_id(), Some("req_header"));
        assert!(!no_body_id.is_unauthorized());
    }

    #[test]
    fn a_foreign_error_page_is_not_mistaken_for_the_api() {
        let err = interpret_response::<Workspace>(
            404,
            None,
            "<html>\n<body>  Not   Found </body></html>",
        )
        .unwrap_err();
        assert_eq!(err.status(), Some(404));
        assert_eq!(err.code(), None);
        assert!(
            err.message()
                .contains("<html> <body> Not Found </body></html>")
        );
    }

    #[test]
    fn a_success_that_is_not_the_contract_is_a_decode_error() {
        let err = interpret_response::<Workspace>(200, None, "<!doctype html><title>app</title>")
            .unwrap_err();
        assert!(matches!(err, ApiError::Decode { status: 200, .. }));
        assert!(err.message().contains("not like this API"));
        let missing = interpret_response::<Workspace>(200, None, r#"{"name":"n"}"#).unwrap_err();
        assert!(
            missing.message().contains("workspace_id"),
            "{}",
            missing.message()
        );
    }

    #[test]
    fn long_foreign_bodies_are_cut() {
        let err = interpret_response::<Workspace>(502, None, &"x".repeat(1000)).unwrap_err();
        let ApiError::UnexpectedStatus { snippet, .. } = err else {
            panic!()
        };
        assert_eq!(snippet.chars().count(), 121);
    }

    #[test]
    fn ids_cannot_escape_their_path_segment() {
        assert_eq!(percent_encode("0b7c8a4e-2f59"), "0b7c8a4e-2f59");
        assert_eq!(percent_encode("../keys"), "..%2Fkeys");
        assert_eq!(percent_encode("a b?c#d"), "a%20b%3Fc%23d");
    }

    #[test]
    fn debug_output_never_shows_the_bearer() {
        let client = ApiClient::new("http://x", "sk_secret_value");
        assert!(!format!("{client:?}").contains("sk_secret_value"));
    }
}
