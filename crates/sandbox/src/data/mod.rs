//! Plausible, deterministic records for each action: the same input always returns the same data.
//!
//! Identifiers that chain between actions are checkable: a `network_profile_identifier` is
//! `ACoAA` + 16 hex digits, a `social_id` is `urn:network:{share|ugcPost|activity}:{19 digits}`
//! whose last digit is a checksum, so the sandbox can tell its own ids from made-up ones.

mod ids;
mod magic;
mod makers;
mod seq;
#[cfg(test)]
mod tests;
mod words;

use api_contract::{ActionId, RunInput};
use serde_json::Value;

pub use ids::{profile_identifier, social_id};
pub use magic::{hostile_records, input_texts};
pub use seq::stable_hash;

use crate::records::{Alumnus, EnrichedCompany, Graduation, SearchMetrics};
use ids::{SocialIdCheck, check_social_id, is_profile_identifier, known_handle, profile_url, slug};
use makers::{comment, company, enriched_profile, group, person, post, reaction, record, school};
use seq::Seq;
use words::{FIRST, LAST, TOPICS};

/// What a run will produce once it finishes.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Records {
        records: Vec<Value>,
        /// More records exist than were returned.
        has_more: bool,
    },
    Failed {
        code: String,
        message: String,
    },
}

fn failed(code: &str, message: String) -> Outcome {
    Outcome::Failed {
        code: code.to_owned(),
        message,
    }
}

/// Makes one record of a result page from the run's sequence.
type RecordMaker = Box<dyn FnMut(&mut Seq) -> Value>;

