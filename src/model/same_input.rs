//! "The same input": when two submissions ask the API the same question, so that the second
//! would pay again for records this browser already has (or is about to have).
//!
//! A [`Question`] is a submission with what does not change the answer taken out of it: every
//! field trimmed; runs of whitespace inside names and search words made one space; a profile URL
//! reduced to its handle (scheme, `www.`, the host's case, a trailing slash, a query and a
//! fragment do not name another person); a company or school given as a number without its
//! leading zeros. What may change the answer is kept as typed: the words of a search and their
//! order, their case, a handle's case, a `social_id` (passed "exactly as returned"), the action,
//! the records asked for and the credit cap. docs/same-input.md gives the rule with examples.
//!
//! Bulk batches send each distinct question once ([`first_rows`]); the form offers a kept run
//! that answers the same question ([`Question::answers`]).

use std::collections::{BTreeMap, HashMap, HashSet};

use api_contract::input::{MAX_RESULTS_LIMIT, NETWORK_HOST};
use api_contract::{ActionId, FieldKind, RunStatus};
use chrono::{DateTime, TimeDelta, Utc};
use serde_json::{Map, Value};

use crate::model::archive::KeptRun;
use crate::model::form::{MAX_CREDITS, MAX_RESULTS};
use crate::model::format::{age, counted};

/// A submission's question: the action, its input in canonical form, how many records it asks
/// for and its credit cap. Two submissions with equal questions get the same records.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Question {
    pub action: String,
    /// Each field of the input, in canonical form ([`canonical_value`]), by name.
    pub input: BTreeMap<String, String>,
    /// Records asked for, capped at the action's ceiling (the ceiling when the body names none).
    pub max_results: u32,
    /// The body's `max_credits`, if any.
    pub max_credits: Option<u64>,
}

impl Question {
    /// The question a submission body asks of `action`, whose registry ceiling is
    /// `max_results_ceiling`; `None` for a body that is not a submission (not a JSON object with
    /// an `input` object).
    pub fn of_body(action: &str, max_results_ceiling: u32, body: &str) -> Option<Question> {
        let body: Map<String, Value> = serde_json::from_str(body).ok()?;
        let input = body.get("input")?.as_object()?;
        let ceiling = max_results_ceiling.clamp(1, MAX_RESULTS_LIMIT);
        let action_id = ActionId::parse(action);
        let asked = body
            .get(MAX_RESULTS)
            .and_then(Value::as_u64)
            .map_or(ceiling, |n| u32::try_from(n).unwrap_or(u32::MAX));
        Some(Question {
            action: action.to_owned(),
            input: input
                .iter()
                .map(|(name, value)| {
                    let text = match value {
                        Value::String(text) => text.clone(),
                        other => other.to_string(),
                    };
                    // A field the action does not take is only trimmed: only the API knows it.
                    let kind = action_id
                        .and_then(|action| action.input_field_named(name))
                        .map(|field| field.kind);
                    let value = kind.map_or_else(
                        || text.trim().to_owned(),
                        |kind| canonical_value(kind, &text),
                    );
                    (name.clone(), value)
                })
                // An empty optional field is an absent one.
                .filter(|(_, value)| !value.is_empty())
                .collect(),
            max_results: asked.min(ceiling),
            max_credits: body.get(MAX_CREDITS).and_then(Value::as_u64),
        })
    }

    /// Same action, same input: the records may differ only by how many were asked for.
    pub fn same_input(&self, other: &Question) -> bool {
        self.action == other.action && self.input == other.input
    }

    /// A completed run of `self` holds every record `wanted` asks for: the same input, at least
    /// as many records asked for, and no lower credit cap (a cap may have cut the records short).
    pub fn answers(&self, wanted: &Question) -> bool {
        let cap_at_least = match (self.max_credits, wanted.max_credits) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(mine), Some(theirs)) => mine >= theirs,
        };
        self.same_input(wanted) && self.max_results >= wanted.max_results && cap_at_least
    }
}

