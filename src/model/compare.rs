//! Two runs compared: their inputs field by field, and their records matched by identity
//! (`profile_url`, `public_identifier`, `social_id`, `id`, else their place among the records
//! without one), each pair added, removed, changed (with the fields that differ) or the same.

use std::collections::{BTreeSet, HashMap, VecDeque};

use serde_json::Value;

use super::output::plain;

/// The fields that say which record is which, in the order they are trusted.
pub const IDENTITY_FIELDS: [&str; 4] = ["profile_url", "public_identifier", "social_id", "id"];

/// What happened to a record from run A to run B.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    Added,
    Removed,
    Changed,
    Same,
}

impl Change {
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Changed => "changed",
            Change::Same => "same",
        }
    }
}

/// One record of A matched with one of B (or with none).
#[derive(Clone, Debug, PartialEq)]
pub struct RecordPair {
    pub change: Change,
    /// What matched them: `profile_url: https://…`, or `record 3` by place.
    pub identity: String,
    /// Index in A's and in B's output.
    pub a: Option<usize>,
    pub b: Option<usize>,
    /// The fields whose values differ (for a changed pair), in name order.
    pub fields: Vec<String>,
}

/// How many pairs of each kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub added: usize,
    pub removed: usize,
    pub changed: usize,
    pub same: usize,
}

/// A record's identities: each identity field it has, with its value, in the order trusted.
fn identities(record: &Value) -> Vec<(&'static str, String)> {
    IDENTITY_FIELDS
        .into_iter()
        .filter_map(|field| match record.get(field) {
            Some(Value::String(s)) if !s.is_empty() => Some((field, s.clone())),
            Some(Value::Number(n)) => Some((field, n.to_string())),
            _ => None,
        })
        .collect()
}

/// The fields whose values differ between two records (a field one lacks counts).
pub fn differing_fields(a: &Value, b: &Value) -> Vec<String> {
    let (Value::Object(a), Value::Object(b)) = (a, b) else {
        return if a == b {
            Vec::new()
        } else {
            vec!["value".to_owned()]
        };
    };
    let names: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    names
        .into_iter()
        .filter(|name| a.get(*name) != b.get(*name))
        .cloned()
        .collect()
}

/// Matches the records of two outputs and says what changed, A's order first, then what B adds.
pub fn compare_records(a: &[Value], b: &[Value]) -> Vec<RecordPair> {
    // B's records under each of their identities (several of the same in order); those
    // without any by place.
    let mut by_identity: HashMap<(&'static str, String), VecDeque<usize>> = HashMap::new();
    let mut unidentified_b: VecDeque<usize> = VecDeque::new();
    for (index, record) in b.iter().enumerate() {
        let ids = identities(record);
        if ids.is_empty() {
            unidentified_b.push_back(index);
        }
        for key in ids {
            by_identity.entry(key).or_default().push_back(index);
        }
    }
    let mut matched_b = vec![false; b.len()];
    // The first B record under `key` not matched yet.
    let mut take = |key: &(&'static str, String), matched_b: &mut Vec<bool>| {
        let queue = by_identity.get_mut(key)?;
        while let Some(index) = queue.pop_front() {
            if !matched_b[index] {
                matched_b[index] = true;
                return Some(index);
            }
        }
        None
    };
    let mut pairs = Vec::with_capacity(a.len().max(b.len()));
    let mut place = 0;
    for (index, record) in a.iter().enumerate() {
        let ids = identities(record);
        let (found, label) = if ids.is_empty() {
            place += 1;
            let found = unidentified_b.pop_front();
            if let Some(other) = found {
                matched_b[other] = true;
            }
            (found, format!("record {place} without an id"))
        } else {
            // Matched by the first identity both records have, the most trusted first.
            let matched = ids
                .iter()
                .find_map(|key| take(key, &mut matched_b).map(|other| (other, key)));
            let key = matched.map_or(&ids[0], |(_, key)| key);
            (
                matched.map(|(other, _)| other),
                format!("{}: {}", key.0, key.1),
            )
        };
        match found {
            Some(other) => {
                let fields = differing_fields(record, &b[other]);
                pairs.push(RecordPair {
                    change: if fields.is_empty() {
                        Change::Same
                    } else {
                        Change::Changed
                    },
                    identity: label,
                    a: Some(index),
                    b: Some(other),
                    fields,
                });
            }
            None => pairs.push(RecordPair {
                change: Change::Removed,
                identity: label,
                a: Some(index),
                b: None,
                fields: Vec::new(),
            }),
        }
    }
    for (index, record) in b.iter().enumerate().filter(|(i, _)| !matched_b[*i]) {
        let label = identities(record).first().map_or_else(
            || format!("record {} of B, without an id", index + 1),
            |(field, value)| format!("{field}: {value}"),
        );
        pairs.push(RecordPair {
            change: Change::Added,
            identity: label,
            a: None,
            b: Some(index),
            fields: Vec::new(),
        });
    }
    pairs
}

pub fn counts(pairs: &[RecordPair]) -> Counts {
    let mut counts = Counts::default();
    for pair in pairs {
        match pair.change {
            Change::Added => counts.added += 1,
            Change::Removed => counts.removed += 1,
            Change::Changed => counts.changed += 1,
            Change::Same => counts.same += 1,
        }
    }
    counts
}

/// One input field of the two runs, as text (`None`: the run's input lacks it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputField {
    pub name: String,
    pub a: Option<String>,
    pub b: Option<String>,
}

