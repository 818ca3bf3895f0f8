//! Presenter mode's rule: which values can identify or describe a person, and what is shown in
//! their place. Decided by an explicit list of what is **not** personal (numbers, booleans,
//! dates and times, and the values of the fields in [`NOT_PERSONAL_FIELDS`]), so a field the
//! API adds tomorrow is hidden by default. See `docs/presenter-mode.md`.
//!
//! A masked value keeps its shape where that helps reading (`J••• D••• (k4)`,
//! `https://•••/in/••• (7x)`): a word's first character, a URL's scheme and the path's
//! well-known segments, and a two-character tag drawn from the value and the tab's salt, so two
//! people with the same initials can still be told apart on one screen, while the same value
//! masks alike on every page of the tab (and unlike in another tab, whose salt differs).

use std::borrow::Cow;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use serde_json::Value;

mod message;
pub use message::body_texts;

/// Between a row's cells where the bulk pages show them on one line (`model::bulk_view`).
pub const CELL_SEPARATOR: &str = " · ";

/// What stands for the hidden characters.
pub const HIDDEN: &str = "•••";

/// Fields whose text values never identify or describe a person: the API's states and kinds,
/// and the ids of things that are the console's own (runs, requests, actions). Anything else
/// is hidden.
pub const NOT_PERSONAL_FIELDS: &[&str] = &[
    "action",
    "code",
    "currency",
    "kind",
    "reaction_type",
    "request_id",
    "run_id",
    "scope",
    "status",
    "type",
];

/// Path segments of profile and post URLs that say what kind of page it is, not whose.
const URL_KINDS: &[&str] = &[
    "company", "feed", "groups", "in", "p", "post", "posts", "pub", "school", "status", "update",
    "user",
];

/// The letters of a tag: no look-alikes (`0`/`o`, `1`/`l`/`i`).
const TAG_LETTERS: &[u8] = b"abcdefghjkmnpqrstuvwxyz23456789";

/// Records masked ahead of time (a slice at a time as they were read), so that the page that
/// shows them need not mask thousands in one task; `by` says with which masker.
#[derive(Clone, Debug, PartialEq)]
pub struct MaskedRecords {
    pub by: Masker,
    pub records: Arc<[Value]>,
}

/// How values are shown: as they are, or masked (presenter mode). Cheap to copy; a page takes
/// one when it is built (pages are built again when the mode changes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Masker {
    on: bool,
    /// Drawn once per tab: tags differ between tabs, so two recordings cannot be matched.
    salt: u64,
}

impl Masker {
    /// Shows every value as it is.
    pub const OFF: Masker = Masker { on: false, salt: 0 };

    pub fn new(on: bool, salt: u64) -> Masker {
        Masker { on, salt }
    }

    /// Whether values are masked.
    pub fn is_on(self) -> bool {
        self.on
    }

