//! The records the sandbox's actions return, as types: one per kind of record, serialised into
//! a run's `output`. `data` makes them; what each field holds is what the contract's actions
//! describe (a person's profile URL, a post's `social_id`, …).

use serde::Serialize;

/// A person as searches and member lists return them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Person {
    pub name: String,
    pub first_name: String,
    pub last_name: String,
    pub headline: String,
    pub location: String,
    pub current_company: String,
    pub profile_url: String,
    pub public_identifier: String,
}

/// Who wrote a comment or reacted to a post: the short form of a [`Person`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PersonSummary {
    pub name: String,
    pub headline: String,
    pub profile_url: String,
}

impl From<Person> for PersonSummary {
    fn from(person: Person) -> Self {
        PersonSummary {
            name: person.name,
            headline: person.headline,
            profile_url: person.profile_url,
        }
    }
}

/// A school's alumnus: a person and the school they graduated from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Alumnus {
    #[serde(flatten)]
    pub person: Person,
    pub education: Graduation,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Graduation {
    pub school: String,
    pub graduation_year: u64,
}

/// An enriched profile: a person with what only enrichment returns, among it the
/// `network_profile_identifier` that chains into the profile's posts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EnrichedProfile {
    #[serde(flatten)]
    pub person: Person,
    pub network_profile_identifier: String,
    pub about: String,
    pub experience: Vec<Position>,
    pub education: Vec<Degree>,
    pub skills: Vec<String>,
    pub connections: u64,
}

/// A job in an enriched profile; `end` is absent (`null`) for the current one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Position {
    pub title: String,
    pub company: String,
    pub start: String,
    pub end: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Degree {
    pub school: String,
    pub degree: String,
    pub end: u32,
}

/// A company as searches return it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Company {
    pub name: String,
    pub company_id: String,
    pub industry: String,
    pub employee_count: u64,
    pub headquarters: String,
    pub website: String,
    pub company_url: String,
}

/// An enriched company: a company with the identifier it was asked by and what only
/// enrichment returns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EnrichedCompany {
    #[serde(flatten)]
    pub company: Company,
    pub identifier: String,
    pub description: String,
    pub specialties: Vec<String>,
}

/// The one record of a metrics count.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SearchMetrics {
    pub company: Option<String>,
    pub keywords: Option<String>,
    pub total_results: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct School {
    pub name: String,
    pub school_id: String,
    pub location: String,
    pub matched_query: String,
    pub school_url: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Group {
    pub name: String,
    pub group_id: String,
    pub member_count: u64,
    pub group_url: String,
}

/// A post; its `social_id` chains into its comments and reactions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Post {
    pub social_id: String,
    pub author: String,
    pub text: String,
    pub posted_at: String,
    pub reaction_count: u64,
    pub comment_count: u64,
    pub post_url: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Comment {
    pub comment_id: String,
    pub text: String,
    pub commented_at: String,
    pub author: PersonSummary,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Reaction {
    pub reaction_type: String,
    pub reactor: PersonSummary,
}
