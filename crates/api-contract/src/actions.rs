//! The 16 actions in the order of the published enumeration, with their input shapes and costs.

use crate::input::{FieldSpec, InputShape};
use crate::types::ActionEntry;

/// How the console groups actions for people; the API itself has no groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ActionGroup {
    PremiumSearch,
    NetworkSearch,
    ExtractionEnrichment,
}

impl ActionGroup {
    pub const ALL: [ActionGroup; 3] = [
        ActionGroup::PremiumSearch,
        ActionGroup::NetworkSearch,
        ActionGroup::ExtractionEnrichment,
    ];

    pub const fn label(self) -> &'static str {
        match self {
            ActionGroup::PremiumSearch => "Premium search",
            ActionGroup::NetworkSearch => "Network search",
            ActionGroup::ExtractionEnrichment => "Extraction and enrichment",
        }
    }
}

/// One of the 16 action ids of the contract (section 4.2); serialised as its published id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(into = "&'static str", try_from = "String")]
pub enum ActionId {
    PremiumSearchPerson,
    PremiumSearchPeople,
    PremiumSearchCompanyEmployees,
    PremiumSearchCompanyMetrics,
    PremiumSearchCompanies,
    NetworkSearchCompanies,
    NetworkSearchSchools,
    NetworkSearchGroups,
    NetworkExtractSchoolAlumnis,
    NetworkExtractGroupMembers,
    NetworkExtractPeople,
    NetworkExtractCompany,
    NetworkExtractPeoplePostActivity,
    NetworkSearchContent,
    NetworkExtractPostCommenters,
    NetworkExtractPostLikers,
}

