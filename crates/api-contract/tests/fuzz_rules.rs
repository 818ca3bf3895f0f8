//! Property tests: each validator accepts exactly what an oracle written from the contract's words accepts.
//!
//! The generators build inputs around the bounds (empty, one, max, max + 1 characters; wrong
//! types; unknown fields) so both verdicts come up often, which
//! `generators_produce_both_verdicts_for_every_rule` checks. The oracles are transcribed from
//! sections 2.7, 4.2 and 8 and use none of the crate's rules, so a wrong bound in the crate makes
//! a property fail instead of agreeing with itself.

use std::sync::LazyLock;

use api_contract::input::*;
use api_contract::{ActionId, ApiKey, FieldSpec};
use chrono::{FixedOffset, TimeZone, Utc};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use regex::Regex;
use serde_json::{Map, Value, json};

// ---- Oracles, from the contract's words -------------------------------------------------------

/// 4.2: "string, 8 to 128 characters, matching `[a-zA-Z0-9_:-]+`".
static IDEMPOTENCY_KEY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[a-zA-Z0-9_:-]{8,128}$").unwrap());

/// 2.7: "an https URL whose host is the network's host, optionally with a www. prefix. Its path
/// is /in/<handle>, where the handle has no /, ? or #, with an optional trailing /". Scheme and
/// host are case-insensitive in any URL, and a URI (the field's type) holds no spaces or
/// control characters.
static PROFILE_URL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?i:https)://(?i:(www\.)?network\.com)/in/[^/?#\s\p{Cc}]+/?$").unwrap()
});

fn contract_profile_url(url: &str) -> bool {
    PROFILE_URL.is_match(url)
}

/// A field of an input shape as section 2.7 (and 8) states it: 1 to `max` characters when
/// required, at most `max` when optional.
struct ContractField {
    name: &'static str,
    required: bool,
    max: usize,
    url: bool,
}

const fn field(name: &'static str, required: bool, max: usize) -> ContractField {
    ContractField {
        name,
        required,
        max,
        url: false,
    }
}

const STANDARD_PERSON: &[ContractField] = &[
    field("first_name", true, 100),
    field("last_name", true, 100),
    field("company", true, 200),
    ContractField {
        name: "network_profile_url",
        required: false,
        max: 500,
        url: true,
    },
];
const KEYWORDS: &[ContractField] = &[field("keywords", true, 500)];
const IDENTIFIER: &[ContractField] = &[field("identifier", true, 500)];
const SOCIAL_ID: &[ContractField] = &[field("social_id", true, 500)];
const COMPANY_EMPLOYEES: &[ContractField] =
    &[field("company", true, 200), field("keywords", false, 200)];
const SCHOOL_ALUMNI: &[ContractField] =
    &[field("school", true, 200), field("keywords", false, 200)];
const GROUP_MEMBERS: &[ContractField] = &[field("group_id", true, 100)];
const QUERY: &[ContractField] = &[field("query", true, 200)];

/// Section 2.7's table, keyed by the shape names the registry publishes.
fn contract_fields(shape: &str) -> &'static [ContractField] {
    match shape {
        "standard_person" => STANDARD_PERSON,
        "keywords" => KEYWORDS,
        "identifier" => IDENTIFIER,
        "social_id" => SOCIAL_ID,
        "company_employees" => COMPANY_EMPLOYEES,
        "school_alumni" => SCHOOL_ALUMNI,
        "group_members" => GROUP_MEMBERS,
        "query" => QUERY,
        other => panic!("no shape {other}"),
    }
}

/// Section 4.2's "Required input" column. The metrics action takes "company or keywords": an
/// input that names a company is a company-employees input, anything else a keywords input.
fn contract_shape(action: &str, input: &Map<String, Value>) -> &'static str {
    match action {
        "premium-search-person" => "standard_person",
        "premium-search-people"
        | "premium-search-companies"
        | "network-search-companies"
        | "network-search-content" => "keywords",
        "premium-search-company-employees" => "company_employees",
        "premium-search-company-metrics" if input.contains_key("company") => "company_employees",
        "premium-search-company-metrics" => "keywords",
        "network-search-schools" | "network-search-groups" => "query",
        "network-extract-school-alumnis" => "school_alumni",
        "network-extract-group-members" => "group_members",
        "network-extract-people"
        | "network-extract-company"
        | "network-extract-people-post-activity" => "identifier",
        "network-extract-post-commenters" | "network-extract-post-likers" => "social_id",
        other => panic!("no action {other}"),
    }
}

