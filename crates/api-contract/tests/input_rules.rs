//! Every bound and format rule of the contract's input shapes and submission body.

use api_contract::input::*;
use api_contract::{ActionId, InputShape};
use serde_json::{Value, json};

fn errors(action: ActionId, body: Value) -> Vec<FieldError> {
    Submission::validate(action, &body).expect_err("should be rejected")
}

fn fields(errs: &[FieldError]) -> Vec<&str> {
    errs.iter().map(|e| e.field.as_str()).collect()
}

/// A field's name means one kind of value in every shape that has it: so an action's field is
/// known by its name (`ActionId::input_field_named`) even where the action takes two shapes.
#[test]
fn a_field_name_is_one_kind_in_every_shape() {
    let mut kinds = std::collections::BTreeMap::new();
    for shape in InputShape::ALL {
        for spec in shape.fields() {
            let first = *kinds.entry(spec.name).or_insert(spec.kind);
            assert_eq!(first, spec.kind, "{} in {}", spec.name, shape.name());
        }
    }
    assert_eq!(
        ActionId::PremiumSearchCompanyMetrics
            .input_field_named("keywords")
            .map(|f| f.kind),
        Some(FieldKind::Words)
    );
    assert_eq!(
        ActionId::NetworkExtractPeople.input_field_named("company"),
        None
    );
}

#[test]
fn length_bounds_of_every_field_are_enforced_in_characters() {
    for shape in InputShape::ALL {
        for spec in shape.fields() {
            let at_max = "é".repeat(spec.max_len);
            let over = "é".repeat(spec.max_len + 1);
            if spec.kind.is_free_text() {
                assert_eq!(
                    check_text(spec, &at_max),
                    None,
                    "{}: {} at max",
                    shape.name(),
                    spec.name
                );
            }
            let msg = check_text(spec, &over).expect("over max is rejected");
            assert!(msg.contains(&spec.max_len.to_string()), "{msg}");
            assert_eq!(
                check_text(spec, "").is_some(),
                spec.required,
                "{}: empty",
                spec.name
            );
        }
    }
}

#[test]
fn bounds_match_section_8() {
    let max = |shape: InputShape, name: &str| {
        shape
            .fields()
            .iter()
            .find(|f| f.name == name)
            .unwrap()
            .max_len
    };
    assert_eq!(max(InputShape::Keywords, "keywords"), 500);
    assert_eq!(max(InputShape::Identifier, "identifier"), 500);
    assert_eq!(max(InputShape::SocialId, "social_id"), 500);
    assert_eq!(max(InputShape::StandardPerson, "first_name"), 100);
    assert_eq!(max(InputShape::StandardPerson, "last_name"), 100);
    assert_eq!(max(InputShape::StandardPerson, "company"), 200);
    assert_eq!(max(InputShape::StandardPerson, "network_profile_url"), 500);
    assert_eq!(max(InputShape::CompanyEmployees, "company"), 200);
    assert_eq!(max(InputShape::CompanyEmployees, "keywords"), 200);
    assert_eq!(max(InputShape::SchoolAlumni, "school"), 200);
    assert_eq!(max(InputShape::SchoolAlumni, "keywords"), 200);
    assert_eq!(max(InputShape::GroupMembers, "group_id"), 100);
    assert_eq!(max(InputShape::Query, "query"), 200);
}

#[test]
fn missing_and_wrongly_typed_fields_are_named() {
    let errs = errors(
        ActionId::PremiumSearchPerson,
        json!({ "input": { "first_name": "Ada", "last_name": 7 } }),
    );
    assert_eq!(fields(&errs), ["input.last_name", "input.company"]);
    assert_eq!(errs[0].message, "must be a string");
    assert_eq!(errs[1].message, "is required");
    // An explicit null is not an omitted field.
    let errs = errors(
        ActionId::PremiumSearchPerson,
        json!({ "input": { "first_name": "A", "last_name": "B", "company": "C", "network_profile_url": null }, "max_results": null, "max_credits": null }),
    );
    assert_eq!(
        fields(&errs),
        ["max_results", "max_credits", "input.network_profile_url"]
    );
    assert_eq!(
        fields(&errors(
            ActionId::PremiumSearchPeople,
            json!({ "input": null })
        )),
        ["input"]
    );
}

