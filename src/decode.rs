//! Reading the API's JSON answers into the contract's types.
//!
//! The body is parsed once into a `serde_json::Value` (the type run outputs need anyway), and
//! each resource is read from it by the small functions here. The shared crate's
//! `#[derive(Deserialize)]` would do the same, but every derived impl is its own parser state
//! machine in the wasm bundle; reading from one `Value` measured about 6 KB gzip less of the
//! 180 KB budget. The rules are serde's: unknown fields are ignored, a missing or `null`
//! optional field is `None`, a missing required field or a wrong type is an error. Native tests
//! check every type against the derived `Deserialize` on the same inputs.

use api_contract::{
    ActionEntry, ActionList, Completeness, ErrorBody, ErrorDetail, Run, RunError, RunList,
    RunStatus, UsageToday, Workspace,
};
use serde_json::{Map, Value};

/// A type the console reads from an API answer.
pub trait FromJson: Sized {
    fn from_json(value: &Value) -> Result<Self, String>;
}

/// Parses `body` and reads a `T` from it; the error says what did not match, for people.
pub fn decode<T: FromJson>(body: &str) -> Result<T, String> {
    let value: Value = serde_json::from_str(body).map_err(|e| format!("not JSON ({e})"))?;
    T::from_json(&value)
}

/// The fields of one JSON object, read by name.
struct Fields<'a> {
    map: &'a Map<String, Value>,
    what: &'static str,
}

fn object<'a>(value: &'a Value, what: &'static str) -> Result<Fields<'a>, String> {
    match value {
        Value::Object(map) => Ok(Fields { map, what }),
        _ => Err(format!("{what} is not a JSON object")),
    }
}

impl<'a> Fields<'a> {
    fn wrong(&self, key: &str, expected: &str) -> String {
        format!("{}: `{key}` must be {expected}", self.what)
    }

    /// A present, non-null field.
    fn some(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    fn required(&self, key: &str) -> Result<&'a Value, String> {
        self.map
            .get(key)
            .ok_or_else(|| format!("{}: `{key}` is missing", self.what))
    }

    fn string(&self, key: &str) -> Result<String, String> {
        self.required(key)?
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| self.wrong(key, "a string"))
    }

    fn opt_string(&self, key: &str) -> Result<Option<String>, String> {
        self.some(key)
            .map(|v| {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| self.wrong(key, "a string"))
            })
            .transpose()
    }

    fn whole(&self, key: &str) -> Result<u64, String> {
        self.required(key)?
            .as_u64()
            .ok_or_else(|| self.wrong(key, "a whole number"))
    }

    fn opt_number(&self, key: &str) -> Result<Option<f64>, String> {
        self.some(key)
            .map(|v| v.as_f64().ok_or_else(|| self.wrong(key, "a number")))
            .transpose()
    }

    fn boolean(&self, key: &str) -> Result<bool, String> {
        self.required(key)?
            .as_bool()
            .ok_or_else(|| self.wrong(key, "true or false"))
    }

    fn array(&self, key: &str) -> Result<&'a Vec<Value>, String> {
        self.required(key)?
            .as_array()
            .ok_or_else(|| self.wrong(key, "an array"))
    }

    fn list<T: FromJson>(&self, key: &str) -> Result<Vec<T>, String> {
        self.array(key)?.iter().map(T::from_json).collect()
    }
}

impl FromJson for RunStatus {
    fn from_json(value: &Value) -> Result<Self, String> {
        let text = value.as_str().unwrap_or_default();
        RunStatus::ALL
            .into_iter()
            .find(|s| s.as_str() == text)
            .ok_or_else(|| format!("unknown run status {value}"))
    }
}

impl FromJson for Run {
    fn from_json(value: &Value) -> Result<Self, String> {
        let f = object(value, "run")?;
        Ok(Run {
            id: f.string("id")?,
            action: f.string("action")?,
            status: RunStatus::from_json(f.required("status")?)?,
            output: f.array("output")?.clone(),
            credits_used: f.whole("credits_used")?,
            credits_reserved: f.whole("credits_reserved")?,
            created_at: f.string("created_at")?,
            completed_at: f.opt_string("completed_at")?,
            completeness: {
                let c = object(f.required("completeness")?, "completeness")?;
                Completeness {
                    has_more: c.boolean("has_more")?,
                    scope: c.string("scope")?,
                }
            },
            error: f
                .some("error")
                .map(|e| {
                    let e = object(e, "run error")?;
                    Ok::<_, String>(RunError {
                        code: e.string("code")?,
                        message: e.string("message")?,
                    })
                })
                .transpose()?,
        })
    }
}

