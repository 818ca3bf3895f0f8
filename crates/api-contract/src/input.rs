//! Input shapes, their bounds, and validation of submissions, idempotency keys and key names (sections 2.7, 4.2, 8).
//!
//! The sandbox answers 400 with these messages and the console shows the same ones next to
//! its fields, so a person sees exactly the rule the server would apply.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::actions::ActionId;

/// Host of the professional network, in the contract's neutral naming.
pub const NETWORK_HOST: &str = "network.com";

/// Bounds of a submission (section 8).
pub const MAX_RESULTS_LIMIT: u32 = 100;
pub const MAX_CREDITS_LIMIT: u64 = 300_000;
pub const IDEMPOTENCY_KEY_MIN: usize = 8;
pub const IDEMPOTENCY_KEY_MAX: usize = 128;
pub const KEY_NAME_MAX: usize = 100;

/// One of the eight input shapes of section 2.7.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InputShape {
    StandardPerson,
    Keywords,
    Identifier,
    SocialId,
    CompanyEmployees,
    SchoolAlumni,
    GroupMembers,
    Query,
}

/// What a field holds: how it is checked (a profile URL has its form; every other kind is text
/// within the field's bounds), and what of its value the API reads, so which two values ask the
/// same question (the console's same-input rule, docs/same-input.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldKind {
    /// Words (a name, search keywords, a query): runs of whitespace read as one space.
    Words,
    /// A name or an ID written as digits (a company, a school): words, and an ID's leading
    /// zeros name no other one.
    NameOrId,
    /// A public handle, a profile URL or an identifier an enrichment returned: a URL of the
    /// network names its handle (scheme, `www.`, the host's case, a trailing slash, a query and
    /// a fragment do not matter).
    ProfileReference,
    /// A network profile URL (see [`validate_network_profile_url`]), read as
    /// [`FieldKind::ProfileReference`] is.
    ProfileUrl,
    /// An ID passed exactly as another answer returned it (a social id, a group id).
    ExactId,
}

impl FieldKind {
    /// Checked only for its length: every kind but a profile URL, which has a form.
    pub fn is_free_text(self) -> bool {
        self != FieldKind::ProfileUrl
    }
}

/// One field of an input shape with its bounds (in characters) and help for people.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldSpec {
    pub name: &'static str,
    pub label: &'static str,
    pub kind: FieldKind,
    pub required: bool,
    pub min_len: usize,
    pub max_len: usize,
    pub help: &'static str,
}

/// A field checked only for its length (`kind` is not [`FieldKind::ProfileUrl`]).
const fn text(
    name: &'static str,
    label: &'static str,
    kind: FieldKind,
    required: bool,
    max_len: usize,
    help: &'static str,
) -> FieldSpec {
    FieldSpec {
        name,
        label,
        kind,
        required,
        min_len: if required { 1 } else { 0 },
        max_len,
        help,
    }
}

