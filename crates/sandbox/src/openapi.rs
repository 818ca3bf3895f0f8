//! `GET /openapi.json`: an OpenAPI 3.1 description of every `/v1` route, generated from the
//! same route table, action list and input rules the sandbox runs on, with the schemas of the
//! responses derived from the contract's own types (utoipa's `ToSchema`), so it cannot drift.

use api_contract::input::{
    IDEMPOTENCY_KEY_MAX, IDEMPOTENCY_KEY_MIN, MAX_CREDITS_LIMIT, MAX_RESULTS_LIMIT,
};
use api_contract::{
    ActionId, ActionList, CreateKeyRequest, CreatedApiKey, ErrorBody, FieldKind, InputShape,
    KeyList, Run, RunList, RunOutputs, Workspace,
};
use serde_json::{Map, Value, json};
use utoipa::OpenApi;

use crate::routes::{Operation, ROUTES, RouteDoc, Success};

/// The contract's types that requests and answers carry; utoipa adds the types they contain
/// (`RunStatus`, `Completeness`, `ApiKey`, …).
#[derive(OpenApi)]
#[openapi(components(schemas(
    ActionList,
    CreateKeyRequest,
    CreatedApiKey,
    ErrorBody,
    KeyList,
    Run,
    RunList,
    RunOutputs,
    Workspace
)))]
struct ContractTypes;

/// `components.schemas` for the contract's types, as utoipa derives them.
fn contract_schemas() -> Map<String, Value> {
    let components = ContractTypes::openapi().components.unwrap_or_default();
    components
        .schemas
        .into_iter()
        .map(|(name, schema)| (name, json!(schema)))
        .collect()
}

fn schema_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

fn shape_schema_name(shape: InputShape) -> String {
    format!("{}Input", camel(shape.name(), '_'))
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
            // Scheme and host are case-insensitive; the handle has no '/', '?', '#', space or
            // control character.
            s["pattern"] = json!(
                r"^[hH][tT][tT][pP][sS]://([wW]{3}\.)?[nN][eE][tT][wW][oO][rR][kK]\.[cC][oO][mM]/in/[^/?#\s\u0000-\u001f\u007f]+/?$"
            );
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
                400 => "Bad Request: the body, a header, a path parameter (`invalid_path`) or an input rule is broken; the message names the field and the rule.",
                401 => "Unauthorized: the bearer credential is missing, invalid, revoked or expired.",
                403 => "Forbidden: the credential may not do this (key management needs an account session).",
                404 => "Not Found.",
                405 => "Method Not Allowed.",
                409 => "Conflict: idempotency_key_reused, insufficient_credits, or run_not_cancellable.",
                413 => "Payload Too Large (`request_too_large`): the body is over the size the sandbox reads.",
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

/// A submission route's operation for one action.
fn submission_operation(action: ActionId, live: bool) -> Value {
    let run = schema_ref("Run");
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
            run,
        ),
    );
    r.extend(errors(&[400, 401, 403, 404, 409, 413, 429, 500]));
    json!({
        "operationId": format!("{}_{}", if live { "submitLive" } else { "submitAsync" }, action.as_str().replace('-', "_")),
        "summary": format!("{}: {} ({})", action.purpose(), action.cost_rule(),
            if live { "live: waits for the run" } else { "async: queues the run" }),
        "tags": [action.group().label()],
        "parameters": [{ "$ref": "#/components/parameters/IdempotencyKey" }],
        "requestBody": { "required": true, "content": { "application/json": { "schema": schema_ref(&submission_schema_name(action)) } } },
        "responses": r,
    })
}

/// Any other route's operation, as its declaration in [`ROUTES`] describes it.
fn plain_operation(operation: &Operation) -> Value {
    // Beyond the route's own errors: a path parameter can be refused (`invalid_path`), and a
    // body can be too large.
    let mut statuses = operation.errors.to_vec();
    if operation.path_parameter.is_some() {
        statuses.push(400);
    }
    if operation.request.is_some() {
        statuses.push(413);
    }
    statuses.sort_unstable();
    statuses.dedup();
    let mut responses = errors(&statuses);
    match operation.success {
        Success::Json {
            description,
            schema,
        } => {
            responses.insert("200".into(), ok_response(description, schema_ref(schema)));
        }
        Success::NoContent => {
            responses.insert(
                "204".into(),
                json!({ "description": "Done; no body.",
                    "headers": { "x-request-id": { "$ref": "#/components/headers/RequestId" } } }),
            );
        }
    }
    let parameters: Vec<Value> = operation
        .path_parameter
        .map(|name| json!({ "$ref": format!("#/components/parameters/{name}") }))
        .into_iter()
        .collect();
    let mut op = json!({ "operationId": operation.id, "summary": operation.summary,
        "parameters": parameters, "responses": responses });
    if operation.public {
        op["security"] = json!([]);
    }
    if let Some(schema) = operation.request {
        op["requestBody"] = json!({ "required": true, "content": { "application/json": { "schema": schema_ref(schema) } } });
    }
    op
}

