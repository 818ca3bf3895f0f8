//! The request log as data: an entry for every request the console made (the page's and the
//! bulk worker's), how it is built from an exchange (long bodies shortened, a new key's secret
//! taken out), the list's filters, and the Markdown a person pastes into a support ticket.
//! The credential is never part of an entry: the client does not hand it to the log.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use api_contract::timestamp::to_wire;
use api_contract::{ConsoleEnvironment, Endpoint, ErrorBody};

use super::snippets::RequestSpec;
use super::urls::encode;

/// The entries kept per workspace; the oldest go first.
pub const KEPT_ENTRIES: usize = 5_000;
/// A body longer than this is kept shortened in its entry.
pub const SHORTENED_BODY_BYTES: usize = 64 * 1024;
/// How many of the longer bodies are also kept whole, per workspace (the newest).
pub const WHOLE_BODIES_KEPT: usize = 20;
/// What stands in for a new API key's secret: it is shown once, in the console, and kept nowhere.
pub const SECRET_NOT_KEPT: &str = "(the secret was shown once and is not kept)";

/// Who made the request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    Page,
    BulkWorker,
}

impl Origin {
    pub fn label(self) -> &'static str {
        match self {
            Origin::Page => "page",
            Origin::BulkWorker => "bulk worker",
        }
    }
}

/// One request and its answer, as the API client saw it (`api::client`).
#[derive(Clone, Debug, PartialEq)]
pub struct Exchange {
    pub at: DateTime<Utc>,
    pub duration_ms: u32,
    pub method: String,
    /// The API's base URL, without `/v1`.
    pub base_url: String,
    /// From `/v1` on, with the query.
    pub path: String,
    pub idempotency_key: Option<String>,
    pub request_body: Option<String>,
    /// `None`: no answer came (network error, refused by CORS).
    pub status: Option<u16>,
    pub network_error: Option<String>,
    pub request_id: Option<String>,
    pub answer: String,
}

/// A body as kept: the text, shortened past [`SHORTENED_BODY_BYTES`], and the whole length.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptBody {
    pub text: String,
    pub whole_bytes: usize,
}

impl KeptBody {
    pub fn of(text: &str) -> KeptBody {
        let mut end = text.len().min(SHORTENED_BODY_BYTES);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        KeptBody {
            text: text[..end].to_owned(),
            whole_bytes: text.len(),
        }
    }

    pub fn is_shortened(&self) -> bool {
        self.whole_bytes > self.text.len()
    }
}

/// An error answer's code and message, for the list and the search.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnsweredError {
    pub code: String,
    pub message: String,
}

/// A request as the log keeps it (the answer's body is kept apart: see [`Entry::answer_body`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// Sorts as the entries were made: `{milliseconds since 1970, 13 digits}-{8 hex}`.
    pub id: String,
    #[serde(with = "api_contract::timestamp")]
    pub at: DateTime<Utc>,
    pub duration_ms: u32,
    pub origin: Origin,
    pub method: String,
    pub base_url: String,
    pub path: String,
    #[serde(default)]
    pub idempotency_key: Option<String>,
    #[serde(default)]
    pub request_body: Option<KeptBody>,
    #[serde(default)]
    pub status: Option<u16>,
    #[serde(default)]
    pub network_error: Option<String>,
    #[serde(default)]
    pub request_id: Option<String>,
    pub answer_bytes: usize,
    /// The contract's error, when the answer carried one.
    #[serde(default)]
    pub error: Option<AnsweredError>,
    /// Its bodies were dropped by the expiry rule after this many days (`model::expiry`): the
    /// entry keeps method, path, status and times.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bodies_forgotten_after_days: Option<u32>,
}

/// Why an entry's request cannot be written out as code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoCode {
    /// Its body was shortened here and is no longer kept whole.
    Shortened,
    /// Its bodies were forgotten after this many days, as the expiry rule says.
    Forgotten { days: u32 },
}

