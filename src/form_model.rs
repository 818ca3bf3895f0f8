//! The submit form as data: fields generated from a registry entry and the contract's input
//! shapes, validation with the shared rules, the cost estimate, and the request preview.
//!
//! Pure functions, tested natively; `pages/action_form.rs` only renders them.

use api_contract::input::{
    FieldSpec, MAX_CREDITS_LIMIT, MAX_RESULTS_LIMIT, check_text, validate_action_input,
};
use api_contract::{ActionEntry, ActionId};
use serde_json::{Map, Value};

/// What a person typed, by field name. A form has a handful of fields, so a list does: it
/// costs the bundle less than a map type of its own.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Values(Vec<(String, String)>);

impl Values {
    pub fn new() -> Values {
        Values::default()
    }

    pub fn get(&self, name: &str) -> Option<&String> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// Sets a field's value, replacing what it had.
    pub fn insert(&mut self, name: String, value: String) {
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some((_, kept)) => *kept = value,
            None => self.0.push((name, value)),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// One input of the form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormField {
    pub name: String,
    pub label: String,
    pub required: bool,
    /// Known bounds and help; `None` for a key this console does not know.
    pub spec: Option<FieldSpec>,
    pub help: String,
}

impl FormField {
    /// The rule the value breaks, as a sentence ending without a full stop, if any.
    pub fn error(&self, value: &str) -> Option<String> {
        match &self.spec {
            Some(spec) => {
                let spec = FieldSpec {
                    required: self.required,
                    min_len: if self.required {
                        spec.min_len.max(1)
                    } else {
                        0
                    },
                    ..*spec
                };
                check_text(&spec, value)
            }
            None if self.required && value.is_empty() => Some("is required".to_owned()),
            None => None,
        }
    }

    pub fn max_len(&self) -> Option<usize> {
        self.spec.map(|s| s.max_len)
    }
}

/// The form for one registry entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormModel {
    pub action: String,
    pub known: Option<ActionId>,
    pub fields: Vec<FormField>,
    pub credits_per_record: u64,
    /// `max_results` may not exceed this: the smaller of 100 and the registry's value.
    pub max_results_ceiling: u32,
    /// A rule spanning fields, shown above them.
    pub note: Option<&'static str>,
}

impl FormModel {
    pub fn from_entry(entry: &ActionEntry) -> FormModel {
        let known = ActionId::parse(&entry.id);
        let mut fields: Vec<FormField> = Vec::new();
        if let Some(action) = known {
            let shapes = action.input_shapes();
            for shape in shapes {
                for spec in shape.fields() {
                    if fields.iter().any(|f| f.name == spec.name) {
                        continue;
                    }
                    // Required only when every shape that has the field requires it.
                    let required = shapes
                        .iter()
                        .all(|s| s.fields().iter().any(|f| f.name == spec.name && f.required));
                    fields.push(FormField {
                        name: spec.name.to_owned(),
                        label: spec.label.to_owned(),
                        required,
                        spec: Some(*spec),
                        help: spec.help.to_owned(),
                    });
                }
            }
        }
        // Keys the registry names that this console does not know still get a text field.
        for key in entry.input_keys.iter().flatten() {
            if !fields.iter().any(|f| &f.name == key) {
                fields.push(FormField {
                    name: key.clone(),
                    label: key.replace('_', " "),
                    required: true,
                    spec: None,
                    help: "Sent as text; this console does not know this field's rules.".to_owned(),
                });
            }
        }
        FormModel {
            action: entry.id.clone(),
            known,
            fields,
            credits_per_record: entry.credits_per_record,
            max_results_ceiling: entry.max_results.clamp(1, MAX_RESULTS_LIMIT),
            note: (known == Some(ActionId::PremiumSearchCompanyMetrics))
                .then_some("Give a company, keywords, or both."),
        }
    }

    /// The `input` object: every non-empty value, as text.
    pub fn input(&self, values: &Values) -> Map<String, Value> {
        self.fields
            .iter()
            .filter_map(|f| {
                let v = values.get(&f.name).map(String::as_str).unwrap_or("");
                (!v.is_empty()).then(|| (f.name.clone(), Value::String(v.to_owned())))
            })
            .collect()
    }

    /// Every broken rule: per field (by name), and rules spanning fields under `""`.
    pub fn errors(&self, values: &Values) -> Vec<(String, String)> {
        let mut errors: Vec<(String, String)> = self
            .fields
            .iter()
            .filter_map(|f| {
                let v = values.get(&f.name).map(String::as_str).unwrap_or("");
                f.error(v).map(|e| (f.name.clone(), e))
            })
            .collect();
        if errors.is_empty()
            && let Some(action) = self.known
            && let Err(rule_errors) = validate_action_input(action, &self.input(values))
        {
            for e in rule_errors {
                let field = e.field.strip_prefix("input.").unwrap_or("").to_owned();
                errors.push((field, e.message));
            }
        }
        errors
    }
}

