//! The `/v1` routes, declared once in [`ROUTES`]: each names the contract's [`Endpoint`] it
//! serves (its method and path), its handler and what the OpenAPI document says of it
//! (`openapi.rs` builds the document from the same list), so a route cannot be served without
//! being documented, or documented without being served.

mod actions;
mod body;
mod keys;
mod path;
mod runs;
mod submit;
mod workspace;

use api_contract::{Endpoint, RouteMethod};
use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{Method, StatusCode, Uri};
use axum::routing::{MethodFilter, MethodRouter, any, on};

use crate::error::ApiError;
use crate::state::SandboxState;

pub use body::MAX_REQUEST_BODY_BYTES;

/// One `/v1` route: the contract's endpoint it serves, its handler and how it is documented.
pub struct Route {
    pub endpoint: Endpoint,
    /// The handler, routed for the method it is given: the endpoint's, so that a row cannot
    /// serve another method than the contract's.
    handler: fn(MethodFilter) -> MethodRouter<SandboxState>,
    pub doc: RouteDoc,
}

/// What the OpenAPI document says of a route.
pub enum RouteDoc {
    /// A submission: documented once per action, since each action takes its own input shape
    /// and result ceiling, which an `{action}` template could not express.
    Submission {
        live: bool,
    },
    Operation(Operation),
}

/// A route that is not a submission, as the document describes it.
pub struct Operation {
    pub id: &'static str,
    pub summary: &'static str,
    /// The error statuses it answers with, besides the ones every route may (500).
    pub errors: &'static [u16],
    /// The path's `{id}`: which component parameter describes it.
    pub path_parameter: Option<&'static str>,
    /// The request body's schema, if it takes one.
    pub request: Option<&'static str>,
    pub success: Success,
    /// Callable without a credential.
    pub public: bool,
}

/// A route's successful answer.
pub enum Success {
    /// 200 with a JSON body of this schema.
    Json {
        description: &'static str,
        schema: &'static str,
    },
    /// 204, no body.
    NoContent,
}

impl Route {
    /// A route documented as one operation.
    const fn operation(
        endpoint: Endpoint,
        handler: fn(MethodFilter) -> MethodRouter<SandboxState>,
        operation: Operation,
    ) -> Route {
        Route {
            endpoint,
            handler,
            doc: RouteDoc::Operation(operation),
        }
    }

    /// The contract's method for this route.
    pub fn method(&self) -> Method {
        match self.endpoint.method() {
            RouteMethod::Get => Method::GET,
            RouteMethod::Post => Method::POST,
            RouteMethod::Delete => Method::DELETE,
        }
    }

    /// As axum and OpenAPI write it, `/v1` included.
    pub fn path(&self) -> &'static str {
        self.endpoint.path()
    }

    fn method_filter(&self) -> MethodFilter {
        match self.endpoint.method() {
            RouteMethod::Get => MethodFilter::GET,
            RouteMethod::Post => MethodFilter::POST,
            RouteMethod::Delete => MethodFilter::DELETE,
        }
    }
}

/// An operation that needs a credential, takes no body and no path parameter, and answers 204;
/// the methods below say where a route differs.
const fn operation(id: &'static str, summary: &'static str, errors: &'static [u16]) -> Operation {
    Operation {
        id,
        summary,
        errors,
        path_parameter: None,
        request: None,
        success: Success::NoContent,
        public: false,
    }
}

impl Operation {
    /// Its path's `{id}` is described by the component parameter `parameter`.
    const fn on_path(self, parameter: &'static str) -> Operation {
        Operation {
            path_parameter: Some(parameter),
            ..self
        }
    }

    /// It takes a JSON body of this schema.
    const fn taking(self, schema: &'static str) -> Operation {
        Operation {
            request: Some(schema),
            ..self
        }
    }

    /// It answers 200 with a JSON body of this schema.
    const fn returning(self, description: &'static str, schema: &'static str) -> Operation {
        Operation {
            success: Success::Json {
                description,
                schema,
            },
            ..self
        }
    }

    /// It is callable without a credential.
    const fn public(self) -> Operation {
        Operation {
            public: true,
            ..self
        }
    }
}