/// An entry with its answer's body, both as kept.
pub struct Recorded {
    pub entry: Entry,
    pub answer: KeptBody,
    /// The whole bodies, when longer than what the entry keeps.
    pub whole_request: Option<String>,
    pub whole_answer: Option<String>,
}

impl Exchange {
    /// The exchange as the log keeps it, under `id` ([`entry_id`]).
    pub fn recorded(self, id: String, origin: Origin) -> Recorded {
        // Every path under the keys' routes, not only the routes themselves: a secret in an
        // answer to any of them never reaches the log.
        let answer_text = if self
            .path
            .starts_with(api_contract::Endpoint::CreateKey.path())
        {
            without_secrets(&self.answer)
        } else {
            self.answer
        };
        let error = self
            .status
            .filter(|s| *s >= 400)
            .and_then(|_| serde_json::from_str::<ErrorBody>(&answer_text).ok())
            .map(|body| AnsweredError {
                code: body.error.code,
                message: body.error.message,
            });
        let request_id = self.request_id.or_else(|| {
            serde_json::from_str::<ErrorBody>(&answer_text)
                .ok()
                .and_then(|b| b.error.request_id)
        });
        let request_body = self.request_body.as_deref().map(KeptBody::of);
        let answer = KeptBody::of(&answer_text);
        let whole_request = self
            .request_body
            .filter(|_| request_body.as_ref().is_some_and(KeptBody::is_shortened));
        let whole_answer = answer.is_shortened().then_some(answer_text.clone());
        Recorded {
            entry: Entry {
                id,
                at: self.at,
                duration_ms: self.duration_ms,
                origin,
                method: self.method,
                base_url: self.base_url,
                path: self.path,
                idempotency_key: self.idempotency_key,
                request_body,
                status: self.status,
                network_error: self.network_error,
                request_id,
                answer_bytes: answer_text.len(),
                error,
                bodies_forgotten_after_days: None,
            },
            answer,
            whole_request,
            whole_answer,
        }
    }
}

/// An entry's id: sorts by time, unique across the page, the worker and other tabs.
pub fn entry_id(at: DateTime<Utc>, random: u32) -> String {
    format!("{:013}-{random:08x}", at.timestamp_millis().max(0))
}

/// An exchange heard by a logger, with the id its entry is kept under. The id is given when
/// the exchange is heard, not when it is written, so that writing it twice (a write the page's
/// going away cut short, then the page's last write) keeps one entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Heard {
    pub entry_id: String,
    pub exchange: Exchange,
}

impl Heard {
    /// `exchange`, under a new id from its time and `random`.
    pub fn new(exchange: Exchange, random: u32) -> Heard {
        Heard {
            entry_id: entry_id(exchange.at, random),
            exchange,
        }
    }
}

/// A key's secret (`api_key`) taken out of an answer of `/v1/keys`; anything that is not the
/// contract's JSON is kept as a note instead, in case it holds one.
fn without_secrets(answer: &str) -> String {
    fn redact(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                for (name, field) in map.iter_mut() {
                    if name == "api_key" {
                        *field = serde_json::Value::from(SECRET_NOT_KEPT);
                    } else {
                        redact(field);
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(redact),
            _ => {}
        }
    }
    if answer.is_empty() {
        return String::new();
    }
    match serde_json::from_str::<serde_json::Value>(answer) {
        Ok(mut value) => {
            redact(&mut value);
            serde_json::to_string_pretty(&value).unwrap_or_default()
        }
        Err(_) => {
            "(an answer of /v1/keys that is not JSON; not kept, as it may hold a secret)".to_owned()
        }
    }
}

/// The methods the console sends.
pub const METHODS: [&str; 3] = ["GET", "POST", "DELETE"];

/// `/log/{id}`: one entry's page.
pub fn entry_path(id: &str) -> String {
    format!("/log/{}", encode(id))
}

/// Which answers the list shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusClass {
    Success,
    ClientError,
    ServerError,
    NoAnswer,
}

