//! Which requests may go to the upstream: exactly the contract's routes and methods
//! ([`api_contract::Endpoint`], the list the sandbox serves), each id in them a plain token.
//! An allow-list rather than a list of tricks: `..;`, `%2e%2e`, `%252e`, overlong UTF-8 or
//! fullwidth dots are none of the contract's ids, so none of them reaches a server behind that
//! might read them as a path of its own.

use api_contract::{Endpoint, Unrecognized};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::refusal::{OwnCode, Refusal};

/// The contract's route for `method path`, or why there is none.
pub fn contract_route(method: &Method, path: &str) -> Result<Endpoint, Unrecognized> {
    Endpoint::recognize(method.as_str(), path)
}

/// The answer to a request for none of the contract's routes: 404, 405 with `Allow`, or 400.
pub fn refusal(method: &Method, why: Unrecognized) -> Response {
    match why {
        Unrecognized::NoRoute => Refusal::new(
            StatusCode::NOT_FOUND,
            OwnCode::NotFound,
            "The API has no route at this path; console-server forwards only the API's routes.",
        )
        .into_response(),
        Unrecognized::MethodNotAllowed { allowed } => {
            let allowed = allowed
                .iter()
                .map(|m| m.as_str())
                .collect::<Vec<_>>()
                .join(", ");
            let mut response = Refusal::new(
                StatusCode::METHOD_NOT_ALLOWED,
                OwnCode::MethodNotAllowed,
                format!("{method} is not one of this route's methods ({allowed})."),
            )
            .into_response();
            if let Ok(value) = HeaderValue::from_str(&allowed) {
                response.headers_mut().insert(header::ALLOW, value);
            }
            response
        }
        Unrecognized::BadParameter => Refusal::new(
            StatusCode::BAD_REQUEST,
            OwnCode::InvalidPath,
            format!(
                "An id in the path is not a plain id (letters, digits, _ and -, at most {} \
                 characters); it is not forwarded.",
                api_contract::routes::PATH_PARAMETER_MAX_LEN
            ),
        )
        .into_response(),
    }
}