const STANDARD_PERSON: &[FieldSpec] = &[
    text(
        "first_name",
        "First name",
        FieldKind::Words,
        true,
        100,
        "The person's first name.",
    ),
    text(
        "last_name",
        "Last name",
        FieldKind::Words,
        true,
        100,
        "The person's last name.",
    ),
    text(
        "company",
        "Company",
        FieldKind::NameOrId,
        true,
        200,
        "Exact current company name or company ID.",
    ),
    FieldSpec {
        name: "network_profile_url",
        label: "Profile URL",
        kind: FieldKind::ProfileUrl,
        required: false,
        min_len: 0,
        max_len: 500,
        help: "Only a disambiguator matched against search results; it is never visited. \
               Form: https://network.com/in/<handle>.",
    },
];
const KEYWORDS: &[FieldSpec] = &[text(
    "keywords",
    "Keywords",
    FieldKind::Words,
    true,
    500,
    "Search keywords.",
)];
const IDENTIFIER: &[FieldSpec] = &[text(
    "identifier",
    "Identifier",
    FieldKind::ProfileReference,
    true,
    500,
    "A public handle or profile URL, or the network_profile_identifier an enrichment returned.",
)];
const SOCIAL_ID: &[FieldSpec] = &[text(
    "social_id",
    "Social ID",
    FieldKind::ExactId,
    true,
    500,
    "Exactly as returned by the profile-posts or post-search actions (share, ugcPost or \
     activity). Never derive it from an activity ID.",
)];
const COMPANY_EMPLOYEES: &[FieldSpec] = &[
    text(
        "company",
        "Company",
        FieldKind::NameOrId,
        true,
        200,
        "Company name or premium-search company ID.",
    ),
    text(
        "keywords",
        "Keywords",
        FieldKind::Words,
        false,
        200,
        "Narrows the search to matching people.",
    ),
];
const SCHOOL_ALUMNI: &[FieldSpec] = &[
    text(
        "school",
        "School",
        FieldKind::NameOrId,
        true,
        200,
        "School name or school ID.",
    ),
    text(
        "keywords",
        "Keywords",
        FieldKind::Words,
        false,
        200,
        "Narrows the search to matching alumni.",
    ),
];
const GROUP_MEMBERS: &[FieldSpec] = &[text(
    "group_id",
    "Group ID",
    FieldKind::ExactId,
    true,
    100,
    "The network group ID.",
)];
const QUERY: &[FieldSpec] = &[text(
    "query",
    "Query",
    FieldKind::Words,
    true,
    200,
    "Search query for entity parameter resolution.",
)];

impl InputShape {
    pub const ALL: [InputShape; 8] = [
        InputShape::StandardPerson,
        InputShape::Keywords,
        InputShape::Identifier,
        InputShape::SocialId,
        InputShape::CompanyEmployees,
        InputShape::SchoolAlumni,
        InputShape::GroupMembers,
        InputShape::Query,
    ];

