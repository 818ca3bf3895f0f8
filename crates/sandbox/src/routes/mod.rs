//! The `/v1` routes, declared once in [`ROUTES`]: each with its handler and what the OpenAPI
//! document says of it (`openapi.rs` builds the document from the same list), so a route cannot
//! be served without being documented, or documented without being served.

mod actions;
mod body;
mod keys;
mod runs;
mod submit;
mod workspace;

use axum::Router;
use axum::http::{Method, StatusCode, Uri};
use axum::routing::{MethodRouter, delete, get, post};

use crate::error::ApiError;
use crate::state::SandboxState;

/// One `/v1` route: how it is served and how it is documented.
pub struct Route {
    pub method: Method,
    /// As axum and OpenAPI write it, `/v1` included.
    pub path: &'static str,
    handler: fn() -> MethodRouter<SandboxState>,
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
        method: Method,
        path: &'static str,
        handler: fn() -> MethodRouter<SandboxState>,
        operation: Operation,
    ) -> Route {
        Route {
            method,
            path,
            handler,
            doc: RouteDoc::Operation(operation),
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

/// Every `/v1` route. Laid out by hand as a table, one route a row or two.
#[rustfmt::skip]
pub static ROUTES: [Route; 11] = [
    Route::operation(Method::GET, "/v1/actions", || get(actions::list_actions),
        operation("listActions", "The action registry (public)", &[])
            .returning("The registry.", "ActionList").public()),
    Route { method: Method::POST, path: "/v1/actions/{action}/run/live",
        handler: || post(submit::submit_live), doc: RouteDoc::Submission { live: true } },
    Route { method: Method::POST, path: "/v1/actions/{action}/run/async",
        handler: || post(submit::submit_async), doc: RouteDoc::Submission { live: false } },
    Route::operation(Method::GET, "/v1/runs", || get(runs::list_runs),
        operation("listRuns", "The latest 100 runs of the workspace, newest first", &[401, 403])
            .returning("The runs.", "RunList")),
    Route::operation(Method::GET, "/v1/runs/{id}", || get(runs::get_run),
        operation("getRun", "A run's state, output and accounting", &[401, 403, 404])
            .on_path("RunId").returning("The run.", "Run")),
    Route::operation(Method::GET, "/v1/runs/{id}/outputs", || get(runs::get_outputs),
        operation("getRunOutputs", "A run's output, state and completeness", &[401, 403, 404])
            .on_path("RunId").returning("The outputs.", "RunOutputs")),
    Route::operation(Method::POST, "/v1/runs/{id}/cancel", || post(runs::cancel_run),
        operation("cancelRun", "Cancel a queued or processing run", &[401, 403, 404, 409])
            .on_path("RunId").returning("The cancelled run.", "Run")),
    Route::operation(Method::GET, "/v1/workspace", || get(workspace::get_workspace),
        operation("getWorkspace", "The workspace and its credits", &[401, 403])
            .returning("The workspace.", "Workspace")),
    Route::operation(Method::GET, "/v1/keys", || get(keys::list_keys),
        operation("listKeys", "Up to 100 recent API keys, no secrets (account session only)",
            &[401, 403])
            .returning("The keys.", "KeyList")),
    Route::operation(Method::POST, "/v1/keys", || post(keys::create_key),
        operation("createKey",
            "Create an API key; the secret is returned once (account session only)",
            &[400, 401, 403])
            .taking("CreateKeyRequest")
            .returning("The new key, with its secret.", "CreatedApiKey")),
    Route::operation(Method::DELETE, "/v1/keys/{id}", || delete(keys::revoke_key),
        operation("revokeKey", "Revoke an API key (account session only)", &[401, 403, 404])
            .on_path("KeyId")),
];

/// The `/v1` router, to be nested under `/v1`.
pub fn v1(state: SandboxState) -> Router {
    let mut router = Router::new();
    for route in &ROUTES {
        let relative = route
            .path
            .strip_prefix("/v1")
            .expect("every route is under /v1");
        router = router.route(relative, (route.handler)());
    }
    router
        .fallback(unknown_route)
        .method_not_allowed_fallback(method_not_allowed)
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