    /// Free text that may be about a person (a name, a URL, a message, a key's name): masked
    /// when on, unless it is a date, a time or a UUID (the ids the API and the console make:
    /// runs, keys, idempotency keys, which say nothing of anyone without the API's records).
    pub fn text(self, value: &str) -> Cow<'_, str> {
        if !self.on || value.is_empty() || is_date_or_time(value) || is_uuid(value) {
            return Cow::Borrowed(value);
        }
        let shape = if let Some(scheme_end) = url_scheme_end(value) {
            url_shape(value, scheme_end)
        } else {
            value
                .split_whitespace()
                .map(word_shape)
                .collect::<Vec<_>>()
                .join(" ")
        };
        Cow::Owned(format!("{shape} ({})", self.tag(value)))
    }

    /// The text value of the field `field`: shown when the field is on the list of what is not
    /// personal, else as [`Masker::text`].
    pub fn field<'a>(self, field: &str, value: &'a str) -> Cow<'a, str> {
        if NOT_PERSONAL_FIELDS.contains(&field) {
            Cow::Borrowed(value)
        } else {
            self.text(value)
        }
    }

    /// A JSON value with every text masked by the rule of the field that holds it (an array's
    /// items by their array's field); numbers, booleans, nulls and field names are kept.
    pub fn json(self, value: &Value) -> Value {
        if !self.on {
            return value.clone();
        }
        self.json_in(None, value)
    }

    fn json_in(self, field: Option<&str>, value: &Value) -> Value {
        match value {
            Value::String(text) => Value::String(match field {
                Some(field) => self.field(field, text).into_owned(),
                None => self.text(text).into_owned(),
            }),
            Value::Array(items) => {
                Value::Array(items.iter().map(|item| self.json_in(field, item)).collect())
            }
            Value::Object(fields) => Value::Object(
                fields
                    .iter()
                    .map(|(name, item)| (name.clone(), self.json_in(Some(name), item)))
                    .collect(),
            ),
            scalar => scalar.clone(),
        }
    }

    /// JSON text (a request's or an answer's body) with its values masked, indented when it
    /// was (compact otherwise); text that is not JSON is masked whole.
    pub fn json_text(self, text: &str) -> Cow<'_, str> {
        if !self.on {
            return Cow::Borrowed(text);
        }
        match serde_json::from_str::<Value>(text) {
            Ok(value) if text.contains('\n') => {
                Cow::Owned(serde_json::to_string_pretty(&self.json(&value)).unwrap_or_default())
            }
            Ok(value) => Cow::Owned(self.json(&value).to_string()),
            Err(_) => self.text(text),
        }
    }

    /// A row's cells joined as `a · b · c` (the bulk tables): each masked by itself, whole
    /// numbers (the limits) shown.
    pub fn cells(self, joined: &str) -> Cow<'_, str> {
        if !self.on {
            return Cow::Borrowed(joined);
        }
        let cells = joined.split(CELL_SEPARATOR).map(|cell| {
            if cell.trim().parse::<u64>().is_ok() {
                Cow::Borrowed(cell)
            } else {
                self.text(cell)
            }
        });
        Cow::Owned(cells.collect::<Vec<_>>().join(CELL_SEPARATOR))
    }

    /// Two characters drawn from the value and the tab's salt.
    fn tag(self, value: &str) -> String {
        // SipHash with fixed keys: the same value gives the same tag for the whole tab.
        #[allow(deprecated)]
        let mut hasher = std::hash::SipHasher::new_with_keys(self.salt, !self.salt);
        value.hash(&mut hasher);
        let hash = hasher.finish();
        let letter = |at: u64| TAG_LETTERS[(at % TAG_LETTERS.len() as u64) as usize] as char;
        [letter(hash), letter(hash >> 16)].iter().collect()
    }
}

/// `J•••` for a word: its first character when the word is longer than two, else nothing of it.
fn word_shape(word: &str) -> String {
    let mut chars = word.chars();
    match (chars.next(), word.chars().count() > 2) {
        (Some(first), true) if first.is_alphanumeric() => format!("{first}{HIDDEN}"),
        _ => HIDDEN.to_owned(),
    }
}

/// Where the `://` of an `http:` or `https:` URL ends.
fn url_scheme_end(value: &str) -> Option<usize> {
    let lower = value.get(..8)?.to_ascii_lowercase();
    if lower.starts_with("https://") {
        Some(8)
    } else if lower.starts_with("http://") {
        Some(7)
    } else {
        None
    }
}

/// `https://•••/in/•••`: the scheme, the host hidden, each path segment kept only when it names
/// a kind of page, the query and fragment hidden.
fn url_shape(value: &str, scheme_end: usize) -> String {
    let rest = &value[scheme_end..];
    let (address, extra) = match rest.find(['?', '#']) {
        Some(at) => (&rest[..at], true),
        None => (rest, false),
    };
    let mut shape = value[..scheme_end].to_ascii_lowercase();
    let mut segments = address.split('/');
    segments.next(); // the host
    shape.push_str(HIDDEN);
    for segment in segments {
        shape.push('/');
        if URL_KINDS.contains(&segment) || segment.is_empty() {
            shape.push_str(segment);
        } else {
            shape.push_str(HIDDEN);
        }
    }
    if extra {
        shape.push('?');
        shape.push_str(HIDDEN);
    }
    shape
}

/// A UUID in its usual form (`54fc8e59-80bc-49e1-91b6-2397d06a91d3`).
fn is_uuid(value: &str) -> bool {
    value.len() == 36 && uuid::Uuid::try_parse(value).is_ok()
}