    /// The name the registry uses for the shape in `input_key`.
    pub fn name(self) -> &'static str {
        match self {
            InputShape::StandardPerson => "standard_person",
            InputShape::Keywords => "keywords",
            InputShape::Identifier => "identifier",
            InputShape::SocialId => "social_id",
            InputShape::CompanyEmployees => "company_employees",
            InputShape::SchoolAlumni => "school_alumni",
            InputShape::GroupMembers => "group_members",
            InputShape::Query => "query",
        }
    }

    pub fn fields(self) -> &'static [FieldSpec] {
        match self {
            InputShape::StandardPerson => STANDARD_PERSON,
            InputShape::Keywords => KEYWORDS,
            InputShape::Identifier => IDENTIFIER,
            InputShape::SocialId => SOCIAL_ID,
            InputShape::CompanyEmployees => COMPANY_EMPLOYEES,
            InputShape::SchoolAlumni => SCHOOL_ALUMNI,
            InputShape::GroupMembers => GROUP_MEMBERS,
            InputShape::Query => QUERY,
        }
    }

    /// Only the standard person shape forbids fields it does not list (section 2.7).
    pub fn rejects_unknown_fields(self) -> bool {
        self == InputShape::StandardPerson
    }

    /// Checks an `input` object against this shape, naming every broken rule.
    pub fn validate(self, input: &Map<String, Value>) -> Result<RunInput, Vec<FieldError>> {
        let mut errors = Vec::new();
        for spec in self.fields() {
            let value = input.get(spec.name);
            if let Some(message) = check_field(spec, value) {
                errors.push(FieldError::input(spec.name, message));
            }
        }
        if self.rejects_unknown_fields() {
            for key in input.keys() {
                if !self.fields().iter().any(|f| f.name == key) {
                    errors.push(FieldError::input(
                        key,
                        "is not allowed: the standard person input takes only \
                         first_name, last_name, company and network_profile_url",
                    ));
                }
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let s = |name: &str| input.get(name).and_then(Value::as_str).map(str::to_owned);
        let req = |name: &str| s(name).unwrap_or_default();
        Ok(match self {
            InputShape::StandardPerson => RunInput::StandardPerson {
                first_name: req("first_name"),
                last_name: req("last_name"),
                company: req("company"),
                network_profile_url: s("network_profile_url"),
            },
            InputShape::Keywords => RunInput::Keywords {
                keywords: req("keywords"),
            },
            InputShape::Identifier => RunInput::Identifier {
                identifier: req("identifier"),
            },
            InputShape::SocialId => RunInput::SocialId {
                social_id: req("social_id"),
            },
            InputShape::CompanyEmployees => RunInput::CompanyEmployees {
                company: req("company"),
                keywords: s("keywords"),
            },
            InputShape::SchoolAlumni => RunInput::SchoolAlumni {
                school: req("school"),
                keywords: s("keywords"),
            },
            InputShape::GroupMembers => RunInput::GroupMembers {
                group_id: req("group_id"),
            },
            InputShape::Query => RunInput::Query {
                query: req("query"),
            },
        })
    }
}

/// The rule a single field value breaks, if any. `None` means the value is acceptable.
pub fn check_field(spec: &FieldSpec, value: Option<&Value>) -> Option<String> {
    // An explicit null is not an omitted field: the contract types every field as a string.
    let text = match value {
        None if spec.required => return Some("is required".to_owned()),
        None => return None,
        Some(Value::String(s)) => s,
        Some(_) => return Some("must be a string".to_owned()),
    };
    // Nor is a present empty string: "empty means absent" is for a person's form (check_text),
    // while `""` sent as a profile URL is simply not one.
    if text.is_empty() && spec.kind == FieldKind::ProfileUrl {
        return validate_network_profile_url(text).err();
    }
    check_text(spec, text)
}

/// Like [`check_field`] for text a person typed: an empty optional field counts as absent.
pub fn check_text(spec: &FieldSpec, text: &str) -> Option<String> {
    let len = text.chars().count();
    if len == 0 {
        return spec.required.then(|| "is required".to_owned());
    }
    if len < spec.min_len || len > spec.max_len {
        return Some(if spec.min_len > 0 {
            format!(
                "must be {} to {} characters (it has {len})",
                spec.min_len, spec.max_len
            )
        } else {
            format!("must be at most {} characters (it has {len})", spec.max_len)
        });
    }
    if spec.kind == FieldKind::ProfileUrl {
        return validate_network_profile_url(text).err();
    }
    None
}

/// A validated run input: exactly one of the eight shapes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RunInput {
    StandardPerson {
        first_name: String,
        last_name: String,
        company: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        network_profile_url: Option<String>,
    },
    Keywords {
        keywords: String,
    },
    Identifier {
        identifier: String,
    },
    SocialId {
        social_id: String,
    },
    CompanyEmployees {
        company: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        keywords: Option<String>,
    },
    SchoolAlumni {
        school: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        keywords: Option<String>,
    },
    GroupMembers {
        group_id: String,
    },
    Query {
        query: String,
    },
}

/// A broken rule, named by the field's path in the request body (e.g. `input.first_name`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

impl FieldError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        FieldError {
            field: field.into(),
            message: message.into(),
        }
    }

    fn input(name: &str, message: impl Into<String>) -> Self {
        FieldError::new(format!("input.{name}"), message)
    }
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.field, self.message)
    }
}