/// A value of a field of `kind` in canonical form: what the API reads of it, without what cannot
/// change the answer (see the module's documentation). Idempotent.
pub fn canonical_value(kind: FieldKind, text: &str) -> String {
    let text = text.trim();
    match kind {
        FieldKind::ProfileUrl | FieldKind::ProfileReference => {
            profile_handle(text).map_or_else(|| text.to_owned(), profile_url_of)
        }
        FieldKind::NameOrId => {
            let spaced = single_spaces(text);
            if !spaced.is_empty() && spaced.bytes().all(|b| b.is_ascii_digit()) {
                let digits = spaced.trim_start_matches('0');
                if digits.is_empty() { "0" } else { digits }.to_owned()
            } else {
                spaced
            }
        }
        FieldKind::Words => single_spaces(text),
        // A social id is passed exactly as returned, a group id is an id.
        FieldKind::ExactId => text.to_owned(),
    }
}

/// Runs of whitespace made one space.
fn single_spaces(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The handle of a network profile URL, written with or without a scheme (`http` or `https`, in
/// any case), with or without `www.`, the host in any case, with an optional trailing `/`, query
/// and fragment; `None` for anything else (a bare handle or an identifier stays as it is: it may
/// be either, and only the API knows).
fn profile_handle(text: &str) -> Option<&str> {
    let rest = lower_prefix(text, "https://")
        .or_else(|| lower_prefix(text, "http://"))
        .unwrap_or(text);
    let rest = lower_prefix(rest, "www.").unwrap_or(rest);
    let rest = lower_prefix(rest, NETWORK_HOST)?;
    let path = rest.strip_prefix("/in/")?;
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let handle = path.strip_suffix('/').unwrap_or(path);
    let plain = !handle.is_empty()
        && !handle
            .chars()
            .any(|c| c == '/' || c.is_whitespace() || c.is_control());
    plain.then_some(handle)
}

/// `text` after `prefix`, matched without regard to ASCII case.
fn lower_prefix<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    text.get(..prefix.len())
        .filter(|head| head.eq_ignore_ascii_case(prefix))
        .map(|_| &text[prefix.len()..])
}

fn profile_url_of(handle: &str) -> String {
    format!("https://{NETWORK_HOST}/in/{handle}")
}

/// How recent a kept run must be for the console to offer its results instead of a new run
/// (the person's choice, kept in this browser as a preference, and with a chain it was
/// started with). Kept by its [`ReuseWindow::value`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ReuseWindow {
    #[serde(rename = "off")]
    Off,
    #[serde(rename = "1h")]
    Hour,
    #[serde(rename = "24h")]
    Day,
    #[serde(rename = "7d")]
    Week,
}

impl ReuseWindow {
    pub const ALL: [ReuseWindow; 4] = [
        ReuseWindow::Off,
        ReuseWindow::Hour,
        ReuseWindow::Day,
        ReuseWindow::Week,
    ];
    pub const DEFAULT: ReuseWindow = ReuseWindow::Day;

    /// How old a run may be; `None` offers none.
    pub fn span(self) -> Option<TimeDelta> {
        match self {
            ReuseWindow::Off => None,
            ReuseWindow::Hour => Some(TimeDelta::hours(1)),
            ReuseWindow::Day => Some(TimeDelta::hours(24)),
            ReuseWindow::Week => Some(TimeDelta::days(7)),
        }
    }

    /// As kept and as an `<option>`'s value.
    pub fn value(self) -> &'static str {
        match self {
            ReuseWindow::Off => "off",
            ReuseWindow::Hour => "1h",
            ReuseWindow::Day => "24h",
            ReuseWindow::Week => "7d",
        }
    }

    /// The window of a kept value; the default for anything else.
    pub fn from_value(value: &str) -> ReuseWindow {
        ReuseWindow::ALL
            .into_iter()
            .find(|window| window.value() == value)
            .unwrap_or(ReuseWindow::DEFAULT)
    }

    pub fn label(self) -> &'static str {
        match self {
            ReuseWindow::Off => "never",
            ReuseWindow::Hour => "newer than 1 hour",
            ReuseWindow::Day => "newer than 24 hours",
            ReuseWindow::Week => "newer than 7 days",
        }
    }
}

