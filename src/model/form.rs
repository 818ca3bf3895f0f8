//! The submit form as data: fields generated from a registry entry and the contract's input
//! shapes, validation with the shared rules, the two limits, the cost estimate, the request
//! body and the request to copy as code, and idempotency keys.
//!
//! Pure functions, tested natively; `pages/action_form/` only renders them.

use api_contract::input::{
    FieldSpec, MAX_CREDITS_LIMIT, MAX_RESULTS_LIMIT, capped_max_results, check_text,
    validate_action_input,
};
use api_contract::{ActionEntry, ActionId, Endpoint};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

use super::snippets::RequestSpec;
use super::urls::encode;

/// What a person typed, by field name: the input fields and the two limits.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Values(BTreeMap<String, String>);

impl Values {
    pub fn new() -> Values {
        Values::default()
    }

    pub fn get(&self, name: &str) -> Option<&String> {
        self.0.get(name)
    }

    /// Sets a field's value, replacing what it had.
    pub fn insert(&mut self, name: String, value: String) {
        self.0.insert(name, value);
    }

    /// Empties a field: it was not typed.
    pub fn remove(&mut self, name: &str) {
        self.0.remove(name);
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl FromIterator<(String, String)> for Values {
    fn from_iter<I: IntoIterator<Item = (String, String)>>(pairs: I) -> Values {
        Values(pairs.into_iter().collect())
    }
}

/// A broken rule of the form: the field it belongs to, by the form's name for it (an input
/// field or a limit), or none for a rule that spans fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormError {
    pub field: Option<String>,
    pub message: String,
}

impl FormError {
    pub fn of_field(field: impl Into<String>, message: impl Into<String>) -> FormError {
        FormError {
            field: Some(field.into()),
            message: message.into(),
        }
    }

    pub fn spanning(message: impl Into<String>) -> FormError {
        FormError {
            field: None,
            message: message.into(),
        }
    }

    /// Whether it belongs to the field of this name.
    pub fn is_for(&self, name: &str) -> bool {
        self.field.as_deref() == Some(name)
    }
}

/// `first_name is required`, or the message alone for a rule spanning fields.
impl std::fmt::Display for FormError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.field {
            Some(field) => write!(f, "{field} {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// A 400's message split by the form's fields: what names one of them, and the rest.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServerErrors {
    pub by_field: Vec<FormError>,
    pub general: Vec<String>,
}

impl ServerErrors {
    /// What the server said about the field of this name, if anything.
    pub fn message_for(&self, name: &str) -> Option<&str> {
        self.by_field
            .iter()
            .find(|e| e.is_for(name))
            .map(|e| e.message.as_str())
    }

    /// Whether the error panel shows too: something was said beyond the fields, or nothing
    /// could be put beside a field.
    pub fn needs_panel(&self) -> bool {
        !self.general.is_empty() || self.by_field.is_empty()
    }

    /// The first field the server named, to focus.
    pub fn first_field(&self) -> Option<&str> {
        self.by_field.first().and_then(|e| e.field.as_deref())
    }
}

/// The form's name for `max_results`, beside the input fields.
pub const MAX_RESULTS: &str = "max_results";
/// The form's name for `max_credits`.
pub const MAX_CREDITS: &str = "max_credits";

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