impl ActionId {
    /// Every action, in the order of the published enumeration.
    pub const ALL: [ActionId; 16] = [
        ActionId::PremiumSearchPerson,
        ActionId::PremiumSearchPeople,
        ActionId::PremiumSearchCompanyEmployees,
        ActionId::PremiumSearchCompanyMetrics,
        ActionId::PremiumSearchCompanies,
        ActionId::NetworkSearchCompanies,
        ActionId::NetworkSearchSchools,
        ActionId::NetworkSearchGroups,
        ActionId::NetworkExtractSchoolAlumnis,
        ActionId::NetworkExtractGroupMembers,
        ActionId::NetworkExtractPeople,
        ActionId::NetworkExtractCompany,
        ActionId::NetworkExtractPeoplePostActivity,
        ActionId::NetworkSearchContent,
        ActionId::NetworkExtractPostCommenters,
        ActionId::NetworkExtractPostLikers,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ActionId::PremiumSearchPerson => "premium-search-person",
            ActionId::PremiumSearchPeople => "premium-search-people",
            ActionId::PremiumSearchCompanyEmployees => "premium-search-company-employees",
            ActionId::PremiumSearchCompanyMetrics => "premium-search-company-metrics",
            ActionId::PremiumSearchCompanies => "premium-search-companies",
            ActionId::NetworkSearchCompanies => "network-search-companies",
            ActionId::NetworkSearchSchools => "network-search-schools",
            ActionId::NetworkSearchGroups => "network-search-groups",
            ActionId::NetworkExtractSchoolAlumnis => "network-extract-school-alumnis",
            ActionId::NetworkExtractGroupMembers => "network-extract-group-members",
            ActionId::NetworkExtractPeople => "network-extract-people",
            ActionId::NetworkExtractCompany => "network-extract-company",
            ActionId::NetworkExtractPeoplePostActivity => "network-extract-people-post-activity",
            ActionId::NetworkSearchContent => "network-search-content",
            ActionId::NetworkExtractPostCommenters => "network-extract-post-commenters",
            ActionId::NetworkExtractPostLikers => "network-extract-post-likers",
        }
    }

    /// Parses a published action id; `None` for anything else.
    pub fn parse(id: &str) -> Option<ActionId> {
        ActionId::ALL.into_iter().find(|a| a.as_str() == id)
    }

    /// The purpose column of the contract's action table.
    pub fn purpose(self) -> &'static str {
        match self {
            ActionId::PremiumSearchPerson => "Standard person lookup",
            ActionId::PremiumSearchPeople => "Search people",
            ActionId::PremiumSearchCompanyEmployees => "Search company employees",
            ActionId::PremiumSearchCompanyMetrics => "Count search results (metrics)",
            ActionId::PremiumSearchCompanies => "Search accounts (premium search)",
            ActionId::NetworkSearchCompanies => "Search companies",
            ActionId::NetworkSearchSchools => "Search schools and universities",
            ActionId::NetworkSearchGroups => "Search groups",
            ActionId::NetworkExtractSchoolAlumnis => "Extract school alumni",
            ActionId::NetworkExtractGroupMembers => "Extract group members",
            ActionId::NetworkExtractPeople => "Enrich a profile",
            ActionId::NetworkExtractCompany => "Enrich a company",
            ActionId::NetworkExtractPeoplePostActivity => "Get profile posts",
            ActionId::NetworkSearchContent => "Search posts",
            ActionId::NetworkExtractPostCommenters => "Get post comments",
            ActionId::NetworkExtractPostLikers => "Get post reactions",
        }
    }

    pub fn group(self) -> ActionGroup {
        let id = self.as_str();
        if id.starts_with("premium-") {
            ActionGroup::PremiumSearch
        } else if id.starts_with("network-search-") {
            ActionGroup::NetworkSearch
        } else {
            ActionGroup::ExtractionEnrichment
        }
    }

    /// The input shapes the action accepts. Only the metrics action takes more than one:
    /// the contract gives its input as "company or keywords".
    pub fn input_shapes(self) -> &'static [InputShape] {
        use InputShape::*;
        match self {
            ActionId::PremiumSearchPerson => &[StandardPerson],
            ActionId::PremiumSearchPeople => &[Keywords],
            ActionId::PremiumSearchCompanyEmployees => &[CompanyEmployees],
            ActionId::PremiumSearchCompanyMetrics => &[CompanyEmployees, Keywords],
            ActionId::PremiumSearchCompanies => &[Keywords],
            ActionId::NetworkSearchCompanies => &[Keywords],
            ActionId::NetworkSearchSchools => &[Query],
            ActionId::NetworkSearchGroups => &[Query],
            ActionId::NetworkExtractSchoolAlumnis => &[SchoolAlumni],
            ActionId::NetworkExtractGroupMembers => &[GroupMembers],
            ActionId::NetworkExtractPeople => &[Identifier],
            ActionId::NetworkExtractCompany => &[Identifier],
            ActionId::NetworkExtractPeoplePostActivity => &[Identifier],
            ActionId::NetworkSearchContent => &[Keywords],
            ActionId::NetworkExtractPostCommenters => &[SocialId],
            ActionId::NetworkExtractPostLikers => &[SocialId],
        }
    }

    /// The field `name` of the action's input, from whichever of its shapes has it (a name is
    /// one kind of value in every shape: tests/input_rules.rs); `None` for a field it does not take.
    pub fn input_field_named(self, name: &str) -> Option<&'static FieldSpec> {
        self.input_shapes()
            .iter()
            .flat_map(|shape| shape.fields())
            .find(|field| field.name == name)
    }

    /// The registry's `input_key`: the name of the shape, or `company_or_keywords` for metrics.
    pub fn input_key(self) -> &'static str {
        match self.input_shapes() {
            [one] => one.name(),
            _ => "company_or_keywords",
        }
    }

    /// The registry's `input_keys`: the fields the action requires. `None` for metrics,
    /// where neither `company` nor `keywords` is required on its own.
    pub fn required_input_keys(self) -> Option<Vec<String>> {
        match self.input_shapes() {
            [one] => Some(
                one.fields()
                    .iter()
                    .filter(|f| f.required)
                    .map(|f| f.name.to_owned())
                    .collect(),
            ),
            _ => None,
        }
    }

    /// Credits charged per returned record (section 4.2, "Credit cost").
    pub fn credits_per_record(self) -> u64 {
        match self {
            ActionId::NetworkExtractPeople => 20,
            _ => 1,
        }
    }

    /// The contract's wording of the cost, for people.
    pub fn cost_rule(self) -> &'static str {
        match self {
            ActionId::PremiumSearchPerson => "1 credit per match",
            ActionId::PremiumSearchCompanyMetrics => "1 credit per query",
            ActionId::NetworkExtractPeople => "20 credits per enriched profile",
            _ => "1 credit per result",
        }
    }

    /// The per-action result ceiling this project's sandbox publishes in its registry.
    /// The contract leaves the values unpublished; enrichments and metrics return one record.
    pub fn sandbox_max_results(self) -> u32 {
        match self {
            ActionId::PremiumSearchPerson => 10,
            ActionId::PremiumSearchCompanyMetrics
            | ActionId::NetworkExtractPeople
            | ActionId::NetworkExtractCompany => 1,
            ActionId::NetworkSearchSchools | ActionId::NetworkSearchGroups => 50,
            ActionId::NetworkSearchCompanies | ActionId::NetworkSearchContent => 50,
            _ => 100,
        }
    }

    /// The registry entry the sandbox serves for this action.
    pub fn sandbox_registry_entry(self) -> ActionEntry {
        ActionEntry {
            id: self.as_str().to_owned(),
            input_keys: self.required_input_keys(),
            input_key: self.input_key().to_owned(),
            credits_per_record: self.credits_per_record(),
            max_results: self.sandbox_max_results(),
        }
    }
}