/// `value` as JSON Schema's `integer`: a number without a fractional part, `5` and `5.0` alike
/// (the OpenAPI 3.1 reading). `null`, `"5"`, `1.5` and `-1` are not counts.
fn as_count(value: &Value) -> Option<u64> {
    let number = value.as_f64()?;
    (number >= 0.0 && number.fract() == 0.0 && number < 1e15).then_some(number as u64)
}

/// Whether `value` is an integer from 1 to `max`. Absent is fine.
fn integer_within(value: Option<&Value>, max: u64) -> bool {
    value.is_none_or(|v| as_count(v).is_some_and(|n| (1..=max).contains(&n)))
}

/// The contract's verdict on a submission body: `Some(input as the run keeps it)` when accepted.
/// Only the standard-person shape refuses unknown input fields; the others ignore them.
fn contract_verdict(action: ActionId, body: &Value) -> Option<Value> {
    let body = body.as_object()?;
    if body
        .keys()
        .any(|k| !matches!(k.as_str(), "input" | "max_results" | "max_credits"))
    {
        return None;
    }
    // 4.2: max_results is 1 to 100 for every action. The registry's per-action ceiling (2.5)
    // caps the run; it does not narrow what a request may ask for.
    if !integer_within(body.get("max_results"), 100)
        || !integer_within(body.get("max_credits"), 300_000)
    {
        return None;
    }
    let input = body.get("input")?.as_object()?;
    let shape = contract_shape(action.as_str(), input);
    let fields = contract_fields(shape);
    if shape == "standard_person" && input.keys().any(|k| !fields.iter().any(|f| f.name == k)) {
        return None;
    }
    let mut kept = Map::new();
    for f in fields {
        match input.get(f.name) {
            None if f.required => return None,
            None => {}
            Some(Value::String(text)) => {
                let chars = text.chars().count();
                let min = usize::from(f.required);
                if !(min..=f.max).contains(&chars) || (f.url && !contract_profile_url(text)) {
                    return None;
                }
                kept.insert(f.name.to_owned(), Value::String(text.clone()));
            }
            // Every field is a string: null, numbers and the rest are not.
            Some(_) => return None,
        }
    }
    Some(Value::Object(kept))
}

// ---- Generators ------------------------------------------------------------------------------

/// Characters outside `[a-zA-Z0-9_:-]`, including look-alikes a Unicode-aware check would let in.
const NOT_IN_KEY_ALPHABET: &[char] = &[' ', '/', '.', '+', '=', '\n', '\0', 'é', 'Ａ', '٣', '😀'];

/// Mostly strings of the allowed alphabet with lengths around 8 and 128; a quarter of them
/// have one disallowed character.
fn idempotency_key() -> impl Strategy<Value = String> {
    let len = prop_oneof![
        4 => 0usize..=140,
        1 => prop::sample::select(vec![7usize, 8, 9, 127, 128, 129]),
    ];
    let alphabet: Vec<char> = ('a'..='z')
        .chain('A'..='Z')
        .chain('0'..='9')
        .chain(['_', ':', '-'])
        .collect();
    mostly_from(len, alphabet, 0.25, NOT_IN_KEY_ALPHABET.to_vec())
}

/// Strings of `len` characters from `alphabet`, where a share `bad_share` has one character
/// (anywhere, or the only one) replaced by one from `bad`.
fn mostly_from(
    len: impl Strategy<Value = usize>,
    alphabet: Vec<char>,
    bad_share: f64,
    bad: Vec<char>,
) -> impl Strategy<Value = String> {
    let bad = prop::option::weighted(
        bad_share,
        (any::<prop::sample::Index>(), prop::sample::select(bad)),
    );
    (
        len.prop_flat_map(move |n| {
            prop::collection::vec(prop::sample::select(alphabet.clone()), n)
        }),
        bad,
    )
        .prop_map(|(mut chars, bad)| {
            if let Some((at, c)) = bad {
                match chars.len() {
                    0 => chars.push(c),
                    n => chars[at.index(n)] = c,
                }
            }
            chars.into_iter().collect()
        })
}