impl StatusClass {
    pub const ALL: [StatusClass; 4] = [
        StatusClass::Success,
        StatusClass::ClientError,
        StatusClass::ServerError,
        StatusClass::NoAnswer,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            StatusClass::Success => "2xx",
            StatusClass::ClientError => "4xx",
            StatusClass::ServerError => "5xx",
            StatusClass::NoAnswer => "none",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            StatusClass::Success => "2xx success",
            StatusClass::ClientError => "4xx refused",
            StatusClass::ServerError => "5xx failed",
            StatusClass::NoAnswer => "no answer",
        }
    }

    pub fn parse(text: &str) -> Option<StatusClass> {
        StatusClass::ALL.into_iter().find(|c| c.as_str() == text)
    }

    fn of(status: Option<u16>) -> StatusClass {
        match status {
            None => StatusClass::NoAnswer,
            Some(s) if s >= 500 => StatusClass::ServerError,
            Some(s) if s >= 400 => StatusClass::ClientError,
            Some(_) => StatusClass::Success,
        }
    }
}

/// The list's filters, as in the URL.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogFilter {
    pub status: Option<StatusClass>,
    pub method: Option<String>,
    /// Part of the path, case-insensitive.
    pub path: String,
    /// Words found anywhere in the entry: path, ids, key, error, request body.
    pub text: String,
}

/// `/log`'s query as the URL holds it, as text (`q` is `text`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LogQuery<'a> {
    pub status: Option<&'a str>,
    pub method: Option<&'a str>,
    pub path: Option<&'a str>,
    pub text: Option<&'a str>,
}

impl LogFilter {
    /// The filter of `/log`'s query (`status`, `method`, `path`, `q`); an unknown status or
    /// method is shown as such rather than dropped, so the list is never quietly wider.
    pub fn from_query(query: LogQuery<'_>) -> Result<LogFilter, String> {
        let LogQuery {
            status,
            method,
            path,
            text,
        } = query;
        let status = match status.filter(|s| !s.is_empty()) {
            None => None,
            Some(s) => Some(StatusClass::parse(s).ok_or_else(|| {
                format!("“{s}” is not a status class here (2xx, 4xx, 5xx or none); showing none.")
            })?),
        };
        let method = match method.filter(|m| !m.is_empty()) {
            None => None,
            Some(m) if METHODS.contains(&m.to_ascii_uppercase().as_str()) => {
                Some(m.to_ascii_uppercase())
            }
            Some(m) => {
                return Err(format!(
                    "“{m}” is not a method the console sends; showing none."
                ));
            }
        };
        Ok(LogFilter {
            status,
            method,
            path: path.unwrap_or_default().to_owned(),
            text: text.unwrap_or_default().to_owned(),
        })
    }

    /// `/log` with this filter, as a URL.
    pub fn url(&self) -> String {
        let mut params = Vec::new();
        if let Some(status) = self.status {
            params.push(format!("status={}", status.as_str()));
        }
        if let Some(method) = &self.method {
            params.push(format!("method={}", encode(method)));
        }
        if !self.path.is_empty() {
            params.push(format!("path={}", encode(&self.path)));
        }
        if !self.text.is_empty() {
            params.push(format!("q={}", encode(&self.text)));
        }
        if params.is_empty() {
            "/log".to_owned()
        } else {
            format!("/log?{}", params.join("&"))
        }
    }

    pub fn is_empty(&self) -> bool {
        *self == LogFilter::default()
    }

    pub fn matches(&self, entry: &Entry) -> bool {
        if self
            .status
            .is_some_and(|s| StatusClass::of(entry.status) != s)
        {
            return false;
        }
        if self
            .method
            .as_deref()
            .is_some_and(|m| !entry.method.eq_ignore_ascii_case(m))
        {
            return false;
        }
        let path = self.path.trim().to_lowercase();
        if !path.is_empty() && !entry.path.to_lowercase().contains(&path) {
            return false;
        }
        let words = self.text.to_lowercase();
        let words: Vec<&str> = words.split_whitespace().collect();
        if words.is_empty() {
            return true;
        }
        let haystack = entry.search_text();
        words.iter().all(|w| haystack.contains(w))
    }
}

