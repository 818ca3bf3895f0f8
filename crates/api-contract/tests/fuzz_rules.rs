//! Property tests: no input makes a validator panic, and accepted input really satisfies the rules.

use api_contract::input::*;
use api_contract::{ActionId, Run};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        ".{0,600}".prop_map(Value::from),
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
                    Just("first_name".to_owned()),
                    Just("company".to_owned()),
                    Just("network_profile_url".to_owned()),
                    ".{0,12}"
                ],
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn submissions_never_panic_and_accepted_ones_keep_the_bounds(body in json_value(), action in 0usize..16) {
        let action = ActionId::ALL[action];
        if let Ok(sub) = Submission::validate(action, action.sandbox_max_results(), &body) {
            let max = sub.effective_max_results(action.sandbox_max_results());
            prop_assert!((1..=action.sandbox_max_results()).contains(&max));
            prop_assert!(sub.max_credits.is_none_or(|c| (1..=300_000).contains(&c)));
        }
    }

    #[test]
    fn wrapped_inputs_never_panic(input in json_value(), action in 0usize..16) {
        let action = ActionId::ALL[action];
        let _ = Submission::validate(action, 100, &json!({ "input": input }));
    }

    #[test]
    fn profile_urls_never_panic_and_accepted_ones_are_https_on_the_network(url in ".{0,80}") {
        if validate_network_profile_url(&url).is_ok() {
            prop_assert!(url.starts_with("https://"));
            prop_assert!(url.to_ascii_lowercase().contains("network.com/in/"));
        }
    }

    #[test]
    fn accepted_idempotency_keys_match_the_rule(key in "[ -~é]{0,140}") {
        if validate_idempotency_key(&key).is_ok() {
            prop_assert!((8..=128).contains(&key.len()));
            prop_assert!(key.bytes().all(|b| b.is_ascii_alphanumeric() || b"_:-".contains(&b)));
        }
    }

    #[test]
    fn decoding_arbitrary_json_as_a_run_never_panics(value in json_value()) {
        let _ = serde_json::from_value::<Run>(value);
    }
}
