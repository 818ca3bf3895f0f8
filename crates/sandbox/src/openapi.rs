//! `GET /openapi.json`: an OpenAPI 3.0.3 description of every `/v1` route, generated from the
//! same route table, action list and input rules the sandbox runs on, so it cannot drift.

use api_contract::input::{
    IDEMPOTENCY_KEY_MAX, IDEMPOTENCY_KEY_MIN, KEY_NAME_MAX, MAX_CREDITS_LIMIT, MAX_RESULTS_LIMIT,
};
use api_contract::{ActionId, FieldKind, InputShape, RunStatus};
use serde_json::{Map, Value, json};

use crate::routes::ROUTES;

fn schema_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

fn shape_schema_name(shape: InputShape) -> String {
    let camel: String = shape
        .name()
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect();
    format!("{camel}Input")
}

fn shape_schema(shape: InputShape) -> Value {
    let mut properties = Map::new();
    for field in shape.fields() {
        let mut s =
            json!({ "type": "string", "maxLength": field.max_len, "description": field.help });
        if field.min_len > 0 {
            s["minLength"] = json!(field.min_len);
        }
        if field.kind == FieldKind::ProfileUrl {
            s["format"] = json!("uri");
            s["pattern"] = json!(r"^https://(www\.)?network\.com/in/[^/?#\s]+/?$");
        }
        properties.insert(field.name.to_owned(), s);
    }
    let required: Vec<&str> = shape
        .fields()
        .iter()
        .filter(|f| f.required)
        .map(|f| f.name)
        .collect();
    let mut schema = json!({ "type": "object", "properties": properties, "required": required });
    if shape.rejects_unknown_fields() {
        schema["additionalProperties"] = json!(false);
    }
    schema
}

fn error_response(description: &str) -> Value {
    json!({
        "description": description,
        "headers": { "x-request-id": { "$ref": "#/components/headers/RequestId" } },
        "content": { "application/json": { "schema": schema_ref("ErrorBody") } }
    })
}

fn ok_response(description: &str, schema: Value) -> Value {
    json!({
        "description": description,
        "headers": { "x-request-id": { "$ref": "#/components/headers/RequestId" } },
        "content": { "application/json": { "schema": schema } }
    })
}

fn errors(statuses: &[u16]) -> Map<String, Value> {
    statuses
        .iter()
        .map(|s| {
            let text = match s {
                400 => "Bad Request: the body, a header or an input rule is broken; the message names the field and the rule.",
                401 => "Unauthorized: the bearer credential is missing, invalid, revoked or expired.",
                403 => "Forbidden: the credential may not do this (key management needs an account session).",
                404 => "Not Found.",
                405 => "Method Not Allowed.",
                409 => "Conflict: idempotency_key_reused, insufficient_credits, or run_not_cancellable.",
                429 => "Rate Limit Exceeded: retry after `retry_after` seconds (also the Retry-After header).",
                _ => "Internal Server Error.",
            };
            let mut r = error_response(text);
            if *s == 429 {
                r["headers"]["Retry-After"] = json!({ "schema": { "type": "integer" }, "description": "Seconds to wait." });
            }
            (s.to_string(), r)
        })
        .collect()
}

