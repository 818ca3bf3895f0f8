//! A request to the API as code a developer can run: curl, Python (`requests`), JavaScript
//! (`fetch`), Node.js (`node:http`/`node:https`, no dependency) and Rust (`reqwest`). The
//! credential is never in the code: each snippet reads it from the `API_KEY` environment
//! variable. Every value is written as a literal of its language, escaped by that language's
//! rules, so inputs with quotes, backslashes, newlines or non-ASCII text run as they were sent.

use std::fmt::Write as _;

/// A request as the console made it, or will make it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestSpec {
    /// `GET`, `POST`, `DELETE`.
    pub method: String,
    /// The whole URL, `https://api.example.com/v1/...`.
    pub url: String,
    pub idempotency_key: Option<String>,
    /// JSON text, sent with `Content-Type: application/json`.
    pub body: Option<String>,
}

/// The languages a request can be copied as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    Curl,
    Python,
    JavaScript,
    NodeJs,
    Rust,
}

impl Language {
    pub const ALL: [Language; 5] = [
        Language::Curl,
        Language::Python,
        Language::JavaScript,
        Language::NodeJs,
        Language::Rust,
    ];

    /// What a person reads on the language's tab.
    pub fn label(self) -> &'static str {
        match self {
            Language::Curl => "curl",
            Language::Python => "Python",
            Language::JavaScript => "JavaScript",
            Language::NodeJs => "Node.js",
            Language::Rust => "Rust",
        }
    }

    /// A stable name for URLs, storage and tests.
    pub fn as_str(self) -> &'static str {
        match self {
            Language::Curl => "curl",
            Language::Python => "python",
            Language::JavaScript => "javascript",
            Language::NodeJs => "node",
            Language::Rust => "rust",
        }
    }

    pub fn from_name(name: &str) -> Option<Language> {
        Language::ALL.into_iter().find(|l| l.as_str() == name)
    }

    /// What the snippet needs besides the `API_KEY` variable.
    pub fn needs(self) -> &'static str {
        match self {
            Language::Curl => "Runs in a POSIX shell (bash, zsh).",
            Language::Python => "Needs the requests package (pip install requests).",
            Language::JavaScript => {
                "Runs in Node.js 18 or later as an ES module (snippet.mjs), in Deno or in Bun."
            }
            Language::NodeJs => "Runs with Node.js alone (node snippet.js).",
            Language::Rust => {
                "Needs reqwest with its blocking feature (cargo add reqwest --features blocking)."
            }
        }
    }
}

impl RequestSpec {
    /// The request as code in `language`.
    pub fn code(&self, language: Language) -> String {
        match language {
            Language::Curl => self.curl(),
            Language::Python => self.python(),
            Language::JavaScript => self.javascript(),
            Language::NodeJs => self.node(),
            Language::Rust => self.rust(),
        }
    }

    fn curl(&self) -> String {
        let mut code = String::from("curl");
        if self.method != "GET" {
            let _ = write!(code, " -X {}", self.method);
        }
        let _ = write!(code, " {}", shell_quoted(&self.url));
        code.push_str(" \\\n  -H \"Authorization: Bearer $API_KEY\"");
        if self.body.is_some() {
            code.push_str(" \\\n  -H 'Content-Type: application/json'");
        }
        if let Some(key) = &self.idempotency_key {
            let _ = write!(
                code,
                " \\\n  -H {}",
                shell_quoted(&format!("Idempotency-Key: {key}"))
            );
        }
        if let Some(body) = &self.body {
            // `--data-raw`: a body is never read as `@file`.
            let _ = write!(code, " \\\n  --data-raw {}", shell_quoted(body));
        }
        code
    }

    fn python(&self) -> String {
        let mut code = String::from("import os\n\nimport requests\n\n");
        let _ = writeln!(
            code,
            "response = requests.request(\n    {},\n    {},",
            json_string(&self.method),
            json_string(&self.url)
        );
        code.push_str(
            "    headers={\n        \"Authorization\": \"Bearer \" + os.environ[\"API_KEY\"],\n",
        );
        if let Some(key) = &self.idempotency_key {
            let _ = writeln!(code, "        \"Idempotency-Key\": {},", json_string(key));
        }
        code.push_str("    },\n");
        if let Some(body) = &self.body {
            match python_literal(body) {
                Some(literal) => {
                    let _ = writeln!(code, "    json={},", indented(&literal, "    "));
                }
                // Not JSON after all: send the text as it is.
                None => {
                    let _ = writeln!(code, "    data={}.encode(\"utf-8\"),", json_string(body));
                }
            }
        }
        code.push_str(")\nprint(response.status_code)\nprint(response.text)\n");
        code
    }