/// A profile URL from parts: scheme, host, path prefix, handle and tail, each usually right.
/// Long handles put the URL on both sides of the 500-character bound.
fn profile_url() -> impl Strategy<Value = String> {
    let scheme = prop_oneof![
        6 => Just("https"),
        1 => Just("HTTPS"),
        1 => Just("Https"),
        1 => Just("http"),
        1 => Just("ftp"),
    ];
    let host = prop_oneof![
        8 => Just("network.com"),
        6 => Just("www.network.com"),
        2 => Just("WWW.Network.COM"),
        1 => Just("evil.com"),
        1 => Just("network.com.evil.com"),
        1 => Just("evilnetwork.com"),
        1 => Just("www.evil.com"),
        1 => Just("wwwnetwork.com"),
        1 => Just("ww.network.com"),
        1 => Just("www.www.network.com"),
        1 => Just(""),
    ];
    let path = prop_oneof![
        20 => Just("/in/"),
        1 => Just("/in"),
        1 => Just("/IN/"),
        1 => Just("/company/"),
        1 => Just("/"),
        1 => Just(""),
    ];
    let handle_chars: Vec<char> = ('a'..='z')
        .chain('0'..='9')
        .chain(['-', '_', '%', '.', 'é'])
        .collect();
    let handle_len = prop_oneof![3 => 0usize..12, 1 => 465usize..=480];
    let handle = mostly_from(
        handle_len,
        handle_chars,
        0.2,
        vec!['/', '?', '#', ' ', '\t', '\u{7f}'],
    );
    let tail = prop_oneof![
        6 => Just(""),
        3 => Just("/"),
        1 => Just("//"),
        1 => Just("?trk=1"),
        1 => Just("#about"),
    ];
    (scheme, host, path, handle, tail)
        .prop_map(|(s, h, p, handle, t)| format!("{s}://{h}{p}{handle}{t}"))
}

fn not_a_string() -> impl Strategy<Value = Value> {
    prop::sample::select(vec![
        Value::Null,
        json!(7),
        json!(true),
        json!(1.5),
        json!([]),
        json!(["a"]),
        json!({ "text": "a" }),
    ])
}

/// Text of exactly `len` characters, in a one- to four-byte character: bounds count characters.
fn text_of(len: usize) -> BoxedStrategy<Value> {
    prop::sample::select(vec!['a', 'é', '中', '😀', ' '])
        .prop_map(move |c| Value::String(std::iter::repeat_n(c, len).collect()))
        .boxed()
}

/// Picks among the options with a weight above zero (proptest refuses a zero weight).
fn weighted<T: std::fmt::Debug + 'static>(
    options: Vec<(u32, BoxedStrategy<T>)>,
) -> BoxedStrategy<T> {
    prop::strategy::Union::new_weighted(options.into_iter().filter(|(w, _)| *w > 0).collect())
        .boxed()
}

/// How often a generator picks what is likely refused: 0 never, so a "quiet" submission is
/// usually accepted and the acceptance side of each rule is exercised too.
type Noise = u32;

/// A value for `spec`, or `None` to leave the field out: lengths at and inside the bounds, and
/// with `noise` also just outside them, missing or not a string.
fn field_value(spec: &'static FieldSpec, noise: Noise) -> BoxedStrategy<Option<Value>> {
    let max = spec.max_len;
    let url = spec.kind == FieldKind::ProfileUrl;
    // What is fine for an optional text field (absent, empty) is a refusal for a required one.
    let optional_weight = if spec.required { noise } else { 3 };
    let in_bounds = if url { noise } else { 3 };
    let some = |s: BoxedStrategy<Value>| s.prop_map(Some).boxed();
    weighted(vec![
        (optional_weight, Just(None).boxed()),
        (if url { noise } else { optional_weight }, some(text_of(0))),
        (in_bounds, some(text_of(1))),
        (in_bounds, some(text_of(max))),
        (in_bounds, some((2..max).prop_flat_map(text_of).boxed())),
        (2 * noise, some(text_of(max + 1))),
        (noise, some(not_a_string().boxed())),
        (
            if url { 6 } else { 0 },
            some(profile_url().prop_map(Value::String).boxed()),
        ),
    ])
}