impl std::fmt::Display for ActionId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<ActionId> for &'static str {
    fn from(action: ActionId) -> &'static str {
        action.as_str()
    }
}

impl TryFrom<String> for ActionId {
    type Error = String;

    fn try_from(id: String) -> Result<ActionId, String> {
        ActionId::parse(&id).ok_or_else(|| format!("unknown action id `{id}`"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_order_matches_the_contract_table() {
        let ids: Vec<&str> = ActionId::ALL.iter().map(|a| a.as_str()).collect();
        assert_eq!(
            ids,
            [
                "premium-search-person",
                "premium-search-people",
                "premium-search-company-employees",
                "premium-search-company-metrics",
                "premium-search-companies",
                "network-search-companies",
                "network-search-schools",
                "network-search-groups",
                "network-extract-school-alumnis",
                "network-extract-group-members",
                "network-extract-people",
                "network-extract-company",
                "network-extract-people-post-activity",
                "network-search-content",
                "network-extract-post-commenters",
                "network-extract-post-likers",
            ]
        );
    }

    #[test]
    fn every_id_parses_back_and_unknown_ids_do_not() {
        for a in ActionId::ALL {
            assert_eq!(ActionId::parse(a.as_str()), Some(a));
        }
        assert_eq!(ActionId::parse("premium-search-persons"), None);
        assert_eq!(ActionId::parse(""), None);
    }

    #[test]
    fn required_inputs_match_the_contract_table() {
        let keys = |a: ActionId| a.required_input_keys();
        let v = |s: &[&str]| Some(s.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(
            keys(ActionId::PremiumSearchPerson),
            v(&["first_name", "last_name", "company"])
        );
        assert_eq!(keys(ActionId::PremiumSearchPeople), v(&["keywords"]));
        assert_eq!(
            keys(ActionId::PremiumSearchCompanyEmployees),
            v(&["company"])
        );
        assert_eq!(keys(ActionId::PremiumSearchCompanyMetrics), None);
        assert_eq!(keys(ActionId::NetworkSearchSchools), v(&["query"]));
        assert_eq!(keys(ActionId::NetworkSearchGroups), v(&["query"]));
        assert_eq!(keys(ActionId::NetworkExtractSchoolAlumnis), v(&["school"]));
        assert_eq!(keys(ActionId::NetworkExtractGroupMembers), v(&["group_id"]));
        assert_eq!(keys(ActionId::NetworkExtractPeople), v(&["identifier"]));
        assert_eq!(keys(ActionId::NetworkExtractPostLikers), v(&["social_id"]));
    }

    #[test]
    fn only_profile_enrichment_costs_twenty() {
        for a in ActionId::ALL {
            let expected = if a == ActionId::NetworkExtractPeople {
                20
            } else {
                1
            };
            assert_eq!(a.credits_per_record(), expected, "{a}");
        }
    }

    #[test]
    fn registry_ceilings_stay_within_the_contract_bound() {
        for a in ActionId::ALL {
            assert!((1..=100).contains(&a.sandbox_max_results()), "{a}");
        }
    }

    #[test]
    fn groups_follow_the_id_prefixes() {
        assert_eq!(
            ActionId::PremiumSearchCompanies.group(),
            ActionGroup::PremiumSearch
        );
        assert_eq!(
            ActionId::NetworkSearchContent.group(),
            ActionGroup::NetworkSearch
        );
        assert_eq!(
            ActionId::NetworkExtractPostLikers.group(),
            ActionGroup::ExtractionEnrichment
        );
    }

    #[test]
    fn an_action_id_is_serialised_as_its_published_id() {
        let json = serde_json::to_string(&ActionId::PremiumSearchPeople).unwrap();
        assert_eq!(json, "\"premium-search-people\"");
        assert_eq!(
            serde_json::from_str::<ActionId>(&json).unwrap(),
            ActionId::PremiumSearchPeople
        );
        assert!(serde_json::from_str::<ActionId>("\"no-such-action\"").is_err());
    }
}