/// Parses an optional whole number typed into a limit field.
pub fn parse_limit(text: &str, min: u64, max: u64) -> Result<Option<u64>, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    match text.parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(Some(n)),
        _ => Err(format!("must be a whole number from {min} to {max}")),
    }
}

/// The most a run can cost: credits per record × records asked for, capped by `max_credits`.
pub fn estimate_cost(credits_per_record: u64, max_results: u64, max_credits: Option<u64>) -> u64 {
    let full = credits_per_record * max_results;
    max_credits.map_or(full, |cap| full.min(cap))
}

/// The submission body, as sent and as previewed: indented, so the preview needs no second
/// serializer (each serde_json formatter is its own code in the bundle).
pub fn request_body(
    input: Map<String, Value>,
    max_results: Option<u64>,
    max_credits: Option<u64>,
) -> String {
    let mut body = Map::new();
    body.insert("input".into(), Value::Object(input));
    if let Some(n) = max_results {
        body.insert("max_results".into(), n.into());
    }
    if let Some(n) = max_credits {
        body.insert("max_credits".into(), n.into());
    }
    serde_json::to_string_pretty(&Value::Object(body)).unwrap_or_default()
}

/// The same request as a curl command, with the bearer left as `$API_KEY`.
pub fn curl_command(base_url: &str, action: &str, live: bool, key: &str, body: &str) -> String {
    let quoted_body = body.replace('\'', "'\\''");
    format!(
        "curl -X POST '{base_url}/v1/actions/{action}/run/{}' \\\n  -H \"Authorization: Bearer $API_KEY\" \\\n  -H 'Content-Type: application/json' \\\n  -H 'Idempotency-Key: {key}' \\\n  -d '{quoted_body}'",
        if live { "live" } else { "async" }
    )
}

/// An `Idempotency-Key` from 16 random bytes: `console-` and a version-4 UUID (45 characters
/// of `[a-z0-9-]`, valid by the contract).
pub fn idempotency_key(random: [u8; 16]) -> String {
    let uuid = uuid::Builder::from_random_bytes(random).into_uuid();
    format!("console-{}", uuid.hyphenated())
}

/// Splits a 400 message like `input.first_name is required; max_results must ...` into
/// messages per field name (`first_name`, `max_results`) and the rest.
pub fn split_server_errors(message: &str, fields: &[&str]) -> (Vec<(String, String)>, Vec<String>) {
    let mut by_field = Vec::new();
    let mut general = Vec::new();
    for part in message.split("; ").map(str::trim).filter(|p| !p.is_empty()) {
        let path = part.split_whitespace().next().unwrap_or("");
        let name = path.strip_prefix("input.").unwrap_or(path);
        if fields.contains(&name) {
            by_field.push((name.to_owned(), part[path.len()..].trim().to_owned()));
        } else {
            general.push(part.to_owned());
        }
    }
    (by_field, general)
}

/// Limits of a submission, for the form's two number fields.
pub const MAX_CREDITS: u64 = MAX_CREDITS_LIMIT;

#[cfg(test)]
mod tests {
    use super::*;

    fn model(action: ActionId) -> FormModel {
        FormModel::from_entry(&action.sandbox_registry_entry())
    }

    fn names(m: &FormModel) -> Vec<(&str, bool)> {
        m.fields
            .iter()
            .map(|f| (f.name.as_str(), f.required))
            .collect()
    }

    #[test]
    fn fields_for_all_16_actions() {
        use ActionId::*;
        let expected: [(ActionId, &[(&str, bool)]); 16] = [
            (
                PremiumSearchPerson,
                &[
                    ("first_name", true),
                    ("last_name", true),
                    ("company", true),
                    ("network_profile_url", false),
                ],
            ),
            (PremiumSearchPeople, &[("keywords", true)]),
            (
                PremiumSearchCompanyEmployees,
                &[("company", true), ("keywords", false)],
            ),
            (
                PremiumSearchCompanyMetrics,
                &[("company", false), ("keywords", false)],
            ),
            (PremiumSearchCompanies, &[("keywords", true)]),
            (NetworkSearchCompanies, &[("keywords", true)]),
            (NetworkSearchSchools, &[("query", true)]),
            (NetworkSearchGroups, &[("query", true)]),
            (
                NetworkExtractSchoolAlumnis,
                &[("school", true), ("keywords", false)],
            ),
            (NetworkExtractGroupMembers, &[("group_id", true)]),
            (NetworkExtractPeople, &[("identifier", true)]),
            (NetworkExtractCompany, &[("identifier", true)]),
            (NetworkExtractPeoplePostActivity, &[("identifier", true)]),
            (NetworkSearchContent, &[("keywords", true)]),
            (NetworkExtractPostCommenters, &[("social_id", true)]),
            (NetworkExtractPostLikers, &[("social_id", true)]),
        ];
        for (action, fields) in expected {
            assert_eq!(names(&model(action)), fields, "{action}");
        }
        let person = model(ActionId::PremiumSearchPerson);
        assert!(
            person.fields[2]
                .help
                .contains("Exact current company name or company ID")
        );
        assert!(person.fields[3].help.contains("disambiguator"));
        assert!(
            model(ActionId::NetworkExtractPostLikers).fields[0]
                .help
                .contains("Exactly as returned")
        );
        assert_eq!(
            model(ActionId::NetworkSearchContent).max_results_ceiling,
            50
        );
    }