/// An `input` object for one of `action`'s shapes, sometimes with an unknown field or one of
/// another shape.
fn input_for(action: ActionId, noise: Noise) -> impl Strategy<Value = Map<String, Value>> {
    prop::sample::select(action.input_shapes()).prop_flat_map(move |shape| {
        let fields: Vec<_> = shape
            .fields()
            .iter()
            .map(|spec| field_value(spec, noise).prop_map(move |v| (spec.name, v)))
            .collect();
        // Not noise: only the standard person refuses an extra field, the other shapes ignore it.
        let extra = prop::option::weighted(
            0.25,
            (
                prop::sample::select(vec![
                    "title", "Keywords", "note", "company", "keywords", "school",
                ]),
                prop_oneof![Just(json!("x")), Just(json!(3))],
            ),
        );
        (fields, extra).prop_map(|(fields, extra)| {
            let mut input: Map<String, Value> = fields
                .into_iter()
                .filter_map(|(name, v)| Some((name.to_owned(), v?)))
                .collect();
            if let Some((name, value)) = extra {
                input.insert(name.to_owned(), value);
            }
            input
        })
    })
}

/// `max_results` / `max_credits`: absent, 1, `ceiling`, `limit`, `ceiling` written as `5.0`, or
/// with `noise` also 0, one past either bound, 300000 and 300001, negative, fractional, past
/// `u64`, a string or null.
fn bound_value(ceiling: u64, limit: u64, noise: Noise) -> BoxedStrategy<Option<Value>> {
    weighted(vec![
        (4, Just(None).boxed()),
        (
            6,
            prop::sample::select(vec![1, ceiling, limit])
                .prop_map(|n| Some(json!(n)))
                .boxed(),
        ),
        (2, (1..=ceiling).prop_map(|n| Some(json!(n))).boxed()),
        (1, (1..=ceiling).prop_map(|n| Some(json!(n as f64))).boxed()),
        (
            2 * noise,
            prop::sample::select(vec![
                json!(0),
                json!(ceiling + 1),
                json!(limit + 1),
                json!(300_000),
                json!(300_001),
                json!(-1),
                json!(1.5),
                json!(-0.0),
                json!(1e20),
                json!("10"),
                Value::Null,
            ])
            .prop_map(Some)
            .boxed(),
        ),
    ])
}