    /// The headers object shared by the two JavaScript snippets, indented for its place.
    fn javascript_headers(&self, indent: &str, content_length: bool) -> String {
        let mut headers =
            format!("{{\n{indent}  Authorization: `Bearer ${{process.env.API_KEY}}`,\n");
        if self.body.is_some() {
            let _ = writeln!(headers, "{indent}  \"Content-Type\": \"application/json\",");
            if content_length {
                let _ = writeln!(
                    headers,
                    "{indent}  \"Content-Length\": Buffer.byteLength(payload),"
                );
            }
        }
        if let Some(key) = &self.idempotency_key {
            let _ = writeln!(
                headers,
                "{indent}  \"Idempotency-Key\": {},",
                json_string(key)
            );
        }
        headers.push_str(indent);
        headers.push('}');
        headers
    }

    fn javascript(&self) -> String {
        let mut code = format!(
            "const response = await fetch({}, {{\n  method: {},\n  headers: {},\n",
            json_string(&self.url),
            json_string(&self.method),
            self.javascript_headers("  ", false)
        );
        if let Some(body) = &self.body {
            let _ = writeln!(code, "  body: {},", indented(&javascript_body(body), "  "));
        }
        code.push_str("});\nconsole.log(response.status);\nconsole.log(await response.text());\n");
        code
    }

    fn node(&self) -> String {
        let module = if self.url.starts_with("https:") {
            "node:https"
        } else {
            "node:http"
        };
        let mut code = format!(
            "const {{ request }} = require({});\n\n",
            json_string(module)
        );
        if let Some(body) = &self.body {
            let _ = writeln!(code, "const payload = {};\n", javascript_body(body));
        }
        let _ = write!(
            code,
            "const req = request(\n  {},\n  {{\n    method: {},\n    headers: {},\n  }},\n",
            json_string(&self.url),
            json_string(&self.method),
            self.javascript_headers("    ", true)
        );
        code.push_str(concat!(
            "  (res) => {\n",
            "    let answer = \"\";\n",
            "    res.setEncoding(\"utf8\");\n",
            "    res.on(\"data\", (chunk) => (answer += chunk));\n",
            "    res.on(\"end\", () => {\n",
            "      console.log(res.statusCode);\n",
            "      console.log(answer);\n",
            "    });\n",
            "  },\n",
            ");\n",
            "req.on(\"error\", (error) => {\n",
            "  console.error(error);\n",
            "  process.exitCode = 1;\n",
            "});\n",
        ));
        match self.body {
            Some(_) => code.push_str("req.end(payload);\n"),
            None => code.push_str("req.end();\n"),
        }
        code
    }

    fn rust(&self) -> String {
        let method = match self.method.as_str() {
            "GET" => "get",
            "POST" => "post",
            "DELETE" => "delete",
            "PUT" => "put",
            "PATCH" => "patch",
            _ => "post",
        };
        let mut code = String::from(concat!(
            "fn main() -> Result<(), Box<dyn std::error::Error>> {\n",
            "    let api_key = std::env::var(\"API_KEY\")?;\n",
            "    let response = reqwest::blocking::Client::new()\n",
        ));
        let _ = writeln!(code, "        .{method}({})", rust_string(&self.url));
        code.push_str("        .bearer_auth(api_key)\n");
        if let Some(key) = &self.idempotency_key {
            let _ = writeln!(
                code,
                "        .header(\"Idempotency-Key\", {})",
                rust_string(key)
            );
        }
        if let Some(body) = &self.body {
            code.push_str("        .header(\"Content-Type\", \"application/json\")\n");
            // A raw string cannot hold a carriage return as it is.
            let literal = if body.contains('\r') {
                rust_string(body)
            } else {
                rust_raw_string(body)
            };
            let _ = writeln!(code, "        .body({literal})");
        }
        code.push_str(concat!(
            "        .send()?;\n",
            "    println!(\"{}\", response.status().as_u16());\n",
            "    println!(\"{}\", response.text()?);\n",
            "    Ok(())\n",
            "}\n",
        ));
        code
    }
}