impl Entry {
    /// What the text filter looks in, lowercased.
    fn search_text(&self) -> String {
        let mut text = format!(
            "{} {} {} {} {}",
            self.method,
            self.path,
            self.status.map(|s| s.to_string()).unwrap_or_default(),
            self.request_id.as_deref().unwrap_or(""),
            self.idempotency_key.as_deref().unwrap_or(""),
        );
        if let Some(error) = &self.error {
            text.push(' ');
            text.push_str(&error.code);
            text.push(' ');
            text.push_str(&error.message);
        }
        if let Some(reason) = &self.network_error {
            text.push(' ');
            text.push_str(reason);
        }
        if let Some(body) = &self.request_body {
            text.push(' ');
            text.push_str(&body.text);
        }
        text.to_lowercase()
    }

    /// The request carried a body: its route is one that sends one (a route the contract does
    /// not know, when it was a `POST`).
    fn sent_a_body(&self) -> bool {
        let path = self.path.split('?').next().unwrap_or(&self.path);
        Endpoint::recognize(&self.method, path).map_or(self.method == "POST", Endpoint::sends_body)
    }

    /// The status as people read it: `201`, or `no answer`.
    pub fn status_text(&self) -> String {
        self.status
            .map_or_else(|| "no answer".to_owned(), |s| s.to_string())
    }

    /// The request as code, when its body is kept whole (`whole_request` for a long one), or
    /// why it cannot be written out.
    pub fn request_spec(&self, whole_request: Option<&str>) -> Result<RequestSpec, NoCode> {
        let body = match (&self.request_body, whole_request) {
            (None, _) => match self.bodies_forgotten_after_days {
                Some(days) if self.sent_a_body() => return Err(NoCode::Forgotten { days }),
                _ => None,
            },
            (Some(_), Some(whole)) => Some(whole.to_owned()),
            (Some(kept), None) if !kept.is_shortened() => Some(kept.text.clone()),
            (Some(_), None) => return Err(NoCode::Shortened),
        };
        Ok(RequestSpec {
            method: self.method.clone(),
            url: format!("{}{}", self.base_url, self.path),
            idempotency_key: self.idempotency_key.clone(),
            body,
        })
    }

    /// Markdown for a support ticket: what was asked, when, what came back, with the request id
    /// and the error's body, and the environment it was sent to (live or a sandbox, by name).
    /// Never the credential (the entry has none).
    pub fn ticket_text(&self, answer: &KeptBody, environment: &ConsoleEnvironment) -> String {
        let mut text = format!(
            "**{} {}: {}**\n\n",
            self.method,
            self.path,
            match (self.status, &self.network_error) {
                (Some(status), _) => format!("HTTP {status}"),
                (None, Some(reason)) => format!("no answer ({reason})"),
                (None, None) => "no answer".to_owned(),
            }
        );
        let mut line = |name: &str, value: &str| {
            text.push_str(&format!("- {name}: {value}\n"));
        };
        line(
            "Request id",
            &self
                .request_id
                .as_deref()
                .map_or_else(|| "(none in the answer)".to_owned(), code_span),
        );
        line("Sent", &to_wire(&self.at));
        let answered = self.at + chrono::TimeDelta::milliseconds(i64::from(self.duration_ms));
        line(
            "Answered",
            &format!("{} ({} ms)", to_wire(&answered), self.duration_ms),
        );
        if let Some(key) = &self.idempotency_key {
            line("Idempotency-Key", &code_span(key));
        }
        if let Some(error) = &self.error {
            line(
                "Error",
                &format!("{} {}", code_span(&error.code), error.message),
            );
        }
        line(
            "Environment",
            &format!(
                "{} ({})",
                environment.name,
                if environment.is_live() {
                    "live"
                } else {
                    "sandbox: no real credits"
                }
            ),
        );
        line("API", &self.base_url);
        line("Sent by", &format!("the console's {}", self.origin.label()));
        if let Some(body) = &self.request_body {
            text.push_str("\nRequest body:\n\n");
            text.push_str(&code_block(&body.text, body.is_shortened()));
        }
        if self.status.is_some_and(|s| s >= 400) && !answer.text.is_empty() {
            text.push_str("\nAnswer body:\n\n");
            text.push_str(&code_block(&answer.text, answer.is_shortened()));
        }
        text
    }
}