impl FromJson for RunList {
    fn from_json(value: &Value) -> Result<Self, String> {
        Ok(RunList {
            runs: object(value, "run list")?.list("runs")?,
        })
    }
}

impl FromJson for Workspace {
    fn from_json(value: &Value) -> Result<Self, String> {
        // Fields in the contract's order, so the first problem is the one reported.
        let f = object(value, "workspace")?;
        Ok(Workspace {
            workspace_id: f.string("workspace_id")?,
            name: f.string("name")?,
            credits_balance: f.whole("credits_balance")?,
            credits_reserved: f.whole("credits_reserved")?,
            usage_today: {
                let usage = object(f.required("usage_today")?, "usage_today")?;
                UsageToday {
                    profiles: usage.whole("profiles")?,
                    premium_lines: usage.whole("premium_lines")?,
                }
            },
        })
    }
}

impl FromJson for ActionEntry {
    fn from_json(value: &Value) -> Result<Self, String> {
        let f = object(value, "action")?;
        let input_keys = f
            .some("input_keys")
            .map(|keys| {
                keys.as_array()
                    .and_then(|keys| {
                        keys.iter()
                            .map(|k| k.as_str().map(str::to_owned))
                            .collect::<Option<Vec<_>>>()
                    })
                    .ok_or_else(|| f.wrong("input_keys", "an array of strings"))
            })
            .transpose()?;
        Ok(ActionEntry {
            id: f.string("id")?,
            input_keys,
            input_key: f.string("input_key")?,
            credits_per_record: f.whole("credits_per_record")?,
            max_results: u32::try_from(f.whole("max_results")?)
                .map_err(|_| f.wrong("max_results", "a whole number below 2^32"))?,
        })
    }
}

impl FromJson for ActionList {
    fn from_json(value: &Value) -> Result<Self, String> {
        Ok(ActionList {
            actions: object(value, "action list")?.list("actions")?,
        })
    }
}

impl FromJson for ErrorBody {
    fn from_json(value: &Value) -> Result<Self, String> {
        let f = object(object(value, "error body")?.required("error")?, "error")?;
        Ok(ErrorBody {
            error: ErrorDetail {
                code: f.string("code")?,
                message: f.string("message")?,
                request_id: f.opt_string("request_id")?,
                retry_after: f.opt_number("retry_after")?,
            },
        })
    }
}

/// The claims of a JWT the console shows (decoded for display only, never trusted).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Claims {
    pub sub: Option<String>,
    pub exp: Option<i64>,
}

impl FromJson for Claims {
    fn from_json(value: &Value) -> Result<Self, String> {
        let f = object(value, "claims")?;
        Ok(Claims {
            sub: f.opt_string("sub")?,
            exp: f
                .some("exp")
                .map(|v| v.as_i64().ok_or_else(|| f.wrong("exp", "a whole number")))
                .transpose()?,
        })
    }
}

/// A JWT header: only its `alg` is required to call a value a JWT.
pub struct JwtHeader;