/// `text` in single quotes for a POSIX shell: nothing inside is special but the quote itself,
/// which closes, is escaped, and reopens.
pub fn shell_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// A JSON string literal, which is also a valid Python and JavaScript string literal (serde
/// writes only the escapes those languages share: `\"`, `\\`, `\n`, `\uXXXX`...).
fn json_string(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

/// A Rust string literal (`str`'s `Debug` is the language's own escaping).
fn rust_string(text: &str) -> String {
    format!("{text:?}")
}

/// A Rust raw string literal with enough `#`s that nothing inside ends it.
fn rust_raw_string(text: &str) -> String {
    let mut hashes = String::from("#");
    while text.contains(&format!("\"{hashes}")) {
        hashes.push('#');
    }
    format!("r{hashes}\"{text}\"{hashes}")
}

/// Every line after the first indented by `indent`, for a multi-line value placed inside code.
fn indented(text: &str, indent: &str) -> String {
    text.replace('\n', &format!("\n{indent}"))
}

/// How a body is written in the JavaScript snippets: `JSON.stringify(<literal>)` when the
/// literal is the same JSON again, else the body's exact text as a string.
fn javascript_body(body: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(body) {
        Ok(value) if javascript_keeps(&value) => format!("JSON.stringify({})", body.trim()),
        _ => json_string(body),
    }
}

/// Whether a JavaScript object literal of `value` serialises back to the same JSON: numbers
/// JavaScript holds exactly (integers within ±2^53, no `-0`), no `__proto__` key (a literal
/// sets the prototype with it). Pretty JSON is otherwise a JavaScript expression (ES2019 made
/// the two line separators legal in strings).
fn javascript_keeps(value: &serde_json::Value) -> bool {
    use serde_json::Value;
    const SAFE: u64 = 1 << 53;
    match value {
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.unsigned_abs() <= SAFE,
            (None, Some(u)) => u <= SAFE,
            // A fraction: JavaScript and serde write the shortest text that reads back the same.
            (None, None) => n.as_f64().is_some_and(|f| f.is_finite() && f != 0.0),
        },
        Value::Array(items) => items.iter().all(javascript_keeps),
        Value::Object(fields) => fields
            .iter()
            .all(|(key, field)| key != "__proto__" && javascript_keeps(field)),
        Value::Null | Value::Bool(_) | Value::String(_) => true,
    }
}