/// The records a run of `action` with `input` returns, at most `limit` of them.
pub fn generate(action: ActionId, input: &RunInput, limit: usize) -> Outcome {
    let key = serde_json::to_string(input).unwrap_or_default();
    let mut seq = Seq(stable_hash(&[action.as_str(), &key]));
    let texts = input_texts(input);
    let searchish = !matches!(
        action,
        ActionId::NetworkExtractPeople
            | ActionId::NetworkExtractCompany
            | ActionId::PremiumSearchCompanyMetrics
    );
    if searchish && texts.iter().any(|t| t.to_lowercase().contains("hostile")) {
        let total = 12;
        return Outcome::Records {
            records: hostile_records(total.min(limit)),
            has_more: total > limit,
        };
    }
    // How many records exist upstream; a single page of at most `limit` is returned.
    let mut total = |min: u64, spread: u64| (min + seq.below(spread)) as usize;
    let (total, mut make): (usize, RecordMaker) = match (action, input) {
        (
            ActionId::PremiumSearchPerson,
            RunInput::StandardPerson {
                first_name,
                last_name,
                company,
                network_profile_url,
            },
        ) => {
            if company.to_lowercase().starts_with("unknown") {
                return Outcome::Records {
                    records: vec![],
                    has_more: false,
                };
            }
            let matches = if network_profile_url.is_some() {
                1
            } else {
                total(1, 3)
            };
            let (first, last, company) = (first_name.clone(), last_name.clone(), company.clone());
            let url = network_profile_url.clone();
            (
                matches,
                Box::new(move |s: &mut Seq| {
                    let mut match_ = person(s, Some(&company), None);
                    let handle = url.as_deref().and_then(known_handle).unwrap_or_else(|| {
                        format!("{}-{}-{:04x}", slug(&first), slug(&last), s.below(0xffff))
                    });
                    match_.name = format!("{first} {last}");
                    match_.first_name = first.clone();
                    match_.last_name = last.clone();
                    match_.profile_url = profile_url(&handle);
                    match_.public_identifier = handle;
                    record(match_)
                }),
            )
        }
        (ActionId::PremiumSearchPeople, RunInput::Keywords { keywords }) => {
            let hint = keywords.clone();
            (
                total(5, 400),
                Box::new(move |s: &mut Seq| record(person(s, None, Some(&hint)))),
            )
        }
        (
            ActionId::PremiumSearchCompanyEmployees,
            RunInput::CompanyEmployees { company, keywords },
        ) => {
            let (c, k) = (company.clone(), keywords.clone());
            (
                total(3, 300),
                Box::new(move |s: &mut Seq| record(person(s, Some(&c), k.as_deref()))),
            )
        }
        (ActionId::PremiumSearchCompanyMetrics, input) => {
            let (company, keywords) = match input {
                RunInput::CompanyEmployees { company, keywords } => {
                    (Some(company.clone()), keywords.clone())
                }
                RunInput::Keywords { keywords } => (None, Some(keywords.clone())),
                _ => (None, None),
            };
            let metrics = SearchMetrics {
                company,
                keywords,
                total_results: seq.below(250_000),
            };
            return Outcome::Records {
                records: vec![record(metrics)],
                has_more: false,
            };
        }
        (
            ActionId::PremiumSearchCompanies | ActionId::NetworkSearchCompanies,
            RunInput::Keywords { keywords },
        ) => {
            let hint = keywords.clone();
            (
                total(2, 120),
                Box::new(move |s: &mut Seq| record(company(s, &hint))),
            )
        }
        (ActionId::NetworkSearchSchools, RunInput::Query { query }) => {
            let q = query.clone();
            (
                total(1, 40),
                Box::new(move |s: &mut Seq| record(school(s, &q))),
            )
        }
        (ActionId::NetworkSearchGroups, RunInput::Query { query }) => {
            let q = query.clone();
            (
                total(1, 80),
                Box::new(move |s: &mut Seq| record(group(s, &q))),
            )
        }
        (ActionId::NetworkExtractSchoolAlumnis, RunInput::SchoolAlumni { school, keywords }) => {
            let (sc, k) = (school.clone(), keywords.clone());
            (
                total(10, 500),
                Box::new(move |s: &mut Seq| {
                    let person = person(s, None, k.as_deref());
                    record(Alumnus {
                        person,
                        education: Graduation {
                            school: sc.clone(),
                            graduation_year: 1990 + s.below(35),
                        },
                    })
                }),
            )
        }
        (ActionId::NetworkExtractGroupMembers, RunInput::GroupMembers { group_id }) => {
            if !group_id.chars().all(|c| c.is_ascii_digit()) {
                return failed(
                    "group_not_found",
                    format!("No group has the ID “{group_id}”; group IDs are numeric."),
                );
            }
            (
                total(5, 800),
                Box::new(move |s: &mut Seq| record(person(s, None, None))),
            )
        }
        (ActionId::NetworkExtractPeople, RunInput::Identifier { identifier }) => {
            let asked_by_identifier = is_profile_identifier(identifier);
            let Some(handle) = known_handle(identifier)
                .or_else(|| asked_by_identifier.then(|| identifier.to_lowercase()))
            else {
                return failed(
                    "profile_not_found",
                    format!("No public profile matches the identifier “{identifier}”."),
                );
            };
            let profile =
                enriched_profile(handle, asked_by_identifier.then_some(identifier.as_str()));
            return Outcome::Records {
                records: vec![record(profile)],
                has_more: false,
            };
        }
        (ActionId::NetworkExtractCompany, RunInput::Identifier { identifier }) => {
            let slug_ok = identifier
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-')
                && !identifier.to_lowercase().starts_with("unknown");
            if !slug_ok {
                return failed(
                    "company_not_found",
                    format!("No company matches the identifier “{identifier}”."),
                );
            }
            let enriched = EnrichedCompany {
                company: company(&mut seq, ""),
                identifier: identifier.clone(),
                description: "A company the sandbox made up for this identifier.".to_owned(),
                specialties: vec![seq.pick(TOPICS).to_owned(), seq.pick(TOPICS).to_owned()],
            };
            return Outcome::Records {
                records: vec![record(enriched)],
                has_more: false,
            };
        }
        (ActionId::NetworkExtractPeoplePostActivity, RunInput::Identifier { identifier }) => {
            let known = known_handle(identifier).is_some() || is_profile_identifier(identifier);
            if !known {
                return failed(
                    "profile_not_found",
                    format!("No public profile matches the identifier “{identifier}”."),
                );
            }
            let author = identifier.clone();
            (
                total(0, 60),
                Box::new(move |s: &mut Seq| {
                    let topic = s.pick(TOPICS);
                    record(post(s, &author, topic))
                }),
            )
        }
        (ActionId::NetworkSearchContent, RunInput::Keywords { keywords }) => {
            let k = keywords.clone();
            (
                total(3, 200),
                Box::new(move |s: &mut Seq| {
                    let author = format!("{} {}", s.pick(FIRST), s.pick(LAST));
                    record(post(s, &author, &k))
                }),
            )
        }
        (
            ActionId::NetworkExtractPostCommenters | ActionId::NetworkExtractPostLikers,
            RunInput::SocialId { social_id },
        ) => {
            match check_social_id(social_id) {
                SocialIdCheck::Valid => {}
                SocialIdCheck::LooksLikeActivityId => {
                    return failed(
                        "invalid_social_id",
                        format!(
                            "“{social_id}” looks like an activity ID. Pass the social_id exactly as the profile-posts or post-search action returned it."
                        ),
                    );
                }
                SocialIdCheck::Unknown => {
                    return failed(
                        "post_not_found",
                        format!("No post has the social_id “{social_id}”."),
                    );
                }
            }
            if action == ActionId::NetworkExtractPostCommenters {
                (total(0, 150), Box::new(|s: &mut Seq| record(comment(s))))
            } else {
                (total(0, 400), Box::new(|s: &mut Seq| record(reaction(s))))
            }
        }
        (action, _) => {
            return failed(
                "invalid_input",
                format!("{action} cannot take this input shape."),
            );
        }
    };
    let records: Vec<Value> = (0..total.min(limit)).map(|_| make(&mut seq)).collect();
    Outcome::Records {
        records,
        has_more: total > limit,
    }
}