    /// The help under the input, with its length bound when there is one.
    pub fn help_text(&self) -> String {
        match self.max_len() {
            Some(max) => format!("{} Up to {max} characters.", self.help),
            None => self.help.clone(),
        }
    }
}

/// The help under `max_results` for an action that returns at most `ceiling` results a run.
pub fn max_results_help(ceiling: u32) -> String {
    if ceiling < MAX_RESULTS_LIMIT {
        format!(
            "1 to {MAX_RESULTS_LIMIT}; this action returns at most {ceiling} per run, so more is capped at {ceiling}. Optional; defaults to {ceiling}."
        )
    } else {
        format!("1 to {MAX_RESULTS_LIMIT}. Optional; defaults to {MAX_RESULTS_LIMIT}.")
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

    /// Every field name the form shows: the inputs, then the two limits.
    pub fn field_names(&self) -> Vec<&str> {
        self.fields
            .iter()
            .map(|f| f.name.as_str())
            .chain([MAX_RESULTS, MAX_CREDITS])
            .collect()
    }

    /// `max_results` as typed: `None` when empty, an error outside the contract's 1 to 100. More
    /// than the action's ceiling is accepted and capped at it, as the API does.
    pub fn max_results(&self, values: &Values) -> Result<Option<u64>, String> {
        parse_limit(values, MAX_RESULTS, u64::from(MAX_RESULTS_LIMIT))
    }

    /// `max_credits` as typed: `None` when empty, an error outside 1 to 300,000.
    pub fn max_credits(&self, values: &Values) -> Result<Option<u64>, String> {
        parse_limit(values, MAX_CREDITS, MAX_CREDITS_LIMIT)
    }

    /// Every broken rule: per field (by name, limits included), and rules spanning fields.
    pub fn errors(&self, values: &Values) -> Vec<FormError> {
        let mut errors: Vec<FormError> = self
            .fields
            .iter()
            .filter_map(|f| {
                let v = values.get(&f.name).map(String::as_str).unwrap_or("");
                f.error(v).map(|e| FormError::of_field(&f.name, e))
            })
            .collect();
        if errors.is_empty()
            && let Some(action) = self.known
            && let Err(rule_errors) = validate_action_input(action, &self.input(values))
        {
            errors.extend(rule_errors.into_iter().map(|e| FormError {
                field: e.field.strip_prefix("input.").map(str::to_owned),
                message: e.message,
            }));
        }
        if let Err(message) = self.max_results(values) {
            errors.push(FormError::of_field(MAX_RESULTS, message));
        }
        if let Err(message) = self.max_credits(values) {
            errors.push(FormError::of_field(MAX_CREDITS, message));
        }
        errors
    }

    /// The most this submission can cost: credits per record × the records asked for (the
    /// ceiling when empty), capped by `max_credits`.
    pub fn estimate(&self, values: &Values) -> u64 {
        let asked = self
            .max_results(values)
            .ok()
            .flatten()
            .and_then(|n| u32::try_from(n).ok());
        let records = u64::from(capped_max_results(asked, self.max_results_ceiling));
        let full = self.credits_per_record * records;
        self.max_credits(values)
            .ok()
            .flatten()
            .map_or(full, |cap| full.min(cap))
    }

    /// `values` as the person would have typed them: a `max_credits` equal to the estimate of the
    /// other values is the cap every body carries (see [`FormModel::body`]), not one the person
    /// chose, so it is left empty, where it follows the estimate if the input changes ("Run
    /// again with changes" opens the form from a sent body).
    pub fn without_automatic_cap(&self, mut values: Values) -> Values {
        let typed = self.max_credits(&values).ok().flatten();
        let mut uncapped = values.clone();
        uncapped.remove(MAX_CREDITS);
        if typed.is_some_and(|cap| cap == self.estimate(&uncapped).clamp(1, MAX_CREDITS_LIMIT)) {
            values.remove(MAX_CREDITS);
        }
        values
    }

    /// The submission body, as sent and as previewed (indented, so a person can read it).
    /// `max_results` when it is typed and valid; `max_credits` always, equal to the estimate
    /// shown (what was typed, when that is lower), so the API can never charge more than the
    /// form said.
    pub fn body(&self, values: &Values) -> String {
        let mut body = Map::new();
        body.insert("input".into(), Value::Object(self.input(values)));
        if let Ok(Some(n)) = self.max_results(values) {
            body.insert(MAX_RESULTS.into(), n.into());
        }
        let max_credits = self.estimate(values).clamp(1, MAX_CREDITS_LIMIT);
        body.insert(MAX_CREDITS.into(), max_credits.into());
        serde_json::to_string_pretty(&Value::Object(body)).unwrap_or_default()
    }
}

/// A submission the console made, kept in this browser by run id so that its run page can
/// offer "Run again with changes" (the API does not return a run's input).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SavedSubmission {
    /// Only sign-ins to this workspace are offered it.
    pub workspace: String,
    pub action: String,
    pub live: bool,
    /// The request body as sent.
    pub body: String,
}

impl SavedSubmission {
    /// The form's values for the body: the input's fields as text and the two limits. `None`
    /// for a body that is not a submission's.
    pub fn values(&self) -> Option<Values> {
        let body: Map<String, Value> = serde_json::from_str(&self.body).ok()?;
        let text = |v: &Value| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let mut values: Values = body
            .get("input")?
            .as_object()?
            .iter()
            .map(|(name, v)| (name.clone(), text(v)))
            .collect();
        for limit in [MAX_RESULTS, MAX_CREDITS] {
            if let Some(v) = body.get(limit) {
                values.insert(limit.to_owned(), text(v));
            }
        }
        Some(values)
    }
}

/// Parses an optional whole number typed into a limit field.
fn parse_limit(values: &Values, name: &str, max: u64) -> Result<Option<u64>, String> {
    let text = values.get(name).map_or("", |v| v.trim());
    if text.is_empty() {
        return Ok(None);
    }
    match text.parse::<u64>() {
        Ok(n) if (1..=max).contains(&n) => Ok(Some(n)),
        _ => Err(format!("must be a whole number from 1 to {max}")),
    }
}

/// The submission as a request to copy as code (`model::snippets`); the bearer is left out.
pub fn submission_request(
    base_url: &str,
    action: &str,
    live: bool,
    idempotency_key: &str,
    body: &str,
) -> RequestSpec {
    let endpoint = Endpoint::submit(live);
    RequestSpec {
        method: endpoint.method().as_str().to_owned(),
        url: format!("{base_url}{}", endpoint.path_with(&encode(action))),
        idempotency_key: Some(idempotency_key.to_owned()),
        body: Some(body.to_owned()),
    }
}

/// A new `Idempotency-Key`: `console-` and a version-4 UUID from the platform's secure random
/// source (44 characters of `[a-z0-9-]`, valid by the contract).
pub fn idempotency_key() -> String {
    format!("console-{}", uuid::Uuid::new_v4().hyphenated())
}

/// Splits a 400 message like `input.first_name is required; max_results must ...` into
/// messages per field name (`first_name`, `max_results`) and the rest.
pub fn split_server_errors(message: &str, fields: &[&str]) -> ServerErrors {
    let mut errors = ServerErrors::default();
    for part in message.split("; ").map(str::trim).filter(|p| !p.is_empty()) {
        let path = part.split_whitespace().next().unwrap_or("");
        let name = path.strip_prefix("input.").unwrap_or(path);
        if fields.contains(&name) {
            errors
                .by_field
                .push(FormError::of_field(name, part[path.len()..].trim()));
        } else {
            errors.general.push(part.to_owned());
        }
    }
    errors
}

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
        let mut values = typed(&[("first_name", "Ada"), ("network_profile_url", "http://x")]);
        let errors = person.errors(&values);
        let fields: Vec<&str> = errors.iter().filter_map(|e| e.field.as_deref()).collect();
        assert_eq!(fields, ["last_name", "company", "network_profile_url"]);
        values.insert("last_name".into(), "L".repeat(101));
        assert!(person.errors(&values)[0].message.contains("1 to 100"));