/// A JSON body as a Python literal, keeping its order and layout: JSON's strings and numbers are
/// Python literals already; `true`, `false` and `null` outside strings become `True`, `False`
/// and `None`. `None` when the body is not JSON.
fn python_literal(body: &str) -> Option<String> {
    serde_json::from_str::<serde_json::Value>(body).ok()?;
    let mut literal = String::with_capacity(body.len());
    let mut rest = body.trim();
    while let Some(c) = rest.chars().next() {
        if c == '"' {
            // A JSON string, up to the quote no backslash escapes. Its escapes are Python's but
            // one: JSON's `\/` is a plain `/`.
            literal.push('"');
            let mut chars = rest[1..].char_indices();
            while let Some((at, c)) = chars.next() {
                match c {
                    '"' => {
                        literal.push('"');
                        rest = &rest[at + 2..];
                        break;
                    }
                    '\\' => match chars.next() {
                        Some((_, '/')) => literal.push('/'),
                        Some((_, escaped)) => {
                            literal.push('\\');
                            literal.push(escaped);
                        }
                        None => {}
                    },
                    other => literal.push(other),
                }
            }
            continue;
        }
        let word = [("true", "True"), ("false", "False"), ("null", "None")]
            .into_iter()
            .find(|(json, _)| rest.starts_with(json));
        match word {
            Some((json, python)) => {
                literal.push_str(python);
                rest = &rest[json.len()..];
            }
            None => {
                literal.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    Some(literal)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn submission(body: &str) -> RequestSpec {
        RequestSpec {
            method: "POST".into(),
            url: "https://api.example.com/v1/actions/premium-search-people/run/async".into(),
            idempotency_key: Some("console-1234-abcd".into()),
            body: Some(body.into()),
        }
    }

    const HOSTILE: &str = "{\n  \"input\": {\n    \"keywords\": \"it's \\\"quoted\\\" \\\\ back\\nslash é 日本 \\u0007\"\n  },\n  \"max_results\": 5,\n  \"flag\": true,\n  \"none\": null\n}";

    #[test]
    fn no_snippet_carries_a_credential_and_each_reads_api_key() {
        let spec = submission(HOSTILE);
        for language in Language::ALL {
            let code = spec.code(language);
            assert!(code.contains("API_KEY"), "{language:?}: {code}");
            assert!(code.contains("console-1234-abcd"), "{language:?}");
            assert!(
                code.contains("premium-search-people/run/async"),
                "{language:?}"
            );
        }
        assert!(spec.code(Language::Curl).contains("$API_KEY"));
        assert!(
            spec.code(Language::Python)
                .contains("os.environ[\"API_KEY\"]")
        );
        assert!(spec.code(Language::NodeJs).contains("process.env.API_KEY"));
        assert!(
            spec.code(Language::JavaScript)
                .contains("process.env.API_KEY")
        );
        assert!(
            spec.code(Language::Rust)
                .contains("std::env::var(\"API_KEY\")")
        );
    }

    #[test]
    fn curl_quotes_the_body_for_the_shell() {
        let code = submission(HOSTILE).code(Language::Curl);
        assert!(
            code.contains(r#""keywords": "it'\''s \"quoted\""#),
            "{code}"
        );
        assert!(code.contains("--data-raw '{"));
        assert!(!code.contains(" -d "));
    }

    #[test]
    fn python_keeps_order_and_turns_json_words_into_python() {
        let code = submission(HOSTILE).code(Language::Python);
        assert!(code.contains("\"flag\": True"), "{code}");
        assert!(code.contains("\"none\": None"));
        // Words inside strings are left alone.
        let spec = submission(r#"{"input": {"keywords": "true null false"}}"#);
        assert!(spec.code(Language::Python).contains("\"true null false\""));
        let spec = submission(r#"{"url": "https:\/\/x.example\/a", "q": "\\/"}"#);
        let slashes = spec.code(Language::Python);
        assert!(slashes.contains(r#""https://x.example/a""#), "{slashes}");
        assert!(slashes.contains(r#""q": "\\/""#), "{slashes}");
        let input = code.find("\"input\"").unwrap();
        assert!(input < code.find("\"max_results\"").unwrap());
    }

    #[test]
    fn python_sends_text_that_is_not_json_as_it_is() {
        let code = submission("not json").code(Language::Python);
        assert!(
            code.contains("data=\"not json\".encode(\"utf-8\"),"),
            "{code}"
        );
    }

    #[test]
    fn rust_raw_strings_outlast_the_body() {
        assert_eq!(rust_raw_string("plain"), "r#\"plain\"#");
        assert_eq!(rust_raw_string("a\"#b"), "r##\"a\"#b\"##");
        let code = submission(HOSTILE).code(Language::Rust);
        assert!(code.contains(".post(\"https://api.example.com"));
        assert!(code.contains(".body(r#\"{"));
    }

    #[test]
    fn javascript_sends_the_exact_text_when_a_literal_would_change_it() {
        let plain = submission(r#"{"input": {"keywords": "x"}, "max_results": 5}"#);
        assert!(
            plain
                .code(Language::JavaScript)
                .contains("body: JSON.stringify({")
        );
        for body in [
            r#"{"n": 12345678901234567890}"#,
            r#"{"n": -0}"#,
            r#"{"__proto__": {"x": 1}}"#,
            "not json",
        ] {
            let spec = submission(body);
            let expected = serde_json::Value::from(body).to_string();
            assert!(
                spec.code(Language::JavaScript)
                    .contains(&format!("body: {expected},")),
                "{body}"
            );
            assert!(
                spec.code(Language::NodeJs)
                    .contains(&format!("const payload = {expected};")),
                "{body}"
            );
        }
    }

    #[test]
    fn rust_writes_a_carriage_return_as_an_escape() {
        let code = submission("{\"a\": \"x\"}\r\n").code(Language::Rust);
        assert!(code.contains(r#".body("{\"a\": \"x\"}\r\n")"#), "{code}");
    }

    #[test]
    fn reads_have_no_body_and_no_key() {
        let spec = RequestSpec {
            method: "GET".into(),
            url: "http://127.0.0.1:8787/v1/runs/abc".into(),
            idempotency_key: None,
            body: None,
        };
        let curl = spec.code(Language::Curl);
        assert!(
            curl.starts_with("curl 'http://127.0.0.1:8787/v1/runs/abc'"),
            "{curl}"
        );
        assert!(!curl.contains("Content-Type") && !curl.contains("Idempotency"));
        assert!(
            spec.code(Language::NodeJs)
                .contains("require(\"node:http\")")
        );
        assert!(spec.code(Language::NodeJs).contains("req.end();"));
        assert!(spec.code(Language::Rust).contains(".get(\"http://"));
        assert!(!spec.code(Language::Python).contains("json="));
    }

    #[test]
    fn languages_round_trip_by_name() {
        for language in Language::ALL {
            assert_eq!(Language::from_name(language.as_str()), Some(language));
        }
        assert_eq!(Language::from_name("cobol"), None);
    }
}
