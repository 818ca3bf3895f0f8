//! `ApiError`: everything that can go wrong between the console and the API, and the mapping
//! from an HTTP answer (status, request id, body) to a typed value or that error.

use api_contract::{ErrorBody, ErrorDetail};
use serde::de::DeserializeOwned;

use crate::model::no_answer::NoAnswer;

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
    /// No answer at all, and why, as far as the browser lets the console tell (down, CORS,
    /// mixed content, the console's own policy, offline).
    NoAnswer(NoAnswer),
    /// The request could not be made or its answer not read (`detail` from the browser).
    Network(String),
    /// No request was made: nobody is signed in.
    SignedOut,
}

impl ApiError {
    pub fn status(&self) -> Option<u16> {
        match self {
            ApiError::Api { status, .. }
            | ApiError::UnexpectedStatus { status, .. }
            | ApiError::Decode { status, .. } => Some(*status),
            ApiError::NoAnswer(_) | ApiError::Network(_) | ApiError::SignedOut => None,
        }
    }

    /// The server's request id, to quote in a support ticket.
    pub fn request_id(&self) -> Option<&str> {
        match self {
            ApiError::Api { detail, .. } => detail.request_id.as_deref(),
            ApiError::UnexpectedStatus { request_id, .. } | ApiError::Decode { request_id, .. } => {
                request_id.as_deref()
            }
            ApiError::NoAnswer(_) | ApiError::Network(_) | ApiError::SignedOut => None,
        }
    }

    /// The contract's `error.code`, when the server sent one.
    pub fn code(&self) -> Option<&str> {
        match self {
            ApiError::Api { detail, .. } => Some(&detail.code),
            _ => None,
        }
    }

    /// The contract's `error.message`, when the server sent one.
    pub fn server_message(&self) -> Option<&str> {
        match self {
            ApiError::Api { detail, .. } => Some(&detail.message),
            _ => None,
        }
    }

    /// Seconds the API asked to wait (a 429's `retry_after`).
    pub fn retry_after(&self) -> Option<f64> {
        match self {
            ApiError::Api { detail, .. } => detail.retry_after,
            _ => None,
        }
    }

    pub fn is_unauthorized(&self) -> bool {
        self.status() == Some(401)
    }

    /// Worth trying again with the same request: no answer, a 5xx, or a 429.
    pub fn is_transient(&self) -> bool {
        matches!(self, ApiError::NoAnswer(_) | ApiError::Network(_))
            || matches!(self.status(), Some(429) | Some(500..=599))
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
            } => {
                let said = if snippet.is_empty() {
                    String::new()
                } else {
                    format!(" It said: “{snippet}”")
                };
                format!(
                    "The server answered HTTP {status} without the API's error format; is the \
                     API base URL right?{said}"
                )
            }
            ApiError::Decode { status, detail, .. } => format!(
                "The server answered HTTP {status}, but not like this API: {detail}. Is the API \
                 base URL right?"
            ),
            ApiError::NoAnswer(why) => why.message(),
            ApiError::Network(detail) => format!(
                "The API could not be reached ({detail}). Check the base URL and your connection."
            ),
            ApiError::SignedOut => "Not signed in.".to_owned(),
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
pub fn interpret_response<T: DeserializeOwned>(
    status: u16,
    request_id_header: Option<String>,
    body: &str,
) -> Result<T, ApiError> {
    if !(200..300).contains(&status) {
        return Err(interpret_error(status, request_id_header, body));
    }
    serde_json::from_str(body).map_err(|e| ApiError::Decode {
        status,
        request_id: request_id_header,
        detail: if e.is_data() {
            e.to_string()
        } else {
            format!("not JSON ({e})")
        },
    })
}

/// The typed error for a non-success answer: the contract's error body, or a foreign page.
pub fn interpret_error(status: u16, request_id_header: Option<String>, body: &str) -> ApiError {
    match serde_json::from_str::<ErrorBody>(body) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use api_contract::{Run, RunStatus, Workspace};

    #[test]
    fn success_bodies_decode_into_the_contract_types() {
        let ws: Workspace = interpret_response(
            200,
            Some("req_1".into()),
            r#"{"workspace_id":"ws","name":"n","credits_balance":5,"credits_reserved":1,"usage_today":{"profiles":0,"premium_lines":0},"future_field":true}"#,
        )
        .unwrap();
        assert_eq!(ws.credits_available(), 4);
        let run: Run = interpret_response(
            202,
            None,
            r#"{"id":"r","action":"a","status":"queued","output":[],"credits_used":0,"credits_reserved":3,"created_at":"2026-11-20T12:00:00.000Z","completed_at":null,"completeness":{"has_more":false,"scope":"single_page"}}"#,
        )
        .unwrap();
        assert_eq!(run.status, RunStatus::Queued);
        assert_eq!(run.completed_at, None);
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
        assert_eq!(no_body_id.retry_after(), Some(2.0));
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
        // An error body with the wrong shape is foreign too.
        let wrong = interpret_error(500, None, r#"{"error":"boom"}"#);
        assert!(matches!(wrong, ApiError::UnexpectedStatus { .. }));
    }

    #[test]
    fn a_success_that_is_not_the_contract_is_a_decode_error() {
        let err = interpret_response::<Workspace>(200, None, "<!doctype html><title>app</title>")
            .unwrap_err();
        assert!(matches!(err, ApiError::Decode { status: 200, .. }));
        assert!(err.message().contains("not like this API: not JSON"));
        let missing = interpret_response::<Workspace>(200, None, r#"{"name":"n"}"#).unwrap_err();
        assert!(
            missing.message().contains("workspace_id"),
            "{}",
            missing.message()
        );
        let wrong_type = interpret_response::<Workspace>(
            200,
            None,
            r#"{"workspace_id":"ws","name":"n","credits_balance":-5,"credits_reserved":1,"usage_today":{"profiles":0,"premium_lines":0}}"#,
        )
        .unwrap_err();
        assert!(matches!(wrong_type, ApiError::Decode { .. }));
        let bad_date = interpret_response::<Run>(
            200,
            None,
            r#"{"id":"r","action":"a","status":"queued","output":[],"credits_used":0,"credits_reserved":3,"created_at":"yesterday","completeness":{"has_more":false,"scope":"single_page"}}"#,
        )
        .unwrap_err();
        assert!(matches!(bad_date, ApiError::Decode { .. }), "{bad_date:?}");
    }

    #[test]
    fn long_foreign_bodies_are_cut() {
        let err = interpret_response::<Workspace>(502, None, &"x".repeat(1000)).unwrap_err();
        let ApiError::UnexpectedStatus { snippet, .. } = err else {
            panic!("{err:?}")
        };
        assert_eq!(snippet.chars().count(), 121);
    }

    #[test]
    fn only_no_answer_5xx_and_429_are_transient() {
        let api = |status| interpret_error(status, None, r#"{"error":{"code":"x","message":"m"}}"#);
        assert!(ApiError::Network("down".into()).is_transient());
        assert!(
            ApiError::NoAnswer(NoAnswer::NothingAnswers {
                api_origin: "http://x".into()
            })
            .is_transient()
        );
        assert!(api(500).is_transient());
        assert!(api(503).is_transient());
        assert!(api(429).is_transient());
        for status in [400, 401, 403, 404, 409] {
            assert!(!api(status).is_transient(), "{status}");
        }
        assert!(!ApiError::SignedOut.is_transient());
    }
}