/// A run this console submitted, with the question it asked (from the body it sent).
#[derive(Clone, Debug, PartialEq)]
pub struct AskedBefore {
    pub run_id: String,
    pub question: Question,
}

/// The runs whose question answers `wanted` ([`Question::answers`]): the ones worth reading.
pub fn answering_runs(wanted: &Question, asked: &[AskedBefore]) -> Vec<String> {
    asked
        .iter()
        .filter(|before| before.question.answers(wanted))
        .map(|before| before.run_id.clone())
        .collect()
}

/// A completed run whose records can stand for a new run's, as the form offers it.
#[derive(Clone, Debug, PartialEq)]
pub struct KeptAnswer {
    pub run_id: String,
    pub completed_at: DateTime<Utc>,
    pub records: usize,
}

impl KeptAnswer {
    /// "The same input completed 10 min ago: 48 records."
    pub fn sentence(&self, now: DateTime<Utc>) -> String {
        format!(
            "The same input completed {}: {}.",
            age(now, self.completed_at),
            counted(self.records as u64, "record", "records")
        )
    }
}

/// The newest of `runs` (runs answering the question, as this browser keeps them) that
/// completed within `window` before `now`; `None` when none did or the window is off.
pub fn newest_kept_answer(
    runs: &[KeptRun],
    now: DateTime<Utc>,
    window: ReuseWindow,
) -> Option<KeptAnswer> {
    let in_window: Vec<KeptRun> = runs
        .iter()
        .filter(|kept| {
            kept.run
                .completed_at
                .is_some_and(|at| within(at, now, window))
        })
        .cloned()
        .collect();
    newest_completed(&in_window)
}

/// A run completed at `completed_at` is young enough for `window` at `now`.
pub fn within(completed_at: DateTime<Utc>, now: DateTime<Utc>, window: ReuseWindow) -> bool {
    window
        .span()
        // A run the API says completed a moment "after" now (clocks disagree) is young.
        .is_some_and(|span| now - completed_at <= span)
}

/// The kept runs that can stand for a batch's rows: what this console asked before, and those
/// runs as this browser keeps them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KeptRunsAsked {
    pub asked: Vec<AskedBefore>,
    pub runs: Vec<KeptRun>,
}

impl KeptRunsAsked {
    /// For each question (by position), the newest kept completed run answering it, whatever
    /// its age ([`KeptAnswer::within`] then tells whether the person's window takes it).
    pub fn newest_answers(&self, questions: &[Option<Question>]) -> Vec<Option<KeptAnswer>> {
        let runs: HashMap<&str, &KeptRun> = self
            .runs
            .iter()
            .map(|kept| (kept.run.id.as_str(), kept))
            .collect();
        // By input, so each row looks only at the runs of its own input.
        let mut by_input: HashMap<&BTreeMap<String, String>, Vec<&AskedBefore>> = HashMap::new();
        for before in &self.asked {
            by_input
                .entry(&before.question.input)
                .or_default()
                .push(before);
        }
        questions
            .iter()
            .map(|question| {
                let wanted = question.as_ref()?;
                let answering: Vec<KeptRun> = by_input
                    .get(&wanted.input)?
                    .iter()
                    .filter(|before| before.question.answers(wanted))
                    .filter_map(|before| runs.get(before.run_id.as_str()).map(|&kept| kept.clone()))
                    .collect();
                newest_completed(&answering)
            })
            .collect()
    }

    /// The run ids worth reading for `questions`: those asked before with the same input.
    pub fn ids_to_read(asked: &[AskedBefore], questions: &[Option<Question>]) -> Vec<String> {
        let inputs: HashSet<&BTreeMap<String, String>> =
            questions.iter().flatten().map(|q| &q.input).collect();
        asked
            .iter()
            .filter(|before| inputs.contains(&before.question.input))
            .map(|before| before.run_id.clone())
            .collect()
    }
}