    #[test]
    fn an_unknown_action_or_key_gets_plain_text_fields() {
        let entry = ActionEntry {
            id: "network-extract-jobs".into(),
            input_keys: Some(vec!["job_id".into(), "region".into()]),
            input_key: "job".into(),
            credits_per_record: 3,
            max_results: 500,
        };
        let m = FormModel::from_entry(&entry);
        assert_eq!(names(&m), [("job_id", true), ("region", true)]);
        assert_eq!(m.fields[0].spec, None);
        assert_eq!(m.max_results_ceiling, 100);
        assert_eq!(m.fields[0].error(""), Some("is required".into()));
        assert_eq!(m.fields[0].error("J-1"), None);
        // A known action whose registry adds a key: the new key gets a text field too.
        let mut people = ActionId::PremiumSearchPeople.sandbox_registry_entry();
        people.input_keys = Some(vec!["keywords".into(), "language".into()]);
        assert_eq!(
            names(&FormModel::from_entry(&people)),
            [("keywords", true), ("language", true)]
        );
    }

    #[test]
    fn validation_uses_the_contract_rules() {
        let person = model(ActionId::PremiumSearchPerson);
        let mut values = Values::new();
        values.insert("first_name".into(), "Ada".into());
        values.insert("network_profile_url".into(), "http://x".into());
        let errors = person.errors(&values);
        let fields: Vec<&str> = errors.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(fields, ["last_name", "company", "network_profile_url"]);
        values.insert("last_name".into(), "L".repeat(101));
        assert!(person.errors(&values)[0].1.contains("1 to 100"));

        let metrics = model(ActionId::PremiumSearchCompanyMetrics);
        let errors = metrics.errors(&Values::new());
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].0, "", "a rule spanning fields");
        let mut one = Values::new();
        one.insert("keywords".into(), "founder".into());
        assert!(metrics.errors(&one).is_empty());
        assert_eq!(metrics.input(&one).len(), 1, "empty fields are not sent");
    }

    #[test]
    fn limits_and_cost() {
        assert_eq!(parse_limit("", 1, 100), Ok(None));
        assert_eq!(parse_limit(" 40 ", 1, 100), Ok(Some(40)));
        assert!(parse_limit("0", 1, 100).is_err());
        assert!(parse_limit("101", 1, 100).is_err());
        assert!(parse_limit("2.5", 1, 100).is_err());
        assert!(parse_limit("-3", 1, 100).is_err());
        assert_eq!(estimate_cost(1, 100, None), 100);
        assert_eq!(estimate_cost(1, 100, Some(30)), 30);
        assert_eq!(
            estimate_cost(20, 1, None),
            20,
            "an enriched profile costs 20"
        );
        assert_eq!(estimate_cost(1, 1, None), 1, "a metrics query costs 1");
    }

    #[test]
    fn body_and_curl_never_carry_the_credential() {
        let mut input = Map::new();
        input.insert("keywords".into(), "it's".into());
        let body = request_body(input, Some(5), None);
        assert_eq!(
            body,
            "{\n  \"input\": {\n    \"keywords\": \"it's\"\n  },\n  \"max_results\": 5\n}"
        );
        let curl = curl_command(
            "http://127.0.0.1:8787",
            "premium-search-people",
            false,
            "console-k",
            &body,
        );
        assert!(curl.contains("Bearer $API_KEY"));
        assert!(curl.contains("/v1/actions/premium-search-people/run/async"));
        assert!(
            curl.contains(r#""keywords": "it'\''s""#) && curl.ends_with("5\n}'"),
            "{curl}"
        );
    }

    #[test]
    fn idempotency_keys_are_valid_by_the_contract_and_distinct() {
        let a = idempotency_key([7; 16]);
        let b = idempotency_key([8; 16]);
        assert_ne!(a, b);
        assert_eq!(a.len(), 44);
        assert!(api_contract::input::validate_idempotency_key(&a).is_ok());
        assert_eq!(&a[8 + 14..8 + 15], "4", "version 4");
    }

    #[test]
    fn server_messages_are_split_by_field() {
        let (by_field, general) = split_server_errors(
            "input.first_name is required; max_results must not exceed 10; something else",
            &["first_name", "max_results"],
        );
        assert_eq!(
            by_field,
            [
                ("first_name".into(), "is required".into()),
                ("max_results".into(), "must not exceed 10".into())
            ]
        );
        assert_eq!(general, ["something else"]);
    }
}