/// `text` as a Markdown code span, with enough backticks around it.
fn code_span(text: &str) -> String {
    let fence = "`".repeat(longest_backtick_run(text) + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// `text` as a fenced Markdown block whose fence no line of it can close.
fn code_block(text: &str, shortened: bool) -> String {
    let fence = "`".repeat((longest_backtick_run(text) + 1).max(3));
    let language = if serde_json::from_str::<serde_json::Value>(text).is_ok() {
        "json"
    } else {
        ""
    };
    let note = if shortened {
        "(shortened: the first 64 KB)\n"
    } else {
        ""
    };
    format!("{fence}{language}\n{text}\n{fence}\n{note}")
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exchange(path: &str, status: Option<u16>, answer: &str) -> Exchange {
        Exchange {
            at: "2026-11-24T09:15:02.123Z".parse().unwrap(),
            duration_ms: 120,
            method: "POST".into(),
            base_url: "http://127.0.0.1:8787".into(),
            path: path.into(),
            idempotency_key: Some("console-abc".into()),
            request_body: Some("{\n  \"input\": {\n    \"keywords\": \"x\"\n  }\n}".into()),
            status,
            network_error: None,
            request_id: Some("req_1".into()),
            answer: answer.into(),
        }
    }

    const REFUSED: &str = r#"{"error":{"code":"invalid_input","message":"input.keywords is required","request_id":"req_1"}}"#;

    #[test]
    fn an_error_answer_keeps_its_code_message_and_request_id() {
        let recorded = exchange(
            "/v1/actions/premium-search-people/run/async",
            Some(400),
            REFUSED,
        )
        .recorded("id".into(), Origin::Page);
        let entry = &recorded.entry;
        assert_eq!(entry.error.as_ref().unwrap().code, "invalid_input");
        assert_eq!(entry.request_id.as_deref(), Some("req_1"));
        assert_eq!(recorded.answer.text, REFUSED);
        assert!(recorded.whole_answer.is_none());
        let production = ConsoleEnvironment {
            kind: api_contract::EnvironmentKind::Live,
            name: "Production".to_owned(),
        };
        let ticket = entry.ticket_text(&recorded.answer, &production);
        assert!(ticket.contains("`req_1`"), "{ticket}");
        assert!(
            ticket.contains("- Environment: Production (live)\n"),
            "{ticket}"
        );
        let sandbox = entry.ticket_text(&recorded.answer, &ConsoleEnvironment::sandbox());
        assert!(
            sandbox.contains("- Environment: Sandbox (sandbox: no real credits)\n"),
            "{sandbox}"
        );
        assert!(ticket.contains("HTTP 400"));
        assert!(ticket.contains("2026-11-24T09:15:02.123Z"));
        assert!(ticket.contains("2026-11-24T09:15:02.243Z (120 ms)"));
        assert!(
            ticket.contains(&format!("```json\n{REFUSED}\n```")),
            "{ticket}"
        );
        assert!(ticket.contains("`console-abc`"));
    }

    #[test]
    fn the_request_id_comes_from_the_error_body_when_the_header_is_missing() {
        let mut no_header = exchange("/v1/runs", Some(400), REFUSED);
        no_header.request_id = None;
        let recorded = no_header.recorded("id".into(), Origin::Page);
        assert_eq!(recorded.entry.request_id.as_deref(), Some("req_1"));
    }

    #[test]
    fn a_new_keys_secret_is_never_kept() {
        let answer =
            r#"{"id":"key_1","name":"ci","prefix":"sk_live_ab","api_key":"sk_live_abSECRET"}"#;
        let recorded = exchange("/v1/keys", Some(201), answer).recorded("id".into(), Origin::Page);
        assert!(!recorded.answer.text.contains("SECRET"));
        assert!(recorded.answer.text.contains(SECRET_NOT_KEPT));
        assert!(
            recorded.answer.text.contains("sk_live_ab\""),
            "the prefix stays"
        );
        let garbled = exchange("/v1/keys", Some(201), "sk_live_abSECRET not json")
            .recorded("id".into(), Origin::Page);
        assert!(!garbled.answer.text.contains("SECRET"));
    }

    #[test]
    fn long_bodies_are_shortened_at_a_character_and_kept_whole_apart() {
        let long = format!("\"{}\"", "é".repeat(SHORTENED_BODY_BYTES));
        let recorded = exchange("/v1/runs", Some(200), &long).recorded("id".into(), Origin::Page);
        assert!(recorded.answer.is_shortened());
        assert!(recorded.answer.text.len() <= SHORTENED_BODY_BYTES);
        assert_eq!(recorded.answer.whole_bytes, long.len());
        assert_eq!(recorded.whole_answer.as_deref(), Some(long.as_str()));
        assert_eq!(recorded.entry.answer_bytes, long.len());
    }

    #[test]
    fn filters_by_status_class_method_path_and_words() {
        let refused = exchange(
            "/v1/actions/premium-search-people/run/async",
            Some(400),
            REFUSED,
        )
        .recorded("a".into(), Origin::Page)
        .entry;
        let mut read = exchange("/v1/runs", Some(200), "{}")
            .recorded("b".into(), Origin::Page)
            .entry;
        read.method = "GET".into();
        let filter = |status, method: Option<&str>, path: &str, text: &str| LogFilter {
            status,
            method: method.map(str::to_owned),
            path: path.into(),
            text: text.into(),
        };
        let only = |f: LogFilter| {
            [&refused, &read]
                .into_iter()
                .filter(|e| f.matches(e))
                .map(|e| e.id.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(only(LogFilter::default()), ["a", "b"]);
        assert_eq!(
            only(filter(Some(StatusClass::ClientError), None, "", "")),
            ["a"]
        );
        assert_eq!(
            only(filter(Some(StatusClass::Success), None, "", "")),
            ["b"]
        );
        assert_eq!(only(filter(None, Some("get"), "", "")), ["b"]);
        assert_eq!(only(filter(None, None, "/V1/RUNS", "")), ["b"]);
        assert_eq!(
            only(filter(None, None, "", "REQUIRED invalid_input")),
            ["a"]
        );
        assert_eq!(
            only(filter(None, None, "", "console-abc keywords")),
            ["a", "b"]
        );
        assert_eq!(
            only(filter(Some(StatusClass::NoAnswer), None, "", "")),
            Vec::<String>::new()
        );
    }

    #[test]
    fn the_filter_round_trips_through_its_url_and_refuses_what_it_does_not_know() {
        let query = LogQuery {
            status: Some("4xx"),
            method: Some("post"),
            path: Some("/v1/runs"),
            text: Some("a b"),
        };
        let filter = LogFilter::from_query(query).unwrap();
        assert_eq!(filter.method.as_deref(), Some("POST"));
        let url = filter.url();
        assert_eq!(url, "/log?status=4xx&method=POST&path=%2Fv1%2Fruns&q=a%20b");
        let decoded = percent_encoding::percent_decode_str(&url)
            .decode_utf8()
            .unwrap()
            .into_owned();
        let get = |name: &str| {
            decoded
                .split_once('?')
                .unwrap()
                .1
                .split('&')
                .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))
        };
        let read_back = LogQuery {
            status: get("status"),
            method: get("method"),
            path: get("path"),
            text: get("q"),
        };
        assert_eq!(LogFilter::from_query(read_back), Ok(filter));
        assert_eq!(LogFilter::default().url(), "/log");
        let only = |status, method| LogQuery {
            status,
            method,
            ..LogQuery::default()
        };
        assert!(LogFilter::from_query(only(Some("3xx"), None)).is_err());
        assert!(LogFilter::from_query(only(None, Some("PATCH"))).is_err());
        assert_eq!(
            LogFilter::from_query(only(Some(""), Some(""))),
            Ok(LogFilter::default())
        );
    }

    #[test]
    fn entry_ids_sort_by_time() {
        let earlier = entry_id("2026-11-24T09:15:02.123Z".parse().unwrap(), u32::MAX);
        let later = entry_id("2026-11-24T09:15:02.124Z".parse().unwrap(), 0);
        assert!(earlier < later);
        assert_eq!(later.len(), 22);
    }

    #[test]
    fn a_kept_request_is_code_again_unless_its_body_was_shortened() {
        let entry = exchange("/v1/actions/x/run/async", Some(202), "{}")
            .recorded("a".into(), Origin::Page)
            .entry;
        let spec = entry.request_spec(None).unwrap();
        assert_eq!(spec.url, "http://127.0.0.1:8787/v1/actions/x/run/async");
        assert_eq!(spec.idempotency_key.as_deref(), Some("console-abc"));
        let mut long = entry.clone();
        long.request_body = Some(KeptBody::of(&"x".repeat(SHORTENED_BODY_BYTES + 1)));
        assert_eq!(long.request_spec(None), Err(NoCode::Shortened));
        assert!(long.request_spec(Some("{}")).is_ok());
    }

    #[test]
    fn a_request_whose_body_was_forgotten_is_not_code_without_it() {
        let forget = |mut entry: Entry| {
            entry.request_body = None;
            entry.bodies_forgotten_after_days = Some(30);
            entry
        };
        let submitted = exchange("/v1/actions/x/run/async", Some(202), "{}")
            .recorded("a".into(), Origin::Page)
            .entry;
        assert_eq!(
            forget(submitted).request_spec(None),
            Err(NoCode::Forgotten { days: 30 })
        );
        // A request that never had a body is whole without one.
        for (method, path) in [("GET", "/v1/runs?limit=20"), ("POST", "/v1/runs/r1/cancel")] {
            let mut read = exchange(path, Some(200), "{}")
                .recorded("b".into(), Origin::Page)
                .entry;
            read.method = method.to_owned();
            let spec = forget(read)
                .request_spec(None)
                .expect("whole without a body");
            assert_eq!(spec.body, None, "{method} {path}");
        }
        // A route the contract does not know: a POST may have had one.
        let mut odd = exchange("/v1/other", Some(200), "{}")
            .recorded("c".into(), Origin::Page)
            .entry;
        odd.method = "POST".to_owned();
        assert_eq!(
            forget(odd).request_spec(None),
            Err(NoCode::Forgotten { days: 30 })
        );
    }

    #[test]
    fn markdown_fences_outlast_backticks_in_bodies() {
        assert_eq!(code_span("a`b"), "``a`b``");
        assert!(code_block("```\nx", false).starts_with("````\n"));
    }

    #[test]
    fn entries_round_trip_through_json() {
        let entry = exchange("/v1/runs", None, "")
            .recorded("a".into(), Origin::BulkWorker)
            .entry;
        let json = serde_json::to_string(&entry).unwrap();
        assert!(json.contains("\"bulk_worker\""));
        assert_eq!(serde_json::from_str::<Entry>(&json).unwrap(), entry);
    }
}