impl InputField {
    pub fn differs(&self) -> bool {
        self.a != self.b
    }
}

/// The two inputs field by field, in name order.
pub fn compare_inputs(a: &Value, b: &Value) -> Vec<InputField> {
    let field = |input: &Value, name: &str| input.get(name).map(plain);
    let names: BTreeSet<String> = [a, b]
        .into_iter()
        .filter_map(Value::as_object)
        .flat_map(|o| o.keys().cloned())
        .collect();
    names
        .into_iter()
        .map(|name| InputField {
            a: field(a, &name),
            b: field(b, &name),
            name,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn records_are_matched_by_identity_not_place() {
        let a = vec![
            json!({"profile_url": "https://x/ada", "name": "Ada", "title": "Engineer"}),
            json!({"profile_url": "https://x/bob", "name": "Bob"}),
            json!({"profile_url": "https://x/cy", "name": "Cy"}),
        ];
        let b = vec![
            json!({"profile_url": "https://x/cy", "name": "Cy"}),
            json!({"profile_url": "https://x/ada", "name": "Ada", "title": "CTO"}),
            json!({"profile_url": "https://x/dee", "name": "Dee"}),
        ];
        let pairs = compare_records(&a, &b);
        let summary: Vec<(Change, &str, Option<usize>, Option<usize>)> = pairs
            .iter()
            .map(|p| (p.change, p.identity.as_str(), p.a, p.b))
            .collect();
        assert_eq!(
            summary,
            [
                (
                    Change::Changed,
                    "profile_url: https://x/ada",
                    Some(0),
                    Some(1)
                ),
                (Change::Removed, "profile_url: https://x/bob", Some(1), None),
                (Change::Same, "profile_url: https://x/cy", Some(2), Some(0)),
                (Change::Added, "profile_url: https://x/dee", None, Some(2)),
            ]
        );
        assert_eq!(pairs[0].fields, ["title"]);
        assert_eq!(
            counts(&pairs),
            Counts {
                added: 1,
                removed: 1,
                changed: 1,
                same: 1
            }
        );
    }

    #[test]
    fn identity_falls_back_through_the_fields_then_to_place() {
        let a = vec![
            json!({"social_id": "urn:1", "text": "a"}),
            json!({"id": 7, "text": "b"}),
            json!({"text": "c"}),
            json!({"text": "d"}),
        ];
        let b = vec![
            json!({"text": "C"}),
            json!({"id": 7, "text": "b"}),
            json!({"social_id": "urn:1", "text": "a"}),
        ];
        let pairs = compare_records(&a, &b);
        assert_eq!(pairs[0].change, Change::Same);
        assert_eq!(pairs[1].identity, "id: 7");
        assert_eq!(
            pairs[2].change,
            Change::Changed,
            "first without an id with first without an id"
        );
        assert_eq!(pairs[3].change, Change::Removed);
        assert_eq!(pairs.len(), 4);
    }

    #[test]
    fn a_record_is_found_by_any_identity_both_have() {
        let a = vec![json!({"profile_url": "https://x/ada", "public_identifier": "ada", "n": 1})];
        let b = vec![json!({"public_identifier": "ada", "n": 2})];
        let pairs = compare_records(&a, &b);
        assert_eq!(pairs.len(), 1);
        assert_eq!(pairs[0].change, Change::Changed);
        assert_eq!(pairs[0].identity, "public_identifier: ada");
    }

    #[test]
    fn duplicates_match_in_order_and_a_missing_field_counts_as_a_change() {
        let a = vec![json!({"id": "x", "n": 1}), json!({"id": "x", "n": 2})];
        let b = vec![json!({"id": "x", "n": 1}), json!({"id": "x"})];
        let pairs = compare_records(&a, &b);
        assert_eq!(pairs[0].change, Change::Same);
        assert_eq!(pairs[1].fields, ["n"]);
    }

    #[test]
    fn inputs_side_by_side() {
        let fields = compare_inputs(
            &json!({"keywords": "rust", "team": "a"}),
            &json!({"keywords": "go"}),
        );
        assert_eq!(
            fields,
            [
                InputField {
                    name: "keywords".into(),
                    a: Some("rust".into()),
                    b: Some("go".into())
                },
                InputField {
                    name: "team".into(),
                    a: Some("a".into()),
                    b: None
                },
            ]
        );
        assert!(fields.iter().all(InputField::differs));
    }
}