/// An action (the standard person, with the most rules, more often), the registry ceiling its
/// run is capped at, and a body for it.
fn submission() -> impl Strategy<Value = (ActionId, u32, Value)> {
    let action = prop_oneof![
        4 => Just(ActionId::PremiumSearchPerson),
        15 => prop::sample::select(ActionId::ALL[1..].to_vec()),
    ];
    let ceiling = |a: ActionId| prop_oneof![3 => Just(a.sandbox_max_results()), 1 => prop::sample::select(vec![1u32, 50, 100, 250])];
    let noise = prop::sample::select(vec![0, 1, 3]);
    (action, noise)
        .prop_flat_map(move |(a, noise)| (Just(a), ceiling(a), Just(noise)))
        .prop_flat_map(|(action, ceiling, noise)| {
            let input = weighted(vec![
                (
                    30,
                    input_for(action, noise)
                        .prop_map(Value::Object)
                        .prop_map(Some)
                        .boxed(),
                ),
                (noise, Just(Some(json!("keywords"))).boxed()),
                (noise, Just(None).boxed()),
            ]);
            let typo = weighted(vec![
                (30, Just(None).boxed()),
                (noise, Just(Some(("max_result", json!(5)))).boxed()),
            ]);
            (
                Just(action),
                Just(ceiling),
                input,
                bound_value(u64::from(ceiling.min(100)), 100, noise),
                bound_value(3_000, 300_000, noise),
                typo,
            )
        })
        .prop_map(|(action, ceiling, input, max_results, max_credits, typo)| {
            let mut body = Map::new();
            let parts = [
                ("input", input),
                ("max_results", max_results),
                ("max_credits", max_credits),
            ];
            for (name, value) in parts {
                if let Some(value) = value {
                    body.insert(name.to_owned(), value);
                }
            }
            if let Some((name, value)) = typo {
                body.insert(name.to_owned(), value);
            }
            (action, ceiling, Value::Object(body))
        })
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (0u64..=400).prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        ".{0,40}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            prop::collection::btree_map(
                prop_oneof![
                    Just("input".to_owned()),
                    Just("max_results".to_owned()),
                    Just("max_credits".to_owned()),
                    Just("keywords".to_owned()),
                    Just("company".to_owned()),
                    Just("first_name".to_owned()),
                    ".{0,12}"
                ],
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn check_submission(action: ActionId, ceiling: u32, body: &Value) -> Result<(), TestCaseError> {
    let verdict = Submission::validate(action, body);
    let expected = contract_verdict(action, body);
    prop_assert_eq!(
        verdict.is_ok(),
        expected.is_some(),
        "{} (ceiling {}) {}: {:?}",
        action,
        ceiling,
        body,
        verdict
    );
    match (verdict, expected) {
        (Ok(sub), Some(kept)) => {
            prop_assert_eq!(sub.action, action);
            prop_assert_eq!(serde_json::to_value(&sub.input).unwrap(), kept);
            prop_assert_eq!(
                sub.max_results.map(u64::from),
                as_count(&body["max_results"])
            );
            prop_assert_eq!(sub.max_credits, as_count(&body["max_credits"]));
            // The run is sized by the smaller of the request and the ceiling.
            let effective = sub.effective_max_results(ceiling);
            let asked = as_count(&body["max_results"]).unwrap_or(u64::from(ceiling));
            prop_assert_eq!(u64::from(effective), asked.min(u64::from(ceiling)).min(100));
        }
        (Err(errors), _) => prop_assert!(!errors.is_empty(), "a refusal names a rule"),
        _ => unreachable!(),
    }
    Ok(())
}

// ---- Properties ------------------------------------------------------------------------------

/// Enough cases for every action to see both verdicts, and a cap on shrinking so a failure is
/// reported in seconds rather than minutes (the bodies hold strings of up to 501 characters).
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        max_shrink_iters: 400,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(1500))]

    #[test]
    fn submissions_are_accepted_exactly_when_the_contract_allows(
        (action, ceiling, body) in submission()
    ) {
        check_submission(action, ceiling, &body)?;
    }

    #[test]
    fn idempotency_keys_are_accepted_exactly_when_the_contract_allows(key in idempotency_key()) {
        prop_assert_eq!(
            validate_idempotency_key(&key).is_ok(),
            IDEMPOTENCY_KEY.is_match(&key),
            "{:?}", key
        );
    }

    #[test]
    fn profile_urls_are_accepted_exactly_when_the_contract_allows(url in profile_url()) {
        let format_ok = contract_profile_url(&url);
        prop_assert_eq!(validate_network_profile_url(&url).is_ok(), format_ok, "{}", url);
        // In a submission the 500-character bound applies as well.
        let body = json!({ "input": {
            "first_name": "Ada", "last_name": "Lovelace", "company": "Acme", "network_profile_url": url
        }});
        let sub = Submission::validate(ActionId::PremiumSearchPerson, &body);
        prop_assert_eq!(sub.is_ok(), format_ok && url.chars().count() <= 500, "{}", url);
    }
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn arbitrary_json_bodies_are_judged_like_the_contract_judges_them(
        body in json_value(),
        input in json_value(),
        action in prop::sample::select(ActionId::ALL.to_vec()),
    ) {
        check_submission(action, action.sandbox_max_results(), &body)?;
        check_submission(action, 100, &json!({ "input": input }))?;
    }

    #[test]
    fn dates_are_written_with_milliseconds_in_z_and_read_from_any_offset(
        millis in 0i64..253_402_300_799_000,
        sub_milli_nanos in 0u32..1_000_000,
        offset_minutes in -(23 * 60 + 59)..=(23 * 60 + 59),
    ) {
        static WIRE: LazyLock<Regex> =
            LazyLock::new(|| Regex::new(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$").unwrap());
        let at_milli = Utc.timestamp_millis_opt(millis).unwrap();
        let at = at_milli + chrono::Duration::nanoseconds(sub_milli_nanos.into());
        let key = ApiKey { id: "k".into(), name: "n".into(), prefix: "p".into(), created_at: at, revoked_at: None };
        let json = serde_json::to_value(&key).unwrap();
        let wire = json["created_at"].as_str().unwrap();
        prop_assert!(WIRE.is_match(wire), "{}", wire);
        let back: ApiKey = serde_json::from_value(json.clone()).unwrap();
        prop_assert_eq!(back.created_at, at_milli, "{}", wire);

        let offset = FixedOffset::east_opt(offset_minutes * 60).unwrap();
        let elsewhere = at.with_timezone(&offset).to_rfc3339();
        let read: ApiKey = serde_json::from_value(json!({
            "id": "k", "name": "n", "prefix": "p", "created_at": wire, "revoked_at": elsewhere
        })).unwrap();
        prop_assert_eq!(read.revoked_at, Some(at), "{}", elsewhere);
    }
}

/// The properties above would hold vacuously if their generators only ever produced one
/// verdict; this samples them and checks every rule sees both acceptance and refusal.
#[test]
fn generators_produce_both_verdicts_for_every_rule() {
    let mut runner = TestRunner::deterministic();
    let mut sample = |strategy: &dyn Fn(&mut TestRunner) -> bool, n: usize| {
        let accepted = (0..n).filter(|_| strategy(&mut runner)).count();
        (accepted, n - accepted)
    };
    let keys = idempotency_key();
    let (ok, bad) = sample(
        &|r| IDEMPOTENCY_KEY.is_match(&keys.new_tree(r).unwrap().current()),
        400,
    );
    assert!(
        ok >= 100 && bad >= 100,
        "keys: {ok} accepted, {bad} refused"
    );

    let urls = profile_url();
    let (ok, bad) = sample(
        &|r| {
            let url = urls.new_tree(r).unwrap().current();
            contract_profile_url(&url) && url.chars().count() <= 500
        },
        400,
    );
    assert!(ok >= 60 && bad >= 60, "urls: {ok} accepted, {bad} refused");

    let long_valid = (0..400)
        .map(|_| urls.new_tree(&mut runner).unwrap().current())
        .filter(|u| contract_profile_url(u))
        .map(|u| u.chars().count())
        .collect::<Vec<_>>();
    assert!(
        long_valid.iter().any(|&n| n > 500) && long_valid.iter().any(|&n| (480..=500).contains(&n))
    );

    let submissions = submission();
    let mut verdicts: std::collections::HashMap<ActionId, (usize, usize)> = Default::default();
    let mut accepted_above_ceiling = 0;
    for _ in 0..3000 {
        let (action, ceiling, body) = submissions.new_tree(&mut runner).unwrap().current();
        let entry = verdicts.entry(action).or_default();
        match contract_verdict(action, &body) {
            Some(_) => {
                entry.0 += 1;
                let asked = as_count(&body["max_results"]).unwrap_or(0);
                accepted_above_ceiling += usize::from(asked > u64::from(ceiling.min(100)));
            }
            None => entry.1 += 1,
        }
    }
    assert!(
        accepted_above_ceiling >= 30,
        "{accepted_above_ceiling} accepted bodies ask for more than the ceiling"
    );
    // The one rule only the standard person has: bodies refused solely for an unknown field.
    let refused_only_for_an_extra_field = (0..3000)
        .filter_map(|_| {
            let (action, _, body) = submissions.new_tree(&mut runner).unwrap().current();
            (action == ActionId::PremiumSearchPerson).then_some(body)
        })
        .filter(|body| {
            let mut known = body.clone();
            let Some(input) = known.get_mut("input").and_then(Value::as_object_mut) else {
                return false;
            };
            input.retain(|k, _| STANDARD_PERSON.iter().any(|f| f.name == k));
            let person = ActionId::PremiumSearchPerson;
            contract_verdict(person, body).is_none() && contract_verdict(person, &known).is_some()
        })
        .count();
    assert!(
        refused_only_for_an_extra_field >= 10,
        "{refused_only_for_an_extra_field} person bodies refused only for an extra field"
    );
    for action in ActionId::ALL {
        let (ok, bad) = verdicts.get(&action).copied().unwrap_or_default();
        assert!(
            ok >= 30 && bad >= 30,
            "{action}: {ok} accepted, {bad} refused"
        );
    }
}

/// Hand-picked bodies the oracle must judge as the contract's tables do, so a wrong oracle
/// cannot pass the properties by agreeing with a wrong validator.
#[test]
fn the_oracle_reads_the_contract_as_written() {
    let ok = |action: ActionId, body: Value| contract_verdict(action, &body).is_some();
    let person = |extra: Value| {
        let mut input = json!({ "first_name": "A", "last_name": "B", "company": "C" });
        input
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        json!({ "input": input })
    };
    assert!(ok(ActionId::PremiumSearchPerson, person(json!({}))));
    assert!(!ok(
        ActionId::PremiumSearchPerson,
        person(json!({ "title": "CTO" }))
    ));
    assert!(!ok(
        ActionId::PremiumSearchPerson,
        person(json!({ "network_profile_url": null }))
    ));
    assert!(ok(
        ActionId::PremiumSearchPerson,
        person(json!({ "network_profile_url": "https://www.network.com/in/ada/" }))
    ));
    assert!(!ok(
        ActionId::PremiumSearchPerson,
        person(json!({ "network_profile_url": "https://network.com/in/ada?x" }))
    ));
    assert!(ok(
        ActionId::PremiumSearchPeople,
        json!({ "input": { "keywords": "k", "title": 1 } })
    ));
    assert!(ok(
        ActionId::PremiumSearchPeople,
        json!({ "input": { "keywords": "é".repeat(500) } })
    ));
    assert!(!ok(
        ActionId::PremiumSearchPeople,
        json!({ "input": { "keywords": "é".repeat(501) } })
    ));
    assert!(!ok(
        ActionId::PremiumSearchPeople,
        json!({ "input": { "keywords": "" } })
    ));
    assert!(ok(
        ActionId::PremiumSearchCompanyMetrics,
        json!({ "input": { "company": "Acme" } })
    ));
    assert!(ok(
        ActionId::PremiumSearchCompanyMetrics,
        json!({ "input": { "keywords": "k".repeat(500) } })
    ));
    assert!(!ok(
        ActionId::PremiumSearchCompanyMetrics,
        json!({ "input": { "company": "Acme", "keywords": "k".repeat(201) } })
    ));
    assert!(!ok(
        ActionId::PremiumSearchCompanyMetrics,
        json!({ "input": { "school": "MIT" } })
    ));
    assert!(ok(
        ActionId::PremiumSearchCompanyEmployees,
        json!({ "input": { "company": "Acme", "keywords": "" } })
    ));
    assert!(ok(
        ActionId::NetworkSearchContent,
        json!({ "input": { "keywords": "k" }, "max_results": 50, "max_credits": 300000 })
    ));
    // Above the action's ceiling (50 here, 1 for an enrichment) but within 1 to 100.
    assert!(ok(
        ActionId::NetworkSearchContent,
        json!({ "input": { "keywords": "k" }, "max_results": 51 })
    ));
    assert!(ok(
        ActionId::NetworkExtractPeople,
        json!({ "input": { "identifier": "ada" }, "max_results": 100 })
    ));
    for bad in [
        json!({ "max_results": 101 }),
        json!({ "max_results": 0 }),
        json!({ "max_results": 1.5 }),
        json!({ "max_credits": 300001 }),
        json!({ "max_credits": null }),
        json!({ "max_results": "5" }),
    ] {
        let mut body = json!({ "input": { "keywords": "k" } });
        body.as_object_mut()
            .unwrap()
            .extend(bad.as_object().unwrap().clone());
        assert!(!ok(ActionId::NetworkSearchContent, body.clone()), "{body}");
    }
    assert!(IDEMPOTENCY_KEY.is_match("console:6f1c-4e_2A"));
    assert!(!IDEMPOTENCY_KEY.is_match("abcdefg") && !IDEMPOTENCY_KEY.is_match("abcdéfgh"));
    assert!(contract_profile_url("HTTPS://WWW.network.com/in/ada"));
    assert!(!contract_profile_url("https://network.com.evil.com/in/ada"));
    assert!(!contract_profile_url("https://network.com/in/"));
}
