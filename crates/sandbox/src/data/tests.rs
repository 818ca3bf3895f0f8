//! The data's promises: determinism, paging, chaining ids, clear failures, hostile records.

use super::*;

fn records(outcome: Outcome) -> (Vec<Value>, bool) {
    match outcome {
        Outcome::Records { records, has_more } => (records, has_more),
        Outcome::Failed { code, message } => panic!("{code}: {message}"),
    }
}

fn ident(s: &str) -> RunInput {
    RunInput::Identifier {
        identifier: s.into(),
    }
}

#[test]
fn the_same_input_gives_the_same_records() {
    let input = RunInput::Keywords {
        keywords: "rust".into(),
    };
    assert_eq!(
        generate(ActionId::PremiumSearchPeople, &input, 20),
        generate(ActionId::PremiumSearchPeople, &input, 20)
    );
    let other = RunInput::Keywords {
        keywords: "go".into(),
    };
    assert_ne!(
        generate(ActionId::PremiumSearchPeople, &input, 20),
        generate(ActionId::PremiumSearchPeople, &other, 20)
    );
}

#[test]
fn a_page_is_capped_and_has_more_says_so() {
    let input = RunInput::GroupMembers {
        group_id: "12345".into(),
    };
    let (page, has_more) = records(generate(ActionId::NetworkExtractGroupMembers, &input, 3));
    assert_eq!(page.len(), 3);
    assert!(has_more);
}

#[test]
fn enrichment_then_posts_then_comments_chain() {
    let (profile, _) = records(generate(
        ActionId::NetworkExtractPeople,
        &ident("ada-lovelace"),
        1,
    ));
    let id = profile[0]["network_profile_identifier"].as_str().unwrap();
    assert!(is_profile_identifier(id), "{id}");
    let (posts, _) = records(generate(
        ActionId::NetworkExtractPeoplePostActivity,
        &ident(id),
        100,
    ));
    assert!(!posts.is_empty());
    for p in &posts {
        let sid = p["social_id"].as_str().unwrap();
        let input = RunInput::SocialId {
            social_id: sid.into(),
        };
        records(generate(ActionId::NetworkExtractPostCommenters, &input, 5));
        records(generate(ActionId::NetworkExtractPostLikers, &input, 5));
    }
    // Enriching by the identifier gives back the same identifier.
    let (again, _) = records(generate(ActionId::NetworkExtractPeople, &ident(id), 1));
    assert_eq!(again[0]["network_profile_identifier"], id);
}

/// Every rule of the contract's chaining table holds for the sandbox's records: each record of
/// `from` that the rule reads carries the field, and its value, as returned, is an input `to`
/// accepts and answers with records.
#[test]
fn every_chain_rule_of_the_contract_holds_for_the_records() {
    use api_contract::{CHAIN_RULES, CarriedBy, InputShape};
    for rule in CHAIN_RULES {
        let input = match rule.from.input_shapes() {
            [InputShape::Identifier] => ident("ada-lovelace"),
            [InputShape::Keywords] => RunInput::Keywords {
                keywords: "rust".into(),
            },
            shapes => panic!("no input made for {shapes:?}"),
        };
        let (returned, _) = records(generate(rule.from, &input, 100));
        let read = match rule.carried_by {
            CarriedBy::FirstRecord => &returned[..1],
            CarriedBy::EveryRecord => &returned[..],
        };
        assert!(!read.is_empty(), "{}", rule.from);
        for record in read {
            let value = rule
                .value_in(record)
                .unwrap_or_else(|| panic!("{} record without {}: {record}", rule.from, rule.field));
            let body = serde_json::json!({ "input": { rule.input_field(): value } });
            let submission = api_contract::Submission::validate(rule.to, &body).unwrap();
            records(generate(rule.to, &submission.input, 5));
        }
    }
}

#[test]
fn unknown_identifiers_and_activity_ids_fail_with_clear_codes() {
    let code = |o: Outcome| match o {
        Outcome::Failed { code, .. } => code,
        Outcome::Records { .. } => panic!("expected a failure"),
    };
    assert_eq!(
        code(generate(
            ActionId::NetworkExtractPeople,
            &ident("unknown-person"),
            1
        )),
        "profile_not_found"
    );
    assert_eq!(
        code(generate(
            ActionId::NetworkExtractPeople,
            &ident("Not A Handle"),
            1
        )),
        "profile_not_found"
    );
    let activity = RunInput::SocialId {
        social_id: "7123456789012345678".into(),
    };
    assert_eq!(
        code(generate(ActionId::NetworkExtractPostLikers, &activity, 1)),
        "invalid_social_id"
    );
    let forged = RunInput::SocialId {
        social_id: "urn:network:share:7000000000000000000".into(),
    };
    assert_eq!(
        code(generate(ActionId::NetworkExtractPostLikers, &forged, 1)),
        "post_not_found"
    );
}

#[test]
fn the_word_hostile_returns_hostile_records() {
    let input = RunInput::Keywords {
        keywords: "hostile".into(),
    };
    let (page, _) = records(generate(ActionId::NetworkSearchContent, &input, 50));
    let text = serde_json::to_string(&page).unwrap();
    for needle in [
        "<script>",
        "javascript:",
        "data:text/html",
        "=HYPERLINK",
        "+cmd",
        "@SUM",
        "\u{202e}",
        "🚀",
    ] {
        assert!(text.contains(needle), "{needle}");
    }
    assert!(
        page.iter()
            .any(|r| r["headline"].as_str().is_some_and(|h| h.len() == 10_000))
    );
    assert!(page.iter().any(|r| r["location"].is_object()));
}

#[test]
fn every_action_produces_records_for_a_plain_input() {
    for action in ActionId::ALL {
        let input = match action.input_shapes()[0] {
            api_contract::InputShape::StandardPerson => RunInput::StandardPerson {
                first_name: "Ada".into(),
                last_name: "Lovelace".into(),
                company: "Acme".into(),
                network_profile_url: None,
            },
            api_contract::InputShape::Keywords => RunInput::Keywords {
                keywords: "data".into(),
            },
            api_contract::InputShape::Identifier => ident("ada-lovelace"),
            api_contract::InputShape::SocialId => RunInput::SocialId {
                social_id: social_id(42, "ugcPost"),
            },
            api_contract::InputShape::CompanyEmployees => RunInput::CompanyEmployees {
                company: "Acme".into(),
                keywords: None,
            },
            api_contract::InputShape::SchoolAlumni => RunInput::SchoolAlumni {
                school: "MIT".into(),
                keywords: None,
            },
            api_contract::InputShape::GroupMembers => RunInput::GroupMembers {
                group_id: "42".into(),
            },
            api_contract::InputShape::Query => RunInput::Query {
                query: "data".into(),
            },
        };
        let limit = action.sandbox_max_results() as usize;
        let (page, _) = records(generate(action, &input, limit));
        assert!(page.len() <= limit, "{action}");
    }
}