/// Every `/v1` route, in the order of [`Endpoint::ALL`]. Laid out by hand as a table, one route
/// a row or two.
#[rustfmt::skip]
pub static ROUTES: [Route; 11] = [
    Route::operation(Endpoint::ListActions, |method| on(method, actions::list_actions),
        operation("listActions", "The action registry (public)", &[])
            .returning("The registry.", "ActionList").public()),
    Route { endpoint: Endpoint::SubmitLive, handler: |method| on(method, submit::submit_live),
        doc: RouteDoc::Submission { live: true } },
    Route { endpoint: Endpoint::SubmitAsync, handler: |method| on(method, submit::submit_async),
        doc: RouteDoc::Submission { live: false } },
    Route::operation(Endpoint::ListRuns, |method| on(method, runs::list_runs),
        operation("listRuns", "The latest 100 runs of the workspace, newest first", &[401, 403])
            .returning("The runs.", "RunList")),
    Route::operation(Endpoint::GetRun, |method| on(method, runs::get_run),
        operation("getRun", "A run's state, output and accounting", &[401, 403, 404])
            .on_path("RunId").returning("The run.", "Run")),
    Route::operation(Endpoint::GetRunOutputs, |method| on(method, runs::get_outputs),
        operation("getRunOutputs", "A run's output, state and completeness", &[401, 403, 404])
            .on_path("RunId").returning("The outputs.", "RunOutputs")),
    Route::operation(Endpoint::CancelRun, |method| on(method, runs::cancel_run),
        operation("cancelRun", "Cancel a queued or processing run", &[401, 403, 404, 409])
            .on_path("RunId").returning("The cancelled run.", "Run")),
    Route::operation(Endpoint::GetWorkspace, |method| on(method, workspace::get_workspace),
        operation("getWorkspace", "The workspace and its credits", &[401, 403])
            .returning("The workspace.", "Workspace")),
    Route::operation(Endpoint::ListKeys, |method| on(method, keys::list_keys),
        operation("listKeys", "Up to 100 recent API keys, no secrets (account session only)",
            &[401, 403])
            .returning("The keys.", "KeyList")),
    Route::operation(Endpoint::CreateKey, |method| on(method, keys::create_key),
        operation("createKey",
            "Create an API key; the secret is returned once (account session only)",
            &[400, 401, 403])
            .taking("CreateKeyRequest")
            .returning("The new key, with its secret.", "CreatedApiKey")),
    Route::operation(Endpoint::RevokeKey, |method| on(method, keys::revoke_key),
        operation("revokeKey", "Revoke an API key (account session only)", &[401, 403, 404])
            .on_path("KeyId")),
];

/// The `/v1` router, to be merged into the app. Every answer under `/v1`, including a path no
/// route has and a method a route does not take, is the contract's error body.
pub fn v1(state: SandboxState) -> Router {
    let mut router = Router::new();
    for route in &ROUTES {
        router = router.route(route.path(), (route.handler)(route.method_filter()));
    }
    router
        // axum gives it to the routes registered so far: the contract's, above.
        .method_not_allowed_fallback(method_not_allowed)
        // Catch-alls rather than a router nested at `/v1` with a fallback: a nested router never
        // sees `/v1/`, which then fell through to the console's files or an empty 404.
        .route("/v1", any(unknown_route))
        .route("/v1/", any(unknown_route))
        .route("/v1/{*rest}", any(unknown_route))
        .layer(DefaultBodyLimit::max(MAX_REQUEST_BODY_BYTES))
        .with_state(state)
}

async fn unknown_route(uri: Uri) -> ApiError {
    ApiError::not_found(
        "not_found",
        format!("There is no endpoint at {}.", uri.path()),
    )
}

async fn method_not_allowed(method: Method, uri: Uri) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!("{method} is not supported on {}.", uri.path()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A route added to the contract fails here until the sandbox serves and documents it.
    #[test]
    fn the_routes_serve_every_endpoint_of_the_contract_once_in_its_order() {
        let served: Vec<Endpoint> = ROUTES.iter().map(|route| route.endpoint).collect();
        assert_eq!(served, Endpoint::ALL);
    }
}