/// The newest completed run of `runs`, whatever its age.
fn newest_completed(runs: &[KeptRun]) -> Option<KeptAnswer> {
    runs.iter()
        .filter(|kept| kept.run.status == RunStatus::Completed)
        .filter_map(|kept| {
            Some(KeptAnswer {
                run_id: kept.run.id.clone(),
                completed_at: kept.run.completed_at?,
                records: kept.records,
            })
        })
        .max_by_key(|answer| answer.completed_at)
}

/// For each item (by position) that asks a question an earlier one already asks, the position
/// of that earlier, first one; `None` for the first of each question and for items with no
/// question (`None`: not sendable).
pub fn first_rows(questions: &[Option<Question>]) -> Vec<Option<usize>> {
    let mut first_of: HashMap<&Question, usize> = HashMap::new();
    questions
        .iter()
        .enumerate()
        .map(|(position, question)| {
            let question = question.as_ref()?;
            match first_of.get(question) {
                Some(&first) => Some(first),
                None => {
                    first_of.insert(question, position);
                    None
                }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    fn question(action: &str, body: Value) -> Question {
        Question::of_body(action, 100, &body.to_string()).unwrap()
    }

    fn enrich(identifier: &str) -> Question {
        question(
            "network-extract-people",
            json!({ "input": { "identifier": identifier }, "max_credits": 20 }),
        )
    }

    #[test]
    fn profile_urls_that_name_the_same_handle_ask_the_same_question() {
        let base = enrich("https://network.com/in/jane-doe");
        for same in [
            "https://www.network.com/in/jane-doe",
            "https://network.com/in/jane-doe/",
            "HTTPS://WWW.Network.COM/in/jane-doe",
            "http://network.com/in/jane-doe",
            "network.com/in/jane-doe",
            "https://network.com/in/jane-doe?utm_source=share",
            "https://network.com/in/jane-doe/#about",
            "  https://network.com/in/jane-doe  ",
        ] {
            assert_eq!(enrich(same), base, "{same}");
        }
        for other in [
            "https://network.com/in/jane-doe-2",
            // A handle's case is the API's to judge.
            "https://network.com/in/Jane-Doe",
            // A bare handle may be a handle or an identifier: not merged with the URL.
            "jane-doe",
            "https://network.com/company/jane-doe",
            "https://example.com/in/jane-doe",
        ] {
            assert_ne!(enrich(other), base, "{other}");
        }
    }

    #[test]
    fn search_words_keep_their_order_and_case_but_not_their_spacing() {
        let search = |words: &str| {
            question(
                "premium-search-people",
                json!({ "input": { "keywords": words } }),
            )
        };
        assert_eq!(
            search("  data   engineer\tberlin "),
            search("data engineer berlin")
        );
        assert_ne!(
            search("engineer data berlin"),
            search("data engineer berlin")
        );
        assert_ne!(search("Data engineer"), search("data engineer"));
        assert_ne!(search("data-engineer"), search("data engineer"));
    }

    #[test]
    fn company_ids_lose_leading_zeros_and_names_stay_exact() {
        let employees = |company: &str| {
            question(
                "premium-search-company-employees",
                json!({ "input": { "company": company } }),
            )
        };
        assert_eq!(employees("00012345"), employees(" 12345"));
        assert_ne!(employees("12345"), employees("123450"));
        assert_ne!(employees("Acme Inc"), employees("acme inc"));
        assert_eq!(employees("Acme  Inc "), employees("Acme Inc"));
        assert_eq!(employees("000"), employees("0"));
    }

    #[test]
    fn social_ids_are_only_trimmed() {
        let likers = |id: &str| {
            question(
                "network-extract-post-likers",
                json!({ "input": { "social_id": id } }),
            )
        };
        assert_eq!(
            likers(" urn:network:share:7000000000000000007 "),
            likers("urn:network:share:7000000000000000007")
        );
        assert_ne!(
            likers("urn:network:Share:7000000000000000007"),
            likers("urn:network:share:7000000000000000007")
        );
    }

    #[test]
    fn records_asked_for_are_capped_at_the_ceiling_and_an_empty_field_is_absent() {
        let body = |extra: Value| {
            let mut body = json!({ "input": { "company": "Acme", "keywords": "" } });
            body.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            Question::of_body("premium-search-company-employees", 50, &body.to_string()).unwrap()
        };
        assert_eq!(
            body(json!({})).max_results,
            50,
            "no max_results: the ceiling"
        );
        assert_eq!(body(json!({ "max_results": 80 })), body(json!({})));
        assert_ne!(body(json!({ "max_results": 10 })), body(json!({})));
        assert!(!body(json!({})).input.contains_key("keywords"));
        assert_eq!(Question::of_body("a", 10, "not json"), None);
        assert_eq!(Question::of_body("a", 10, r#"{"input":3}"#), None);
    }

    #[test]
    fn a_run_answers_a_question_with_the_same_input_and_no_more_records() {
        let run = |max_results: u32, max_credits: Option<u64>| {
            let mut body = json!({ "input": { "keywords": "rust" }, "max_results": max_results });
            if let Some(cap) = max_credits {
                body["max_credits"] = cap.into();
            }
            question("premium-search-people", body)
        };
        assert!(run(50, Some(50)).answers(&run(50, Some(50))));
        assert!(run(50, Some(50)).answers(&run(10, Some(10))));
        assert!(
            !run(10, Some(10)).answers(&run(50, Some(50))),
            "more records"
        );
        assert!(!run(50, Some(5)).answers(&run(50, Some(50))), "a lower cap");
        assert!(run(50, None).answers(&run(50, Some(50))));
        let other_words = question(
            "premium-search-people",
            json!({ "input": { "keywords": "go" } }),
        );
        assert!(!other_words.answers(&run(10, None)));
        let other_action = question(
            "premium-search-companies",
            json!({ "input": { "keywords": "rust" }, "max_results": 50 }),
        );
        assert!(!other_action.answers(&run(10, None)));
    }

    #[test]
    fn first_rows_point_every_repeat_at_the_first_of_its_question() {
        let q = |words: &str| {
            Some(question(
                "premium-search-people",
                json!({ "input": { "keywords": words } }),
            ))
        };
        let firsts = first_rows(&[q("a"), q(" a"), None, q("b"), q("a  "), q("b"), None]);
        assert_eq!(firsts, [None, Some(0), None, None, Some(0), Some(3), None]);
    }

    fn kept(id: &str, status: &str, completed: Option<&str>, records: usize) -> KeptRun {
        KeptRun {
            workspace: "ws".into(),
            run: serde_json::from_value(json!({
                "id": id, "action": "premium-search-people", "status": status, "output": [],
                "credits_used": records, "credits_reserved": 0,
                "created_at": "2026-11-27T08:00:00.000Z", "completed_at": completed,
                "completeness": { "has_more": false, "scope": "single_page" }, "error": null,
            }))
            .unwrap(),
            records,
            seen_at: 0.0,
            output_forgotten: None,
            input: None,
            idempotency_key: None,
        }
    }

    #[test]
    fn the_newest_completed_run_within_the_window_is_offered() {
        let now: DateTime<Utc> = "2026-11-27T12:00:00Z".parse().unwrap();
        let runs = [
            kept("old", "completed", Some("2026-11-26T11:00:00.000Z"), 5),
            kept("new", "completed", Some("2026-11-27T11:50:00.000Z"), 48),
            kept("failed", "failed", Some("2026-11-27T11:55:00.000Z"), 0),
            kept("running", "processing", None, 0),
        ];
        let offered = newest_kept_answer(&runs, now, ReuseWindow::Day).unwrap();
        assert_eq!(offered.run_id, "new");
        assert_eq!(
            offered.sentence(now),
            "The same input completed 10 min ago: 48 records."
        );
        assert_eq!(
            newest_kept_answer(&runs[..1], now, ReuseWindow::Day),
            None,
            "25 h old"
        );
        assert_eq!(
            newest_kept_answer(&runs[..1], now, ReuseWindow::Week).map(|a| a.run_id),
            Some("old".into())
        );
        assert_eq!(newest_kept_answer(&runs, now, ReuseWindow::Off), None);
        assert_eq!(
            newest_kept_answer(&runs[1..2], now, ReuseWindow::Hour).map(|a| a.records),
            Some(48)
        );
        assert_eq!(ReuseWindow::from_value("7d"), ReuseWindow::Week);
        assert_eq!(ReuseWindow::from_value("bogus"), ReuseWindow::DEFAULT);
    }

    #[test]
    fn only_runs_whose_question_answers_are_read() {
        let asked = |id: &str, max_results: u32| AskedBefore {
            run_id: id.into(),
            question: question(
                "premium-search-people",
                json!({ "input": { "keywords": "rust  berlin" }, "max_results": max_results }),
            ),
        };
        let wanted = question(
            "premium-search-people",
            json!({ "input": { "keywords": "rust berlin" }, "max_results": 20 }),
        );
        let before = [asked("fewer", 10), asked("same", 20), asked("more", 50)];
        assert_eq!(answering_runs(&wanted, &before), ["same", "more"]);
    }

    #[test]
    fn each_row_gets_the_newest_completed_run_that_answers_it() {
        let ask = |words: &str, max_results: u32| {
            Some(question(
                "premium-search-people",
                json!({ "input": { "keywords": words }, "max_results": max_results }),
            ))
        };
        let before = |id: &str, words: &str, max_results: u32| AskedBefore {
            run_id: id.into(),
            question: ask(words, max_results).unwrap(),
        };
        let kept_runs = KeptRunsAsked {
            asked: vec![
                before("old", "rust", 10),
                before("new", "rust ", 10),
                before("few", "go", 2),
                before("failed", "zig", 10),
                before("unkept", "c", 10),
            ],
            runs: vec![
                kept("old", "completed", Some("2026-11-20T10:00:00.000Z"), 4),
                kept("new", "completed", Some("2026-11-27T10:00:00.000Z"), 5),
                kept("few", "completed", Some("2026-11-27T10:00:00.000Z"), 2),
                kept("failed", "failed", Some("2026-11-27T10:00:00.000Z"), 0),
            ],
        };
        let questions = [
            ask("rust", 5),
            ask("go", 5),
            ask("zig", 5),
            ask("c", 5),
            None,
            ask("ada", 5),
        ];
        let answers: Vec<Option<String>> = kept_runs
            .newest_answers(&questions)
            .into_iter()
            .map(|answer| answer.map(|a| a.run_id))
            .collect();
        assert_eq!(answers, [Some("new".into()), None, None, None, None, None]);
        let mut to_read = KeptRunsAsked::ids_to_read(&kept_runs.asked, &questions);
        to_read.sort();
        assert_eq!(to_read, ["failed", "few", "new", "old", "unkept"]);
    }

    /// A field value as a spreadsheet holds it: words from a small alphabet (so collisions are
    /// likely) with any spacing, sometimes a profile URL in any of its spellings.
    fn messy_value() -> impl Strategy<Value = String> {
        let word = prop::sample::select(vec!["ada", "Ada", "lin", "0", "007", "7", "x-y", "Lin"]);
        let spacing = prop::sample::select(vec![" ", "  ", "\t", " \u{a0}"]);
        let words = prop::collection::vec((word, spacing.clone()), 1..4).prop_map(|parts| {
            parts
                .into_iter()
                .map(|(word, space)| format!("{word}{space}"))
                .collect::<String>()
        });
        let url = (
            prop::sample::select(vec!["https://", "HTTP://", "", "https://www."]),
            prop::sample::select(vec!["network.com", "NETWORK.com", "example.com"]),
            prop::sample::select(vec!["ada", "Ada", "lin-7"]),
            prop::sample::select(vec!["", "/", "?a=1", "/#x", "/x"]),
        )
            .prop_map(|(scheme, host, handle, tail)| format!("{scheme}{host}/in/{handle}{tail}"));
        (
            prop::sample::select(vec!["", " ", "\n"]),
            prop_oneof![words, url],
        )
            .prop_map(|(lead, value)| format!("{lead}{value}"))
    }

    /// The contract's kind of the field `name` (in whichever shape has it).
    fn kind_of(name: &str) -> FieldKind {
        api_contract::InputShape::ALL
            .into_iter()
            .flat_map(|shape| shape.fields())
            .find(|field| field.name == name)
            .unwrap_or_else(|| panic!("no field {name} in the contract"))
            .kind
    }

    /// What the API reads of a value, written independently of [`canonical_value`] (by the
    /// fields' names, where the code goes by the contract's kinds): the words in
    /// order (a profile URL's handle, for URLs of the network).
    fn what_the_api_reads(field: &str, text: &str) -> Vec<String> {
        let text = text.trim();
        let lower = text.to_ascii_lowercase();
        let after_host = lower
            .find("network.com/in/")
            .filter(|&at| {
                let before = &lower[..at];
                [
                    "",
                    "www.",
                    "https://",
                    "https://www.",
                    "http://",
                    "http://www.",
                ]
                .contains(&before)
            })
            .map(|at| &text[at + "network.com/in/".len()..]);
        if matches!(field, "identifier" | "network_profile_url")
            && let Some(path) = after_host
        {
            let handle = path.split(['?', '#']).next().unwrap_or("");
            let handle = handle.strip_suffix('/').unwrap_or(handle);
            if !handle.is_empty() && !handle.contains('/') && !handle.contains(char::is_whitespace)
            {
                return vec!["profile".into(), handle.to_owned()];
            }
        }
        let words: Vec<String> = text.split_whitespace().map(str::to_owned).collect();
        if matches!(field, "company" | "school")
            && words.len() == 1
            && words[0].bytes().all(|b| b.is_ascii_digit())
        {
            return vec![words[0].parse::<u128>().unwrap_or(0).to_string()];
        }
        if matches!(
            field,
            "identifier" | "network_profile_url" | "social_id" | "group_id"
        ) {
            return vec![text.to_owned()];
        }
        words
    }

    proptest! {
        #[test]
        fn canonical_values_are_idempotent(
            field in prop::sample::select(vec!["identifier", "keywords", "company", "social_id", "first_name"]),
            value in messy_value(),
        ) {
            let once = canonical_value(kind_of(field), &value);
            prop_assert_eq!(canonical_value(kind_of(field), &once), once.clone());
        }

        #[test]
        fn two_values_merge_exactly_when_the_api_reads_them_alike(
            field in prop::sample::select(vec!["identifier", "network_profile_url", "keywords", "company", "school", "social_id", "group_id", "first_name"]),
            a in messy_value(),
            b in messy_value(),
        ) {
            let merged = canonical_value(kind_of(field), &a) == canonical_value(kind_of(field), &b);
            let read_alike = what_the_api_reads(field, &a) == what_the_api_reads(field, &b);
            prop_assert_eq!(merged, read_alike, "{:?} / {:?}", a, b);
        }

        #[test]
        fn questions_with_other_limits_or_actions_never_merge(
            value in messy_value(),
            max_results in 1u32..=100,
            other_max_results in 1u32..=100,
        ) {
            let ask = |action: &str, max_results: u32| {
                question(action, json!({ "input": { "keywords": value.clone() }, "max_results": max_results }))
            };
            prop_assert_eq!(
                ask("premium-search-people", max_results) == ask("premium-search-people", other_max_results),
                max_results == other_max_results
            );
            prop_assert_ne!(ask("premium-search-people", max_results), ask("network-search-content", max_results));
        }
    }
}