#[test]
fn standard_person_rejects_unknown_fields_but_other_shapes_do_not() {
    let errs = errors(
        ActionId::PremiumSearchPerson,
        json!({ "input": { "first_name": "A", "last_name": "B", "company": "C", "title": "CTO" } }),
    );
    assert_eq!(fields(&errs), ["input.title"]);
    assert!(errs[0].message.contains("not allowed"));
    let ok = Submission::validate(
        ActionId::PremiumSearchPeople,
        &json!({ "input": { "keywords": "k", "extra": 1 } }),
    );
    assert!(ok.is_ok());
}

#[test]
fn max_results_and_max_credits_bounds() {
    let base = |extra: Value| {
        let mut body = json!({ "input": { "keywords": "k" } });
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        body
    };
    for bad in [json!(0), json!(101), json!(-1), json!(1.5), json!("10")] {
        let errs = errors(
            ActionId::PremiumSearchPeople,
            base(json!({ "max_results": bad })),
        );
        assert_eq!(fields(&errs), ["max_results"]);
    }
    for bad in [json!(0), json!(300001), json!("5")] {
        let errs = errors(
            ActionId::PremiumSearchPeople,
            base(json!({ "max_credits": bad })),
        );
        assert_eq!(fields(&errs), ["max_credits"]);
    }
    // Every action takes the contract's 1 to 100, whatever its registry ceiling.
    for action in ActionId::ALL {
        for bad in [0, 101] {
            let errs = errors(action, json!({ "input": {}, "max_results": bad }));
            assert!(
                errs.iter()
                    .any(|e| e.field == "max_results"
                        && e.message == "must be an integer from 1 to 100"),
                "{action} {bad}: {errs:?}"
            );
        }
    }
    let ok = Submission::validate(
        ActionId::NetworkSearchContent,
        &base(json!({ "max_results": 50, "max_credits": 300000 })),
    );
    assert_eq!(ok.unwrap().max_results, Some(50));
}

#[test]
fn max_results_above_the_ceiling_is_accepted_and_capped_at_it() {
    // A profile enrichment's ceiling is 1; a uniform 50 (or 100) is still a valid request.
    let enrich = ActionId::NetworkExtractPeople;
    assert_eq!(enrich.sandbox_max_results(), 1);
    for asked in [2, 50, 100] {
        let sub = Submission::validate(
            enrich,
            &json!({ "input": { "identifier": "ada" }, "max_results": asked }),
        )
        .unwrap_or_else(|e| panic!("{asked}: {e:?}"));
        assert_eq!(sub.max_results, Some(asked), "kept as sent");
        assert_eq!(sub.effective_max_results(enrich.sandbox_max_results()), 1);
    }
    let content = Submission::validate(
        ActionId::NetworkSearchContent,
        &json!({ "input": { "keywords": "k" }, "max_results": 60 }),
    )
    .unwrap();
    assert_eq!(content.effective_max_results(50), 50);
    assert_eq!(content.effective_max_results(100), 60);
}

#[test]
fn capped_max_results_is_the_smaller_of_request_and_ceiling() {
    assert_eq!(capped_max_results(None, 1), 1);
    assert_eq!(capped_max_results(None, 50), 50);
    assert_eq!(capped_max_results(None, 500), 100);
    assert_eq!(capped_max_results(Some(50), 1), 1);
    assert_eq!(capped_max_results(Some(7), 10), 7);
    assert_eq!(capped_max_results(Some(10), 10), 10);
    assert_eq!(capped_max_results(Some(100), 500), 100);
}