fn operation(method: &str, path: &str) -> Value {
    let run = schema_ref("Run");
    let (id, summary, mut responses, params, body): (
        &str,
        &str,
        Map<String, Value>,
        Vec<Value>,
        Option<Value>,
    ) = match (method, path) {
        ("GET", "/v1/actions") => (
            "listActions",
            "The action registry (public)",
            Map::new(),
            vec![],
            None,
        ),
        ("POST", "/v1/actions/{action}/run/live") | ("POST", "/v1/actions/{action}/run/async") => {
            let live = path.ends_with("live");
            let mut r = Map::new();
            r.insert("200".into(), ok_response(
                    if live { "The run is terminal (its status can still be failed), or an idempotent replay of a terminal run." }
                    else { "Idempotent replay of a run that already finished." }, run.clone()));
            r.insert(
                "202".into(),
                ok_response(
                    if live {
                        "The lease ended first: the run is still queued or processing."
                    } else {
                        "The run is queued."
                    },
                    run.clone(),
                ),
            );
            r.extend(errors(&[400, 401, 403, 404, 409, 429, 500]));
            (
                if live { "submitLive" } else { "submitAsync" },
                if live {
                    "Submit an action and wait for the run (live)"
                } else {
                    "Submit an action for background execution (async)"
                },
                r,
                vec![
                    json!({ "$ref": "#/components/parameters/Action" }),
                    json!({ "$ref": "#/components/parameters/IdempotencyKey" }),
                ],
                Some(
                    json!({ "required": true, "content": { "application/json": { "schema": schema_ref("Submission") } } }),
                ),
            )
        }
        ("GET", "/v1/runs") => (
            "listRuns",
            "The latest 100 runs of the workspace, newest first",
            errors(&[401, 403]),
            vec![],
            None,
        ),
        ("GET", "/v1/runs/{id}") => (
            "getRun",
            "A run's state, output and accounting",
            errors(&[401, 403, 404]),
            vec![json!({ "$ref": "#/components/parameters/RunId" })],
            None,
        ),
        ("GET", "/v1/runs/{id}/outputs") => (
            "getRunOutputs",
            "A run's output, state and completeness",
            errors(&[401, 403, 404]),
            vec![json!({ "$ref": "#/components/parameters/RunId" })],
            None,
        ),
        ("POST", "/v1/runs/{id}/cancel") => (
            "cancelRun",
            "Cancel a queued or processing run",
            errors(&[401, 403, 404, 409]),
            vec![json!({ "$ref": "#/components/parameters/RunId" })],
            None,
        ),
        ("GET", "/v1/workspace") => (
            "getWorkspace",
            "The workspace and its credits",
            errors(&[401, 403]),
            vec![],
            None,
        ),
        ("GET", "/v1/keys") => (
            "listKeys",
            "Up to 100 recent API keys, no secrets (account session only)",
            errors(&[401, 403]),
            vec![],
            None,
        ),
        ("POST", "/v1/keys") => (
            "createKey",
            "Create an API key; the secret is returned once (account session only)",
            errors(&[400, 401, 403]),
            vec![],
            Some(
                json!({ "required": true, "content": { "application/json": { "schema": schema_ref("CreateKeyRequest") } } }),
            ),
        ),
        ("DELETE", "/v1/keys/{id}") => (
            "revokeKey",
            "Revoke an API key (account session only)",
            errors(&[401, 403, 404]),
            vec![json!({ "$ref": "#/components/parameters/KeyId" })],
            None,
        ),
        _ => unreachable!("no OpenAPI operation for {method} {path}"),
    };
    let success = match id {
        "listActions" => Some(("200", "The registry.", schema_ref("ActionList"))),
        "listRuns" => Some(("200", "The runs.", schema_ref("RunList"))),
        "getRun" | "cancelRun" => Some(("200", "The run.", run.clone())),
        "getRunOutputs" => Some(("200", "The outputs.", schema_ref("RunOutputs"))),
        "getWorkspace" => Some(("200", "The workspace.", schema_ref("Workspace"))),
        "listKeys" => Some(("200", "The keys.", schema_ref("KeyList"))),
        "createKey" => Some((
            "200",
            "The new key, with its secret.",
            schema_ref("CreatedApiKey"),
        )),
        _ => None,
    };
    if let Some((status, description, schema)) = success {
        responses.insert(status.into(), ok_response(description, schema));
    }
    if id == "revokeKey" {
        responses.insert("204".into(), json!({ "description": "Revoked; no body.", "headers": { "x-request-id": { "$ref": "#/components/headers/RequestId" } } }));
    }
    let mut op = json!({ "operationId": id, "summary": summary, "parameters": params, "responses": responses });
    if id == "listActions" {
        op["security"] = json!([]);
    }
    if let Some(body) = body {
        op["requestBody"] = body;
    }
    op
}