/// Joins several field errors into one message, as a 400 body carries them.
pub fn describe_errors(errors: &[FieldError]) -> String {
    errors
        .iter()
        .map(FieldError::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// A submission body that passed every rule (section 4.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submission {
    pub action: ActionId,
    pub input: RunInput,
    /// As sent (1 to 100, possibly above the action's ceiling); `None` means the ceiling.
    /// The run is sized by [`Submission::effective_max_results`], never by this alone.
    pub max_results: Option<u32>,
    pub max_credits: Option<u64>,
}

/// A JSON number read as the contract's "integer", as JSON Schema reads `integer` (and so the
/// sandbox's OpenAPI 3.1 document): any number without a fractional part, `5` and `5.0` alike.
/// `None` for a fraction, a negative number, one past `u64` or anything else; `-0.0` is 0. A
/// number written with a fraction is read as the f64 it parses to, so a difference past f64's
/// precision (`100.0000000000000001`) is lost: far beyond the contract's bounds, which are small.
fn whole_number(value: &Value) -> Option<u64> {
    value.as_u64().or_else(|| {
        let number = value.as_f64()?;
        // 2^64 as f64: every whole number below it converts to u64 exactly.
        let fits = (0.0..18_446_744_073_709_551_616.0).contains(&number);
        (fits && number.fract() == 0.0).then_some(number as u64)
    })
}

/// The submission's optional whole-number `field`, from 1 to `max`; anything else is an error
/// naming the range, and `None`.
fn optional_count(
    obj: &Map<String, Value>,
    field: &str,
    max: u64,
    errors: &mut Vec<FieldError>,
) -> Option<u64> {
    let value = obj.get(field)?;
    match whole_number(value) {
        Some(n) if (1..=max).contains(&n) => Some(n),
        _ => {
            errors.push(FieldError::new(
                field,
                format!("must be an integer from 1 to {max}"),
            ));
            None
        }
    }
}

impl Submission {
    /// Validates a submission body for `action`. `max_results` is held to the contract's 1 to
    /// 100 for every action: a value above the action's registry ceiling is accepted, and the
    /// run is capped at the ceiling (see [`Submission::effective_max_results`]).
    pub fn validate(action: ActionId, body: &Value) -> Result<Submission, Vec<FieldError>> {
        let Some(obj) = body.as_object() else {
            return Err(vec![FieldError::new(
                "body",
                "must be a JSON object with an `input` object",
            )]);
        };
        let mut errors = Vec::new();
        for key in obj.keys() {
            if !matches!(key.as_str(), "input" | "max_results" | "max_credits") {
                errors.push(FieldError::new(
                    key.clone(),
                    "is not a submission field (expected input, max_results, max_credits)",
                ));
            }
        }
        let max_results = optional_count(obj, "max_results", MAX_RESULTS_LIMIT.into(), &mut errors)
            .map(|n| n as u32);
        let max_credits = optional_count(obj, "max_credits", MAX_CREDITS_LIMIT, &mut errors);
        let input = match obj.get("input") {
            Some(Value::Object(input)) => match validate_action_input(action, input) {
                Ok(input) => Some(input),
                Err(mut e) => {
                    errors.append(&mut e);
                    None
                }
            },
            None => {
                errors.push(FieldError::new("input", "is required"));
                None
            }
            Some(_) => {
                errors.push(FieldError::new("input", "must be an object"));
                None
            }
        };
        match input {
            Some(input) if errors.is_empty() => Ok(Submission {
                action,
                input,
                max_results,
                max_credits,
            }),
            _ => Err(errors),
        }
    }

    /// How many records the run may return, given the action's registry ceiling: see
    /// [`capped_max_results`].
    pub fn effective_max_results(&self, registry_max_results: u32) -> u32 {
        capped_max_results(self.max_results, registry_max_results)
    }
}

/// The records a run may return: the requested `max_results` (the ceiling when absent), but
/// never more than the action's registry ceiling (itself at most the contract's 100). The
/// ceiling is "the per-action ceiling of results per run", so a larger request is capped, not
/// refused; results, reservation and cost estimate all follow this number.
pub fn capped_max_results(requested: Option<u32>, registry_max_results: u32) -> u32 {
    let ceiling = registry_max_results.min(MAX_RESULTS_LIMIT);
    requested.map_or(ceiling, |n| n.min(ceiling))
}

/// Validates `input` for an action. For the metrics action, which takes "company or keywords",
/// the presence of `company` selects the company-employees shape, else the keywords shape.
pub fn validate_action_input(
    action: ActionId,
    input: &Map<String, Value>,
) -> Result<RunInput, Vec<FieldError>> {
    match action.input_shapes() {
        [one] => one.validate(input),
        shapes => {
            let chosen = shapes
                .iter()
                .find(|shape| {
                    shape
                        .fields()
                        .iter()
                        .filter(|f| f.required)
                        .all(|f| input.contains_key(f.name))
                })
                .copied();
            match chosen {
                Some(shape) => shape.validate(input),
                None => Err(vec![FieldError::new(
                    "input",
                    "needs either `company` (with optional `keywords`) or `keywords`",
                )]),
            }
        }
    }
}

/// Checks an `Idempotency-Key` header value: 8 to 128 characters of `[a-zA-Z0-9_:-]`.
pub fn validate_idempotency_key(key: &str) -> Result<(), String> {
    let len = key.chars().count();
    if !(IDEMPOTENCY_KEY_MIN..=IDEMPOTENCY_KEY_MAX).contains(&len) {
        return Err(format!(
            "Idempotency-Key must be {IDEMPOTENCY_KEY_MIN} to {IDEMPOTENCY_KEY_MAX} characters (it has {len})"
        ));
    }
    if let Some(bad) = key
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | ':' | '-')))
    {
        return Err(format!(
            "Idempotency-Key may contain only letters, digits, '_', ':' and '-' (found {bad:?})"
        ));
    }
    Ok(())
}