#[test]
fn body_shape_errors() {
    assert_eq!(
        fields(&errors(ActionId::PremiumSearchPeople, json!([]))),
        ["body"]
    );
    assert_eq!(
        fields(&errors(ActionId::PremiumSearchPeople, json!({}))),
        ["input"]
    );
    assert_eq!(
        fields(&errors(
            ActionId::PremiumSearchPeople,
            json!({ "input": "k" })
        )),
        ["input"]
    );
    assert_eq!(
        fields(&errors(
            ActionId::PremiumSearchPeople,
            json!({ "input": { "keywords": "k" }, "max_result": 5 })
        )),
        ["max_result"]
    );
}

#[test]
fn metrics_takes_company_or_keywords() {
    let errs = errors(
        ActionId::PremiumSearchCompanyMetrics,
        json!({ "input": { "school": "MIT" } }),
    );
    assert_eq!(fields(&errs), ["input"]);
    let errs = errors(
        ActionId::PremiumSearchCompanyMetrics,
        json!({ "input": { "company": "", "keywords": "x" } }),
    );
    assert_eq!(fields(&errs), ["input.company"]);
}

#[test]
fn default_max_results_is_the_action_ceiling() {
    let sub = Submission::validate(
        ActionId::NetworkSearchContent,
        &json!({ "input": { "keywords": "k" } }),
    )
    .unwrap();
    assert_eq!(sub.effective_max_results(50), 50);
    assert_eq!(sub.effective_max_results(500), 100);
}

#[test]
fn network_profile_url_format() {
    for ok in [
        "https://network.com/in/ada",
        "https://www.network.com/in/ada-lovelace/",
        "https://WWW.Network.com/in/%C3%A9",
        "HTTPS://network.com/in/ada",
    ] {
        assert_eq!(validate_network_profile_url(ok), Ok(()), "{ok}");
    }
    for bad in [
        "http://network.com/in/ada",
        "https://evil.com/in/ada",
        "https://network.com.evil.com/in/ada",
        "https://network.com:8443/in/ada",
        "https://user@network.com/in/ada",
        "https://network.com/company/acme",
        "https://network.com/in/",
        "https://network.com/in/ada/posts",
        "https://network.com/in/ada?x=1",
        "https://network.com/in/ada#top",
        "https://network.com/in/a da",
        "javascript:alert(1)",
        "",
    ] {
        assert!(validate_network_profile_url(bad).is_err(), "{bad}");
    }
    // Sent in a body, an empty URL is a bad URL, not an omitted one.
    let errs = errors(
        ActionId::PremiumSearchPerson,
        json!({ "input": { "first_name": "A", "last_name": "B", "company": "C", "network_profile_url": "" } }),
    );
    assert_eq!(fields(&errs), ["input.network_profile_url"]);
}

#[test]
fn idempotency_keys() {
    assert!(validate_idempotency_key("abcdefgh").is_ok());
    assert!(validate_idempotency_key("console:6f1c-4e_2A").is_ok());
    assert!(validate_idempotency_key(&"a".repeat(128)).is_ok());
    assert!(
        validate_idempotency_key("abcdefg")
            .unwrap_err()
            .contains("8 to 128")
    );
    assert!(validate_idempotency_key(&"a".repeat(129)).is_err());
    assert!(
        validate_idempotency_key("abc defgh")
            .unwrap_err()
            .contains("' '")
    );
    assert!(validate_idempotency_key("abcdefgh/").is_err());
    assert!(validate_idempotency_key("ééééééééé").is_err());
}

#[test]
fn key_names() {
    assert!(validate_key_name("ci").is_ok());
    assert!(validate_key_name(&"n".repeat(100)).is_ok());
    assert_eq!(validate_key_name("").unwrap_err().field, "name");
    assert!(validate_key_name(&"n".repeat(101)).is_err());
}