/// A date (`2026-10-03`, `2026-10`, a year) or a time (RFC 3339): not personal on its own.
fn is_date_or_time(value: &str) -> bool {
    // Digits only, so `+12` or ` 12` is not a number here.
    let number = |text: &str| {
        (!text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))
            .then(|| text.parse::<u32>().ok())
            .flatten()
    };
    let parts: Vec<Option<u32>> = value.split('-').map(number).collect();
    let year =
        |text: &str| text.len() == 4 && number(text).is_some_and(|y| (1900..=2100).contains(&y));
    match (value.len(), parts.as_slice()) {
        (4, [Some(_)]) => year(value),
        (7, [Some(y), Some(m)]) => year(&value[..4]) && (1..=12).contains(m) && *y > 0,
        // chrono checks the day against the month (and leap years).
        (10, [Some(y), Some(m), Some(d)]) => {
            year(&value[..4]) && chrono::NaiveDate::from_ymd_opt(*y as i32, *m, *d).is_some()
        }
        _ => chrono::DateTime::parse_from_rfc3339(value).is_ok(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const ON: Masker = Masker { on: true, salt: 7 };

    /// Every text of `value`, at any depth.
    fn texts(value: &Value, out: &mut Vec<String>) {
        message::string_values(value, out);
    }

    #[test]
    fn off_shows_everything_as_it_is() {
        let record = json!({"name": "Ada Lovelace", "profile_url": "https://x.example/in/ada"});
        assert_eq!(Masker::OFF.json(&record), record);
        assert_eq!(Masker::OFF.text("Ada Lovelace"), "Ada Lovelace");
        assert_eq!(Masker::OFF.json_text("{\"a\":\"b\"}"), "{\"a\":\"b\"}");
    }

    #[test]
    fn names_keep_their_initials_and_a_tag() {
        let masked = ON.text("John Doe");
        assert!(masked.starts_with("J••• D••• ("), "{masked}");
        assert!(!masked.contains("ohn") && !masked.contains("oe"));
        // Stable within the tab, different for another value with the same initials.
        assert_eq!(ON.text("John Doe"), masked);
        assert_ne!(ON.text("Jane Dill"), masked);
        // Another tab's salt gives other tags.
        let other_tab = Masker::new(true, 8);
        assert_ne!(other_tab.text("John Doe"), masked);
        // Short words give nothing away.
        assert!(ON.text("Al Wu").starts_with("••• ••• ("));
    }

    #[test]
    fn urls_keep_their_scheme_and_kind_of_page() {
        let masked = ON.text("https://www.network.com/in/john-doe-4f2a?trk=x#top");
        assert!(masked.starts_with("https://•••/in/•••?••• ("), "{masked}");
        assert!(
            ON.text("HTTP://example.com/company/acme/")
                .starts_with("http://•••/company/•••/ (")
        );
        assert!(ON.text("https://acme.example").starts_with("https://••• ("));
    }

    #[test]
    fn a_rows_cells_are_masked_one_by_one_and_limits_shown() {
        let masked = ON.cells("Ada Lovelace · https://x.example/in/ada · 25");
        let cells: Vec<&str> = masked.split(CELL_SEPARATOR).collect();
        assert_eq!(cells.len(), 3, "{masked}");
        assert!(cells[0].starts_with("A••• L•••"));
        assert!(cells[1].starts_with("https://•••/in/•••"));
        assert_eq!(cells[2], "25");
        assert_eq!(Masker::OFF.cells("Ada · 25"), "Ada · 25");
    }

    #[test]
    fn numbers_dates_and_the_listed_fields_are_shown() {
        let record = json!({
            "reaction_count": 12,
            "verified": true,
            "end": null,
            "posted_at": "2026-10-03T04:05:00Z",
            "start": "2019-03",
            "graduation": "2014",
            "reaction_type": "LIKE",
            "status": "completed",
            "request_id": "req_123",
            "id": "54fc8e59-80bc-49e1-91b6-2397d06a91d3",
        });
        assert_eq!(ON.json(&record), record);
    }

    #[test]
    fn dates_are_told_from_numbers_and_codes() {
        for date in [
            "2014",
            "2019-03",
            "2024-02-29",
            "2026-10-03T04:05:00Z",
            "2026-10-03T04:05:00.5+02:00",
        ] {
            assert!(is_date_or_time(date), "{date}");
        }
        for not_date in [
            "12345",
            "0042",
            "2019-13",
            "2023-02-29",
            "2019-3",
            "1-2-3",
            "+2014",
            "2014-",
        ] {
            assert!(!is_date_or_time(not_date), "{not_date}");
        }
    }

    #[test]
    fn an_unknown_field_is_hidden() {
        let masked = ON.json(&json!({"favourite_colour_of_the_person": "teal green"}));
        assert_ne!(masked["favourite_colour_of_the_person"], "teal green");
        // A field name is not personal; a listed name inside a personal structure still is
        // shown (a status is a status wherever it is).
        let nested = ON.json(&json!({"author": {"name": "Ann Lee", "status": "active"}}));
        assert_eq!(nested["author"]["status"], "active");
        assert!(
            nested["author"]["name"]
                .as_str()
                .unwrap()
                .starts_with("A••• L•••")
        );
    }

    #[test]
    fn json_text_masks_bodies_and_text_that_is_not_json() {
        let body = ON.json_text(r#"{"action":"x","input":{"first_name":"Grace"},"limit":5}"#);
        let value: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(value["action"], "x");
        assert_eq!(value["limit"], 5);
        assert!(!body.contains("Grace"));
        assert!(!ON.json_text("<html>Grace Hopper</html>").contains("Grace"));
    }

    /// Every record of every action the sandbox makes (its own generator, hostile records
    /// included): no text of a field that is not on the list survives masking, at any depth,
    /// and neither do the inputs the records were made from.
    #[test]
    fn no_personal_text_of_any_sandbox_record_survives() {
        use api_contract::{ActionId, InputShape, RunInput};
        use sandbox::data::{Outcome, generate, social_id};
        let input_of = |shape: InputShape, words: &str| match shape {
            InputShape::StandardPerson => RunInput::StandardPerson {
                first_name: "Ada".into(),
                last_name: "Lovelace".into(),
                company: format!("Analytical {words}"),
                network_profile_url: Some("https://www.network.com/in/ada-lovelace".into()),
            },
            InputShape::Keywords => RunInput::Keywords {
                keywords: words.into(),
            },
            InputShape::Identifier => RunInput::Identifier {
                identifier: "ada-lovelace".into(),
            },
            InputShape::SocialId => RunInput::SocialId {
                social_id: social_id(42, "activity"),
            },
            InputShape::CompanyEmployees => RunInput::CompanyEmployees {
                company: "Northwind".into(),
                keywords: Some(words.into()),
            },
            InputShape::SchoolAlumni => RunInput::SchoolAlumni {
                school: "Porto".into(),
                keywords: Some(words.into()),
            },
            InputShape::GroupMembers => RunInput::GroupMembers {
                group_id: "12345".into(),
            },
            InputShape::Query => RunInput::Query {
                query: words.into(),
            },
        };
        let mut checked = 0;
        for action in ActionId::ALL {
            for &shape in action.input_shapes() {
                for words in ["rust data", "hostile"] {
                    let input = serde_json::to_value(input_of(shape, words)).unwrap();
                    let records = match generate(action, &input_of(shape, words), 50) {
                        Outcome::Records { records, .. } => records,
                        Outcome::Failed { code, message } => panic!("{action:?}: {code} {message}"),
                    };
                    assert!(!records.is_empty(), "{action:?} made no records");
                    for record in records.iter().chain([&input]) {
                        let masked = ON.json(record);
                        let mut shown = Vec::new();
                        texts(&masked, &mut shown);
                        let mut real = Vec::new();
                        personal_texts(None, record, &mut real);
                        for value in real.iter().filter(|v| v.chars().count() >= 3) {
                            assert!(
                                shown.iter().all(|text| !text.contains(value.as_str())),
                                "{action:?}: {value:?} shows through in {masked}"
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 1_000, "only {checked} values checked");
    }

    /// The texts of `value` that the rule must hide: not in a listed field, not a date, not a
    /// UUID.
    fn personal_texts(field: Option<&str>, value: &Value, out: &mut Vec<String>) {
        let shown = |text: &str| {
            field.is_some_and(|f| NOT_PERSONAL_FIELDS.contains(&f))
                || is_date_or_time(text)
                || is_uuid(text)
        };
        match value {
            Value::String(text) if !shown(text) => out.push(text.clone()),
            Value::Array(items) => items
                .iter()
                .for_each(|item| personal_texts(field, item, out)),
            Value::Object(fields) => fields
                .iter()
                .for_each(|(name, item)| personal_texts(Some(name), item, out)),
            _ => {}
        }
    }
}