        let metrics = model(ActionId::PremiumSearchCompanyMetrics);
        let errors = metrics.errors(&Values::new());
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].field, None, "a rule spanning fields");
        let mut one = Values::new();
        one.insert("keywords".into(), "founder".into());
        assert!(metrics.errors(&one).is_empty());
        assert_eq!(metrics.input(&one).len(), 1, "empty fields are not sent");
    }

    fn typed(pairs: &[(&str, &str)]) -> Values {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn limits_are_checked_against_the_action_and_the_contract() {
        let people = model(ActionId::PremiumSearchPeople);
        let limit = |name: &str, text: &str| {
            let values = typed(&[(name, text)]);
            if name == MAX_RESULTS {
                people.max_results(&values)
            } else {
                people.max_credits(&values)
            }
        };
        assert_eq!(limit(MAX_RESULTS, ""), Ok(None));
        assert_eq!(limit(MAX_RESULTS, " 40 "), Ok(Some(40)));
        for bad in ["0", "101", "2.5", "-3", "ten"] {
            assert!(limit(MAX_RESULTS, bad).is_err(), "{bad}");
        }
        assert_eq!(limit(MAX_CREDITS, "300000"), Ok(Some(300_000)));
        assert!(limit(MAX_CREDITS, "300001").is_err());
        // Above the action's own ceiling is the contract's to accept: the run is capped.
        let enrich = model(ActionId::NetworkExtractPeople);
        assert_eq!(
            enrich.max_results(&typed(&[(MAX_RESULTS, "2")])),
            Ok(Some(2))
        );
        assert_eq!(
            enrich.estimate(&typed(&[(MAX_RESULTS, "50")])),
            enrich.credits_per_record * u64::from(enrich.max_results_ceiling),
            "estimated at the ceiling the run is capped at"
        );
        let errors = people.errors(&typed(&[("keywords", "x"), (MAX_RESULTS, "0")]));
        assert_eq!(errors.len(), 1);
        assert!(errors[0].is_for(MAX_RESULTS));
        assert!(errors[0].message.contains("from 1 to 100"));
    }

    #[test]
    fn the_estimate_follows_the_limits() {
        let people = model(ActionId::PremiumSearchPeople);
        assert_eq!(
            people.estimate(&Values::new()),
            100,
            "the ceiling when empty"
        );
        assert_eq!(people.estimate(&typed(&[(MAX_CREDITS, "30")])), 30);
        assert_eq!(people.estimate(&typed(&[(MAX_RESULTS, "7")])), 7);
        assert_eq!(
            people.estimate(&typed(&[(MAX_RESULTS, "oops")])),
            100,
            "an invalid limit does not lower the estimate"
        );
        let enrich = model(ActionId::NetworkExtractPeople);
        assert_eq!(
            enrich.estimate(&Values::new()),
            20,
            "an enriched profile costs 20"
        );
        let metrics = model(ActionId::PremiumSearchCompanyMetrics);
        assert_eq!(
            metrics.estimate(&Values::new()),
            1,
            "a metrics query costs 1"
        );
    }

    #[test]
    fn a_body_sent_again_leaves_the_automatic_cap_out_of_the_form() {
        let people = model(ActionId::PremiumSearchPeople);
        let sent = typed(&[("keywords", "a"), (MAX_RESULTS, "3")]);
        let saved = SavedSubmission {
            workspace: "ws".into(),
            action: people.action.clone(),
            live: false,
            body: people.body(&sent),
        };
        let back = people.without_automatic_cap(saved.values().unwrap());
        assert_eq!(
            back.get(MAX_CREDITS),
            None,
            "3 was the estimate, not a choice"
        );
        // Raising max results afterwards raises the cap with it.
        let mut raised = back.clone();
        raised.insert(MAX_RESULTS.into(), "10".into());
        assert_eq!(people.estimate(&raised), 10);
        // A cap the person chose stays.
        let chosen = typed(&[("keywords", "a"), (MAX_RESULTS, "30"), (MAX_CREDITS, "12")]);
        assert_eq!(
            people
                .without_automatic_cap(chosen.clone())
                .get(MAX_CREDITS),
            Some(&"12".to_owned())
        );
    }

    #[test]
    fn every_body_caps_the_charge_at_the_estimate_shown() {
        let max_credits = |form: &FormModel, values: &Values| {
            let body: Value = serde_json::from_str(&form.body(values)).unwrap();
            body[MAX_CREDITS].as_u64()
        };
        // One enriched profile at 20 credits.
        let enrich = model(ActionId::NetworkExtractPeople);
        let one = typed(&[("identifier", "a")]);
        assert_eq!(max_credits(&enrich, &one), Some(20));
        // Up to 100 results at 1 credit, or as many as asked for.
        let people = model(ActionId::PremiumSearchPeople);
        let empty = typed(&[("keywords", "a")]);
        assert_eq!(max_credits(&people, &empty), Some(100));
        let three = typed(&[("keywords", "a"), (MAX_RESULTS, "3")]);
        assert_eq!(max_credits(&people, &three), Some(3));
        // The person may lower it, not raise it past the estimate.
        let lowered = typed(&[("keywords", "a"), (MAX_RESULTS, "30"), (MAX_CREDITS, "12")]);
        assert_eq!(max_credits(&people, &lowered), Some(12));
        let raised = typed(&[("keywords", "a"), (MAX_RESULTS, "3"), (MAX_CREDITS, "900")]);
        assert_eq!(max_credits(&people, &raised), Some(3));
        for values in [&empty, &three, &lowered, &raised] {
            assert_eq!(
                max_credits(&people, values),
                Some(people.estimate(values)),
                "the figure on the screen"
            );
        }
    }

    #[test]
    fn body_and_request_for_code() {
        let people = model(ActionId::PremiumSearchPeople);
        let body = people.body(&typed(&[
            ("keywords", "it's"),
            (MAX_RESULTS, "5"),
            (MAX_CREDITS, "not a number"),
        ]));
        // An invalid max_credits is left as the estimate: 5 records at 1 credit.
        assert_eq!(
            body,
            "{\n  \"input\": {\n    \"keywords\": \"it's\"\n  },\n  \"max_credits\": 5,\n  \"max_results\": 5\n}"
        );
        let request = submission_request(
            "http://127.0.0.1:8787",
            "premium-search-people",
            false,
            "console-k",
            &body,
        );
        assert_eq!(
            request.url,
            "http://127.0.0.1:8787/v1/actions/premium-search-people/run/async"
        );
        assert_eq!(request.body.as_deref(), Some(body.as_str()));
        assert_eq!(request.idempotency_key.as_deref(), Some("console-k"));
    }

    #[test]
    fn idempotency_keys_are_valid_by_the_contract_and_distinct() {
        let a = idempotency_key();
        let b = idempotency_key();
        assert_ne!(a, b);
        assert_eq!(a.len(), 44);
        assert!(api_contract::input::validate_idempotency_key(&a).is_ok());
        assert_eq!(&a[8 + 14..8 + 15], "4", "version 4");
    }

    #[test]
    fn server_messages_are_split_by_field() {
        let split = split_server_errors(
            "input.first_name is required; max_results must not exceed 10; something else",
            &["first_name", "max_results"],
        );
        assert_eq!(
            split.by_field,
            [
                FormError::of_field("first_name", "is required"),
                FormError::of_field("max_results", "must not exceed 10")
            ]
        );
        assert_eq!(split.general, ["something else"]);
        assert_eq!(split.message_for("max_results"), Some("must not exceed 10"));
        assert_eq!(split.message_for("last_name"), None);
        assert_eq!(split.first_field(), Some("first_name"));
        assert!(split.needs_panel(), "something else has no field");
    }

    #[test]
    fn the_panel_shows_only_what_no_field_can_show() {
        let fields = ["first_name"];
        let all_beside_fields = split_server_errors("input.first_name is required", &fields);
        assert!(!all_beside_fields.needs_panel());
        let none_beside_fields = split_server_errors("input is not an object", &fields);
        assert!(none_beside_fields.needs_panel());
        assert_eq!(none_beside_fields.first_field(), None);
        assert!(
            split_server_errors("", &fields).needs_panel(),
            "an empty message"
        );
    }

    #[test]
    fn help_texts_state_the_bounds() {
        let m = model(ActionId::PremiumSearchPerson);
        let first_name = m.fields.iter().find(|f| f.name == "first_name").unwrap();
        let max = first_name.max_len().expect("a known field has a bound");
        assert_eq!(
            first_name.help_text(),
            format!("{} Up to {max} characters.", first_name.help)
        );
        let unknown = FormField {
            spec: None,
            ..first_name.clone()
        };
        assert_eq!(unknown.help_text(), first_name.help);
        assert!(
            max_results_help(10).contains("so more is capped at 10. Optional; defaults to 10.")
        );
        assert_eq!(
            max_results_help(MAX_RESULTS_LIMIT),
            format!("1 to {MAX_RESULTS_LIMIT}. Optional; defaults to {MAX_RESULTS_LIMIT}.")
        );
    }

    #[test]
    fn a_kept_submission_gives_back_the_values_it_was_made_from() {
        let m = model(ActionId::PremiumSearchPerson);
        let values: Values = [
            ("first_name", "Ada"),
            ("last_name", "Lovelace"),
            ("company", "Analytical \"Engines\""),
            ("max_results", "3"),
            // Under the estimate (3 credits): a lower cap is kept as typed.
            ("max_credits", "2"),
        ]
        .into_iter()
        .map(|(n, v)| (n.to_owned(), v.to_owned()))
        .collect();
        let saved = SavedSubmission {
            workspace: "ws".into(),
            action: m.action.clone(),
            live: false,
            body: m.body(&values),
        };
        let stored = serde_json::to_string(&saved).unwrap();
        assert_eq!(
            serde_json::from_str::<SavedSubmission>(&stored).unwrap(),
            saved
        );
        let back = saved.values().unwrap();
        for name in m.field_names() {
            assert_eq!(back.get(name), values.get(name), "{name}");
        }
        assert_eq!(m.body(&back), saved.body);
        let broken = SavedSubmission {
            body: "[1]".into(),
            ..saved
        };
        assert_eq!(broken.values(), None);
    }
}