/// Checks the `name` of a new API key: 1 to 100 characters.
pub fn validate_key_name(name: &str) -> Result<(), FieldError> {
    let len = name.chars().count();
    if (1..=KEY_NAME_MAX).contains(&len) {
        Ok(())
    } else {
        Err(FieldError::new(
            "name",
            format!("must be 1 to {KEY_NAME_MAX} characters (it has {len})"),
        ))
    }
}

/// Checks the format of `network_profile_url`: `https://[www.]network.com/in/<handle>[/]`,
/// where the handle has no `/`, `?` or `#`.
pub fn validate_network_profile_url(url: &str) -> Result<(), String> {
    let expected = format!("must look like https://{NETWORK_HOST}/in/<handle>");
    // Scheme names are case-insensitive (RFC 3986, section 3.1), as hosts are below.
    let rest = match url.get(..8) {
        Some(scheme) if scheme.eq_ignore_ascii_case("https://") => &url[8..],
        _ => return Err(format!("{expected} (an https URL)")),
    };
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let host = host.to_ascii_lowercase();
    if host != NETWORK_HOST && host.strip_prefix("www.") != Some(NETWORK_HOST) {
        return Err(format!(
            "{expected} (the host must be {NETWORK_HOST} or www.{NETWORK_HOST})"
        ));
    }
    let Some(handle) = path.strip_prefix("/in/") else {
        return Err(format!("{expected} (the path must start with /in/)"));
    };
    let handle = handle.strip_suffix('/').unwrap_or(handle);
    if handle.is_empty() {
        return Err(format!("{expected} (the handle is missing)"));
    }
    if handle
        .chars()
        .any(|c| matches!(c, '/' | '?' | '#') || c.is_whitespace() || c.is_control())
    {
        return Err(format!(
            "{expected} (the handle may not contain '/', '?', '#' or spaces)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod whole_number_tests {
    use super::whole_number;
    use serde_json::json;

    #[test]
    fn integers_are_whole_numbers_with_or_without_a_fraction_part() {
        assert_eq!(whole_number(&json!(5)), Some(5));
        assert_eq!(whole_number(&json!(5.0)), Some(5));
        assert_eq!(whole_number(&json!(1e2)), Some(100));
        assert_eq!(whole_number(&json!(-0.0)), Some(0));
        assert_eq!(whole_number(&json!(u64::MAX)), Some(u64::MAX));
        for refused in [
            json!(1.5),
            json!(-1),
            json!(-1.0),
            json!(1e20),
            json!(18446744073709551616.0),
            json!("5"),
            json!(null),
        ] {
            assert_eq!(whole_number(&refused), None, "{refused}");
        }
    }
}