/// The whole document.
pub fn document() -> Value {
    let mut paths = Map::new();
    for (method, path) in ROUTES {
        let entry = paths.entry(path.to_string()).or_insert_with(|| json!({}));
        entry[method.to_lowercase()] = operation(method, path);
    }
    let statuses: Vec<&str> = RunStatus::ALL.iter().map(|s| s.as_str()).collect();
    let actions: Vec<&str> = ActionId::ALL.iter().map(|a| a.as_str()).collect();
    let mut schemas = Map::new();
    for shape in InputShape::ALL {
        schemas.insert(shape_schema_name(shape), shape_schema(shape));
    }
    let shape_refs: Vec<Value> = InputShape::ALL
        .iter()
        .map(|s| schema_ref(&shape_schema_name(*s)))
        .collect();
    let date_time = json!({ "type": "string", "format": "date-time" });
    let extra = json!({
        "RunStatus": { "type": "string", "enum": statuses },
        "Completeness": { "type": "object", "required": ["has_more", "scope"], "properties": {
            "has_more": { "type": "boolean", "description": "A signal that more records exist; not a cursor." },
            "scope": { "type": "string", "enum": ["single_page"] } } },
        "RunError": { "type": "object", "required": ["code", "message"], "properties": {
            "code": { "type": "string" }, "message": { "type": "string" } } },
        "Run": { "type": "object",
            "required": ["id", "action", "status", "output", "credits_used", "credits_reserved", "created_at", "completeness"],
            "properties": {
                "id": { "type": "string", "format": "uuid" }, "action": { "type": "string" },
                "status": schema_ref("RunStatus"), "output": { "type": "array", "items": { "type": "object" } },
                "credits_used": { "type": "integer", "minimum": 0 }, "credits_reserved": { "type": "integer", "minimum": 0 },
                "created_at": date_time, "completed_at": { "type": "string", "format": "date-time", "nullable": true },
                "completeness": schema_ref("Completeness"), "error": schema_ref("RunError") } },
        "RunOutputs": { "type": "object", "required": ["run_id", "status", "output", "completeness"], "properties": {
            "run_id": { "type": "string" }, "status": schema_ref("RunStatus"),
            "output": { "type": "array", "items": { "type": "object" } }, "completeness": schema_ref("Completeness") } },
        "RunList": { "type": "object", "required": ["runs"], "properties": { "runs": { "type": "array", "maxItems": 100, "items": schema_ref("Run") } } },
        "UsageToday": { "type": "object", "required": ["profiles", "premium_lines"], "properties": {
            "profiles": { "type": "integer", "minimum": 0 }, "premium_lines": { "type": "integer", "minimum": 0 } } },
        "Workspace": { "type": "object", "required": ["workspace_id", "name", "credits_balance", "credits_reserved", "usage_today"], "properties": {
            "workspace_id": { "type": "string" }, "name": { "type": "string" },
            "credits_balance": { "type": "integer", "minimum": 0 }, "credits_reserved": { "type": "integer", "minimum": 0 },
            "usage_today": schema_ref("UsageToday") } },
        "ApiKey": { "type": "object", "required": ["id", "name", "prefix", "created_at"], "properties": {
            "id": { "type": "string" }, "name": { "type": "string" }, "prefix": { "type": "string" },
            "created_at": date_time, "revoked_at": { "type": "string", "format": "date-time", "nullable": true } } },
        "KeyList": { "type": "object", "required": ["keys"], "properties": { "keys": { "type": "array", "maxItems": 100, "items": schema_ref("ApiKey") } } },
        "CreatedApiKey": { "type": "object", "required": ["id", "api_key", "prefix", "name", "created_at"], "properties": {
            "id": { "type": "string" }, "api_key": { "type": "string", "description": "The secret, returned only here." },
            "prefix": { "type": "string" }, "name": { "type": "string" }, "created_at": date_time } },
        "CreateKeyRequest": { "type": "object", "required": ["name"], "additionalProperties": false, "properties": {
            "name": { "type": "string", "minLength": 1, "maxLength": KEY_NAME_MAX } } },
        "ActionEntry": { "type": "object", "required": ["id", "input_key", "credits_per_record", "max_results"], "properties": {
            "id": { "type": "string" }, "input_keys": { "type": "array", "items": { "type": "string" } },
            "input_key": { "type": "string" }, "credits_per_record": { "type": "integer", "minimum": 1 },
            "max_results": { "type": "integer", "minimum": 1, "maximum": MAX_RESULTS_LIMIT } } },
        "ActionList": { "type": "object", "required": ["actions"], "properties": { "actions": { "type": "array", "items": schema_ref("ActionEntry") } } },
        "RunInput": { "oneOf": shape_refs },
        "Submission": { "type": "object", "required": ["input"], "additionalProperties": false, "properties": {
            "input": schema_ref("RunInput"),
            "max_results": { "type": "integer", "minimum": 1, "maximum": MAX_RESULTS_LIMIT,
                "description": "Also at most the action's registry max_results; defaults to it." },
            "max_credits": { "type": "integer", "minimum": 1, "maximum": MAX_CREDITS_LIMIT } } },
        "ErrorBody": { "type": "object", "required": ["error"], "properties": { "error": {
            "type": "object", "required": ["code", "message"], "properties": {
                "code": { "type": "string" }, "message": { "type": "string" },
                "request_id": { "type": "string" }, "retry_after": { "type": "number" } } } } }
    });
    schemas.extend(extra.as_object().cloned().unwrap_or_default());
    json!({
        "openapi": "3.0.3",
        "info": {
            "title": "Data-extraction service (sandbox)",
            "version": "1.0.0",
            "description": "Actions, runs, workspace credits and API keys. Served by the local sandbox."
        },
        "servers": [{ "url": "/" }],
        "security": [{ "bearerAuth": [] }],
        "paths": paths,
        "components": {
            "securitySchemes": { "bearerAuth": { "type": "http", "scheme": "bearer",
                "description": "An API key, or an account-session JWT (needed for key management)." } },
            "headers": { "RequestId": { "description": "Identifies the request, for support.", "schema": { "type": "string" } } },
            "parameters": {
                "Action": { "name": "action", "in": "path", "required": true, "schema": { "type": "string", "enum": actions } },
                "RunId": { "name": "id", "in": "path", "required": true, "schema": { "type": "string" } },
                "KeyId": { "name": "id", "in": "path", "required": true, "schema": { "type": "string" } },
                "IdempotencyKey": { "name": "Idempotency-Key", "in": "header", "required": true, "schema": {
                    "type": "string", "minLength": IDEMPOTENCY_KEY_MIN, "maxLength": IDEMPOTENCY_KEY_MAX, "pattern": "^[a-zA-Z0-9_:-]+$" } }
            },
            "schemas": schemas
        }
    })
}
