//! The contract's chaining (section 4.2, "Chaining actions"), and the only two output fields it
//! names (section 2.1): an enriched profile's `network_profile_identifier` feeds the profile-posts
//! action, and a post's `social_id` (from profile posts or post search) feeds the comments and
//! reactions actions. A field the contract does not name is never chained on.
//!
//! The console's explorer buttons and its chains over a spreadsheet both read [`CHAIN_RULES`];
//! nothing else writes these action ids or field names down again.

use serde_json::Value;

use crate::actions::ActionId;
use crate::input::{FieldSpec, InputShape};

/// `output[0].network_profile_identifier` of a profile enrichment (sections 2.1 and 4.2).
pub const NETWORK_PROFILE_IDENTIFIER: &str = "network_profile_identifier";
/// `social_id` of each post that profile posts and post search return (sections 2.1, 2.7 and
/// 4.2): passed exactly as returned, never derived from an activity id.
pub const SOCIAL_ID: &str = "social_id";

/// Which records of a run carry a chained field, as the contract says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CarriedBy {
    /// Only `output[0]` (an enrichment returns a one-element array).
    FirstRecord,
    /// Each record of the output.
    EveryRecord,
}

/// One link of the contract's chaining: a record of `from` carries `field`, whose value, exactly
/// as returned, is the input of `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChainRule {
    pub from: ActionId,
    /// The output field copied.
    pub field: &'static str,
    pub carried_by: CarriedBy,
    pub to: ActionId,
}

/// Every link the contract describes, in its order.
pub const CHAIN_RULES: [ChainRule; 5] = [
    ChainRule {
        from: ActionId::NetworkExtractPeople,
        field: NETWORK_PROFILE_IDENTIFIER,
        carried_by: CarriedBy::FirstRecord,
        to: ActionId::NetworkExtractPeoplePostActivity,
    },
    ChainRule {
        from: ActionId::NetworkExtractPeoplePostActivity,
        field: SOCIAL_ID,
        carried_by: CarriedBy::EveryRecord,
        to: ActionId::NetworkExtractPostCommenters,
    },
    ChainRule {
        from: ActionId::NetworkExtractPeoplePostActivity,
        field: SOCIAL_ID,
        carried_by: CarriedBy::EveryRecord,
        to: ActionId::NetworkExtractPostLikers,
    },
    ChainRule {
        from: ActionId::NetworkSearchContent,
        field: SOCIAL_ID,
        carried_by: CarriedBy::EveryRecord,
        to: ActionId::NetworkExtractPostCommenters,
    },
    ChainRule {
        from: ActionId::NetworkSearchContent,
        field: SOCIAL_ID,
        carried_by: CarriedBy::EveryRecord,
        to: ActionId::NetworkExtractPostLikers,
    },
];

impl ChainRule {
    /// The rule from `from` into `to`, if the contract chains them.
    pub fn between(from: ActionId, to: ActionId) -> Option<ChainRule> {
        CHAIN_RULES
            .into_iter()
            .find(|rule| rule.from == from && rule.to == to)
    }

    /// The rules out of `from`, in the contract's order.
    pub fn out_of(from: ActionId) -> impl Iterator<Item = ChainRule> {
        CHAIN_RULES
            .into_iter()
            .filter(move |rule| rule.from == from)
    }

    /// The input field of `to` the value goes into: its shape's one field (`identifier` or
    /// `social_id`).
    pub fn input_spec(self) -> &'static FieldSpec {
        match self.to.input_shapes() {
            [shape @ (InputShape::Identifier | InputShape::SocialId)] => &shape.fields()[0],
            shapes => unreachable!("{} takes {shapes:?}, not one id field", self.to),
        }
    }

    /// The name of [`ChainRule::input_spec`].
    pub fn input_field(self) -> &'static str {
        self.input_spec().name
    }

    /// How many records of one run of `from` may feed `to`: one for an enrichment's
    /// `output[0]`, every record otherwise.
    pub fn records_per_run(self, returned: u32) -> u32 {
        match self.carried_by {
            CarriedBy::FirstRecord => returned.min(1),
            CarriedBy::EveryRecord => returned,
        }
    }

    /// The value a record gives `to`: the field as returned, when it is a string that is not
    /// blank. A record without it (or with another type) gives nothing.
    pub fn value_in(self, record: &Value) -> Option<&str> {
        record
            .get(self.field)
            .and_then(Value::as_str)
            .filter(|value| !value.trim().is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_rules_are_the_contracts_three_steps() {
        let pairs: Vec<(&str, &str, &str)> = CHAIN_RULES
            .iter()
            .map(|r| (r.from.as_str(), r.field, r.to.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [
                (
                    "network-extract-people",
                    "network_profile_identifier",
                    "network-extract-people-post-activity"
                ),
                (
                    "network-extract-people-post-activity",
                    "social_id",
                    "network-extract-post-commenters"
                ),
                (
                    "network-extract-people-post-activity",
                    "social_id",
                    "network-extract-post-likers"
                ),
                (
                    "network-search-content",
                    "social_id",
                    "network-extract-post-commenters"
                ),
                (
                    "network-search-content",
                    "social_id",
                    "network-extract-post-likers"
                ),
            ]
        );
    }

    #[test]
    fn every_rule_feeds_a_required_field_of_its_target() {
        for rule in CHAIN_RULES {
            let required = rule.to.required_input_keys().unwrap();
            assert_eq!(required, [rule.input_field()], "{}", rule.to);
        }
    }

    #[test]
    fn nothing_else_chains() {
        for from in ActionId::ALL {
            for to in ActionId::ALL {
                let expected = CHAIN_RULES.iter().any(|r| r.from == from && r.to == to);
                assert_eq!(ChainRule::between(from, to).is_some(), expected);
            }
        }
        assert_eq!(
            ChainRule::out_of(ActionId::NetworkExtractPostLikers).count(),
            0
        );
        assert_eq!(ChainRule::out_of(ActionId::NetworkSearchContent).count(), 2);
    }

    #[test]
    fn values_are_taken_exactly_as_returned() {
        let rule = CHAIN_RULES[1];
        let id = " urn:network:activity:7/x ";
        assert_eq!(rule.value_in(&json!({ "social_id": id })), Some(id));
        assert_eq!(rule.value_in(&json!({ "social_id": "  " })), None);
        assert_eq!(rule.value_in(&json!({ "social_id": 7 })), None);
        assert_eq!(rule.value_in(&json!({ "activity_id": "7" })), None);
        assert_eq!(rule.value_in(&json!("social_id")), None);
    }

    #[test]
    fn an_enrichment_feeds_its_first_record_only() {
        assert_eq!(CHAIN_RULES[0].records_per_run(1), 1);
        assert_eq!(CHAIN_RULES[0].records_per_run(5), 1);
        assert_eq!(CHAIN_RULES[0].records_per_run(0), 0);
        assert_eq!(CHAIN_RULES[1].records_per_run(5), 5);
    }
}