/// A route as documented: a submission route once per action.
pub struct DocumentedRoute {
    pub method: &'static str,
    pub path: String,
    pub operation: Value,
}

/// The routes as documented, in [`ROUTES`]'s order.
pub fn documented_routes() -> Vec<DocumentedRoute> {
    ROUTES
        .iter()
        .flat_map(|route| match &route.doc {
            RouteDoc::Submission { live } => ActionId::ALL
                .iter()
                .map(|action| DocumentedRoute {
                    method: route.endpoint.method().as_str(),
                    path: route.path().replace("{action}", action.as_str()),
                    operation: submission_operation(*action, *live),
                })
                .collect::<Vec<_>>(),
            RouteDoc::Operation(operation) => vec![DocumentedRoute {
                method: route.endpoint.method().as_str(),
                path: route.path().to_owned(),
                operation: plain_operation(operation),
            }],
        })
        .collect()
}

fn camel(words: &str, separator: char) -> String {
    words
        .split(separator)
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

fn submission_schema_name(action: ActionId) -> String {
    format!("{}Submission", camel(action.as_str(), '-'))
}

fn submission_schema(action: ActionId) -> Value {
    let input = match action.input_shapes() {
        [one] => schema_ref(&shape_schema_name(*one)),
        // Metrics: `company` selects the company-employees shape, otherwise keywords.
        _ => json!({ "anyOf": [
            schema_ref(&shape_schema_name(InputShape::CompanyEmployees)),
            { "allOf": [schema_ref(&shape_schema_name(InputShape::Keywords))], "not": { "required": ["company"] } }
        ] }),
    };
    let ceiling = action.sandbox_max_results().min(MAX_RESULTS_LIMIT);
    let mut max_credits = json!({ "type": "integer", "minimum": 1, "maximum": MAX_CREDITS_LIMIT });
    if action.credits_per_record() > 1 {
        max_credits["minimum"] = json!(action.credits_per_record());
        max_credits["description"] = json!("At least the cost of one record.");
    }
    json!({ "type": "object", "required": ["input"], "additionalProperties": false, "properties": {
        "input": input,
        "max_results": { "type": "integer", "minimum": 1, "maximum": MAX_RESULTS_LIMIT,
            "description": format!(
                "1 to {MAX_RESULTS_LIMIT} for every action. The run is capped at {ceiling}, this action's \
                 ceiling: records, reservation and cost use the smaller of the two. Defaults to {ceiling}."
            ) },
        "max_credits": max_credits } })
}

/// The whole document.
pub fn document() -> Value {
    let mut paths = Map::new();
    for route in documented_routes() {
        let entry = paths.entry(route.path).or_insert_with(|| json!({}));
        entry[route.method.to_lowercase()] = route.operation;
    }
    let mut schemas = Map::new();
    for shape in InputShape::ALL {
        schemas.insert(shape_schema_name(shape), shape_schema(shape));
    }
    for action in ActionId::ALL {
        schemas.insert(submission_schema_name(action), submission_schema(action));
    }
    for (name, schema) in contract_schemas() {
        let clash = schemas.insert(name.clone(), schema);
        debug_assert!(clash.is_none(), "two schemas named {name}");
    }
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Data-extraction service (sandbox)",
            "version": "1.0.0",
            "description": "Actions, runs, workspace credits and API keys. Served by the local sandbox. A method a path does not take is answered 405 (`method_not_allowed`) with the error body; a path no route has, 404 (`not_found`)."
        },
        "servers": [{ "url": "/" }],
        "security": [{ "bearerAuth": [] }],
        "paths": paths,
        "components": {
            "securitySchemes": { "bearerAuth": { "type": "http", "scheme": "bearer",
                "description": "An API key, or an account-session JWT (needed for key management)." } },
            "headers": { "RequestId": { "description": "Identifies the request, for support.", "schema": { "type": "string" } } },
            "parameters": {
                "RunId": { "name": "id", "in": "path", "required": true, "schema": { "type": "string" } },
                "KeyId": { "name": "id", "in": "path", "required": true, "schema": { "type": "string" } },
                "IdempotencyKey": { "name": "Idempotency-Key", "in": "header", "required": true, "schema": {
                    "type": "string", "minLength": IDEMPOTENCY_KEY_MIN, "maxLength": IDEMPOTENCY_KEY_MAX, "pattern": "^[a-zA-Z0-9_:-]+$" } }
            },
            "schemas": schemas
        }
    })
}