impl FromJson for JwtHeader {
    fn from_json(value: &Value) -> Result<Self, String> {
        object(value, "JWT header")?
            .string("alg")
            .map(|_| JwtHeader)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::DeserializeOwned;
    use std::fmt::Debug;

    /// Decodes with this module and with the derived `Deserialize`: both accept or both refuse,
    /// and agree on the value.
    fn agree<T: FromJson + DeserializeOwned + PartialEq + Debug>(body: &str) -> Option<T> {
        let ours = decode::<T>(body);
        let derived = serde_json::from_str::<T>(body);
        match (ours, derived) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b, "{body}");
                Some(a)
            }
            (Err(_), Err(_)) => None,
            (ours, derived) => panic!("disagree on {body}: ours {ours:?}, derived {derived:?}"),
        }
    }

    const RUN: &str = r#"{"id":"r1","action":"premium-search-people","status":"completed",
        "output":[{"name":"A","n":1.5,"tags":["x"]}],"credits_used":3,"credits_reserved":0,
        "created_at":"2026-11-20T10:00:00Z","completed_at":"2026-11-20T10:00:02Z",
        "completeness":{"has_more":true,"scope":"single_page"},"extra":1}"#;

    #[test]
    fn runs_read_like_the_derived_impl() {
        let run = agree::<Run>(RUN).expect("valid");
        assert_eq!(run.status, RunStatus::Completed);
        assert!(run.completeness.has_more);
        for body in [
            RUN.replace(r#""completed_at":"2026-11-20T10:00:02Z","#, ""),
            RUN.replace(
                r#""completed_at":"2026-11-20T10:00:02Z""#,
                r#""completed_at":null"#,
            ),
            RUN.replace(
                r#""extra":1"#,
                r#""error":{"code":"upstream_timeout","message":"m"}"#,
            ),
            RUN.replace(r#""extra":1"#, r#""error":null"#),
            RUN.replace(r#""status":"completed""#, r#""status":"failed""#),
        ] {
            agree::<Run>(&body).expect("valid");
        }
        for body in [
            RUN.replace(r#""status":"completed""#, r#""status":"done""#),
            RUN.replace(r#""credits_used":3"#, r#""credits_used":-3"#),
            RUN.replace(r#""credits_used":3"#, r#""credits_used":3.5"#),
            RUN.replace(r#""credits_used":3"#, r#""credits_used":"3""#),
            RUN.replace(r#""id":"r1","#, ""),
            RUN.replace(
                r#""output":[{"name":"A","n":1.5,"tags":["x"]}]"#,
                r#""output":{}"#,
            ),
            RUN.replace(r#""has_more":true"#, r#""has_more":"yes""#),
            RUN.replace(r#""extra":1"#, r#""error":{"code":"x"}"#),
            RUN.replace(
                r#""created_at":"2026-11-20T10:00:00Z""#,
                r#""created_at":null"#,
            ),
            "[]".to_owned(),
            "not json".to_owned(),
        ] {
            assert!(agree::<Run>(&body).is_none(), "{body}");
        }
        let list = format!(r#"{{"runs":[{RUN},{RUN}]}}"#);
        assert_eq!(agree::<RunList>(&list).expect("valid").runs.len(), 2);
        assert!(agree::<RunList>(r#"{"runs":[{}]}"#).is_none());
    }

    #[test]
    fn workspaces_actions_and_errors_read_like_the_derived_impl() {
        let ws = r#"{"workspace_id":"w","name":"Acme","credits_balance":10,"credits_reserved":2,
            "usage_today":{"profiles":1,"premium_lines":0}}"#;
        agree::<Workspace>(ws).expect("valid");
        assert!(agree::<Workspace>(&ws.replace("\"profiles\":1,", "")).is_none());
        let actions = r#"{"actions":[{"id":"a","input_key":"keywords","credits_per_record":1,
            "max_results":100},{"id":"b","input_keys":["x","y"],"input_key":"x",
            "credits_per_record":20,"max_results":1},{"id":"c","input_keys":null,
            "input_key":"x","credits_per_record":1,"max_results":5}]}"#;
        agree::<ActionList>(actions).expect("valid");
        for bad in [
            actions.replace(r#"["x","y"]"#, r#"["x",1]"#),
            actions.replace(r#""max_results":100"#, r#""max_results":4294967296"#),
        ] {
            assert!(agree::<ActionList>(&bad).is_none(), "{bad}");
        }
        let error = r#"{"error":{"code":"rate_limited","message":"slow down","request_id":"req_1","retry_after":2.5}}"#;
        assert_eq!(
            agree::<ErrorBody>(error).expect("valid").error.retry_after,
            Some(2.5)
        );
        agree::<ErrorBody>(r#"{"error":{"code":"c","message":"m"}}"#).expect("valid");
        agree::<ErrorBody>(r#"{"error":{"code":"c","message":"m","request_id":null}}"#)
            .expect("valid");
        assert!(agree::<ErrorBody>(r#"{"code":"c","message":"m"}"#).is_none());
        assert!(
            agree::<ErrorBody>(r#"{"error":{"code":"c","message":"m","retry_after":"2"}}"#)
                .is_none()
        );
    }

    #[test]
    fn errors_name_the_field() {
        let err = decode::<Workspace>(r#"{"workspace_id":"w","name":"A","credits_balance":"x"}"#)
            .unwrap_err();
        assert_eq!(err, "workspace: `credits_balance` must be a whole number");
        let err = decode::<Workspace>(r#"{"name":"A"}"#).unwrap_err();
        assert_eq!(err, "workspace: `workspace_id` is missing");
        assert!(
            decode::<Workspace>("<html>")
                .unwrap_err()
                .starts_with("not JSON")
        );
    }

    #[test]
    fn jwt_parts_read_for_display() {
        assert_eq!(
            decode::<Claims>(r#"{"sub":"ada@example.com","exp":1900000000,"iat":1}"#),
            Ok(Claims {
                sub: Some("ada@example.com".into()),
                exp: Some(1_900_000_000)
            })
        );
        assert_eq!(decode::<Claims>("{}"), Ok(Claims::default()));
        assert!(decode::<Claims>(r#"{"exp":"soon"}"#).is_err());
        assert!(decode::<JwtHeader>(r#"{"alg":"HS256","typ":"JWT"}"#).is_ok());
        assert!(decode::<JwtHeader>(r#"{"typ":"JWT"}"#).is_err());
    }
}
