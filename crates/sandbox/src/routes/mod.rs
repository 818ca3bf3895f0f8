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

const fn json(description: &'static str, schema: &'static str) -> Success {
    Success::Json {
        description,
        schema,
    }
}

/// Every `/v1` route.
pub static ROUTES: [Route; 11] = [
    Route {
        method: Method::GET,
        path: "/v1/actions",
        handler: || get(actions::list_actions),
        doc: RouteDoc::Operation(Operation {
            success: json("The registry.", "ActionList"),
            public: true,
            ..operation("listActions", "The action registry (public)", &[])
        }),
    },
    Route {
        method: Method::POST,
        path: "/v1/actions/{action}/run/live",
        handler: || post(submit::submit_live),
        doc: RouteDoc::Submission { live: true },
    },
    Route {
        method: Method::POST,
        path: "/v1/actions/{action}/run/async",
        handler: || post(submit::submit_async),
        doc: RouteDoc::Submission { live: false },
    },
    Route {
        method: Method::GET,
        path: "/v1/runs",
        handler: || get(runs::list_runs),
        doc: RouteDoc::Operation(Operation {
            success: json("The runs.", "RunList"),
            ..operation(
                "listRuns",
                "The latest 100 runs of the workspace, newest first",
                &[401, 403],
            )
        }),
    },
    Route {
        method: Method::GET,
        path: "/v1/runs/{id}",
        handler: || get(runs::get_run),
        doc: RouteDoc::Operation(Operation {
            path_parameter: Some("RunId"),
            success: json("The run.", "Run"),
            ..operation(
                "getRun",
                "A run's state, output and accounting",
                &[401, 403, 404],
            )
        }),
    },
    Route {
        method: Method::GET,
        path: "/v1/runs/{id}/outputs",
        handler: || get(runs::get_outputs),
        doc: RouteDoc::Operation(Operation {
            path_parameter: Some("RunId"),
            success: json("The outputs.", "RunOutputs"),
            ..operation(
                "getRunOutputs",
                "A run's output, state and completeness",
                &[401, 403, 404],
            )
        }),
    },
    Route {
        method: Method::POST,
        path: "/v1/runs/{id}/cancel",
        handler: || post(runs::cancel_run),
        doc: RouteDoc::Operation(Operation {
            path_parameter: Some("RunId"),
            success: json("The cancelled run.", "Run"),
            ..operation(
                "cancelRun",
                "Cancel a queued or processing run",
                &[401, 403, 404, 409],
            )
        }),
    },
    Route {
        method: Method::GET,
        path: "/v1/workspace",
        handler: || get(workspace::get_workspace),
        doc: RouteDoc::Operation(Operation {
            success: json("The workspace.", "Workspace"),
            ..operation("getWorkspace", "The workspace and its credits", &[401, 403])
        }),
    },
    Route {
        method: Method::GET,
        path: "/v1/keys",
        handler: || get(keys::list_keys),
        doc: RouteDoc::Operation(Operation {
            success: json("The keys.", "KeyList"),
            ..operation(
                "listKeys",
                "Up to 100 recent API keys, no secrets (account session only)",
                &[401, 403],
            )
        }),
    },
    Route {
        method: Method::POST,
        path: "/v1/keys",
        handler: || post(keys::create_key),
        doc: RouteDoc::Operation(Operation {
            request: Some("CreateKeyRequest"),
            success: json("The new key, with its secret.", "CreatedApiKey"),
            ..operation(
                "createKey",
                "Create an API key; the secret is returned once (account session only)",
                &[400, 401, 403],
            )
        }),
    },
    Route {
        method: Method::DELETE,
        path: "/v1/keys/{id}",
        handler: || delete(keys::revoke_key),
        doc: RouteDoc::Operation(Operation {
            path_parameter: Some("KeyId"),
            ..operation(
                "revokeKey",
                "Revoke an API key (account session only)",
                &[401, 403, 404],
            )
        }),
    },
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
