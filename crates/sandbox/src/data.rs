//! Plausible, deterministic records for each action: the same input always returns the same data.
//!
//! Identifiers that chain between actions are checkable: a `network_profile_identifier` is
//! `ACoAA` + 16 hex digits, a `social_id` is `urn:network:{share|ugcPost|activity}:{19 digits}`
//! whose last digit is a checksum, so the sandbox can tell its own ids from made-up ones.

use api_contract::{ActionId, RunInput, input::validate_network_profile_url};
use serde::Serialize;
use serde_json::{Value, json};

use crate::records::{
    Alumnus, Comment, Company, Degree, EnrichedCompany, EnrichedProfile, Graduation, Group, Person,
    Position, Post, Reaction, School, SearchMetrics,
};

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

/// Stable 64-bit FNV-1a, so data does not change between Rust versions.
pub fn stable_hash(parts: &[&str]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.bytes().chain(std::iter::once(0xff)) {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

/// A small deterministic generator (splitmix64).
struct Seq(u64);

impl Seq {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn pick<'a>(&mut self, items: &'a [&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

const FIRST: &[&str] = &[
    "Ada",
    "Grace",
    "Alan",
    "Katherine",
    "Linus",
    "Margaret",
    "Tim",
    "Barbara",
    "Dennis",
    "Frances",
    "Edsger",
    "Radia",
    "Ken",
    "Sophie",
    "Guido",
    "Hedy",
    "Yukihiro",
    "Annie",
    "Bjarne",
    "Shafi",
];
const LAST: &[&str] = &[
    "Lovelace",
    "Hopper",
    "Turing",
    "Johnson",
    "Torvalds",
    "Hamilton",
    "Berners-Lee",
    "Liskov",
    "Ritchie",
    "Allen",
    "Dijkstra",
    "Perlman",
    "Thompson",
    "Wilson",
    "van Rossum",
    "Lamarr",
    "Matsumoto",
    "Easley",
    "Stroustrup",
    "Goldwasser",
];
const COMPANIES: &[&str] = &[
    "Acme Robotics",
    "Globex",
    "Initech",
    "Umbrella Analytics",
    "Stark Industries",
    "Wayne Data",
    "Hooli",
    "Pied Piper",
    "Vandelay Imports",
    "Soylent Systems",
    "Cyberdyne",
    "Tyrell Labs",
];
const TITLES: &[&str] = &[
    "Software Engineer",
    "Head of Data",
    "Product Manager",
    "Sales Director",
    "Research Scientist",
    "Chief Technology Officer",
    "Marketing Lead",
    "Recruiter",
    "Data Analyst",
    "Founder",
];
const CITIES: &[&str] = &[
    "Berlin, Germany",
    "London, United Kingdom",
    "Paris, France",
    "New York, United States",
    "Toronto, Canada",
    "Singapore",
    "Sydney, Australia",
    "São Paulo, Brazil",
    "Tokyo, Japan",
    "Nairobi, Kenya",
    "Lisbon, Portugal",
    "Bangalore, India",
];
const INDUSTRIES: &[&str] = &[
    "Software Development",
    "Financial Services",
    "Biotechnology",
    "Retail",
    "Logistics",
    "Education",
    "Renewable Energy",
    "Media",
];
const SCHOOLS: &[&str] = &[
    "Massachusetts Institute of Technology",
    "University of Cambridge",
    "ETH Zürich",
    "Stanford University",
    "University of Tokyo",
    "École Polytechnique",
    "University of Toronto",
    "National University of Singapore",
];
const TOPICS: &[&str] = &[
    "Rust",
    "data engineering",
    "product management",
    "machine learning",
    "open source",
    "developer experience",
    "B2B sales",
    "climate tech",
];
const REACTIONS: &[&str] = &[
    "like",
    "celebrate",
    "support",
    "love",
    "insightful",
    "funny",
];
const SOCIAL_KINDS: &[&str] = &["share", "ugcPost", "activity"];

fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').chars().take(60).collect()
}

fn profile_url(handle: &str) -> String {
    format!("https://www.network.com/in/{handle}")
}

/// The identifier an enrichment returns for a handle; accepted back as an `identifier`.
pub fn profile_identifier(handle: &str) -> String {
    format!("ACoAA{:016X}", stable_hash(&["profile", handle]))
}

fn is_profile_identifier(id: &str) -> bool {
    id.len() == 21
        && id.starts_with("ACoAA")
        && id[5..]
            .chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_lowercase())
}

/// A social id of the given kind with a checksum digit.
pub fn social_id(seq_value: u64, kind: &str) -> String {
    let digits = format!("7{:017}", seq_value % 100_000_000_000_000_000);
    let check = digits.bytes().map(|b| u32::from(b - b'0')).sum::<u32>() % 10;
    format!("urn:network:{kind}:{digits}{check}")
}

enum SocialIdCheck {
    Valid,
    LooksLikeActivityId,
    Unknown,
}

fn check_social_id(id: &str) -> SocialIdCheck {
    if id.chars().all(|c| c.is_ascii_digit()) {
        return SocialIdCheck::LooksLikeActivityId;
    }
    let Some(rest) = id.strip_prefix("urn:network:") else {
        return SocialIdCheck::Unknown;
    };
    let Some((kind, digits)) = rest.split_once(':') else {
        return SocialIdCheck::Unknown;
    };
    if !SOCIAL_KINDS.contains(&kind)
        || digits.len() != 19
        || !digits.bytes().all(|b| b.is_ascii_digit())
    {
        return SocialIdCheck::Unknown;
    }
    let (body, check) = digits.split_at(18);
    let sum = body.bytes().map(|b| u32::from(b - b'0')).sum::<u32>() % 10;
    if check.as_bytes()[0] - b'0' == sum as u8 {
        SocialIdCheck::Valid
    } else {
        SocialIdCheck::Unknown
    }
}

/// A public handle or profile URL the sandbox pretends to know: lowercase letters, digits and
/// dashes, not starting with `unknown`.
fn known_handle(identifier: &str) -> Option<String> {
    let handle = if validate_network_profile_url(identifier).is_ok() {
        let path = identifier.split("/in/").nth(1)?;
        path.trim_end_matches('/').to_owned()
    } else {
        identifier.to_owned()
    };
    let ok = (2..=100).contains(&handle.len())
        && handle
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !handle.starts_with("unknown");
    ok.then_some(handle)
}

fn person(seq: &mut Seq, company: Option<&str>, headline_hint: Option<&str>) -> Person {
    let first = seq.pick(FIRST);
    let last = seq.pick(LAST);
    let company = company.map_or_else(|| seq.pick(COMPANIES).to_owned(), str::to_owned);
    let title = seq.pick(TITLES);
    let handle = format!("{}-{}-{:04x}", slug(first), slug(last), seq.below(0xffff));
    let headline = match headline_hint {
        Some(hint) => format!("{title} at {company} · {hint}"),
        None => format!("{title} at {company}"),
    };
    Person {
        name: format!("{first} {last}"),
        first_name: first.to_owned(),
        last_name: last.to_owned(),
        headline,
        location: seq.pick(CITIES).to_owned(),
        current_company: company,
        profile_url: profile_url(&handle),
        public_identifier: handle,
    }
}

fn company(seq: &mut Seq, hint: &str) -> Company {
    let base = seq.pick(COMPANIES);
    let name = if hint.is_empty() {
        base.to_owned()
    } else {
        format!("{base} ({hint})")
    };
    let id = 10_000 + seq.below(9_000_000);
    Company {
        name,
        company_id: id.to_string(),
        industry: seq.pick(INDUSTRIES).to_owned(),
        employee_count: 10 + seq.below(50_000),
        headquarters: seq.pick(CITIES).to_owned(),
        website: format!("https://{}.example", slug(base)),
        company_url: format!("https://www.network.com/company/{}", slug(base)),
    }
}

fn post(seq: &mut Seq, author: &str, topic: &str) -> Post {
    let kind = seq.pick(SOCIAL_KINDS);
    let id = social_id(seq.next(), kind);
    let day = 1 + seq.below(28);
    Post {
        author: author.to_owned(),
        text: format!(
            "Thoughts on {topic}: {} lessons from this quarter.",
            2 + seq.below(8)
        ),
        posted_at: format!(
            "2026-10-{day:02}T{:02}:{:02}:00Z",
            seq.below(24),
            seq.below(60)
        ),
        reaction_count: seq.below(2_000),
        comment_count: seq.below(300),
        post_url: format!("https://www.network.com/feed/update/{id}"),
        social_id: id,
    }
}

fn school(seq: &mut Seq, query: &str) -> School {
    let name = seq.pick(SCHOOLS);
    School {
        name: name.to_owned(),
        school_id: (1000 + seq.below(90_000)).to_string(),
        location: seq.pick(CITIES).to_owned(),
        matched_query: query.to_owned(),
        school_url: format!("https://www.network.com/school/{}", slug(name)),
    }
}

fn group(seq: &mut Seq, query: &str) -> Group {
    let topic = seq.pick(TOPICS);
    let id = (100_000 + seq.below(9_000_000)).to_string();
    Group {
        name: format!("{topic} professionals ({query})"),
        member_count: 50 + seq.below(200_000),
        group_url: format!("https://www.network.com/groups/{id}"),
        group_id: id,
    }
}

fn comment(seq: &mut Seq) -> Comment {
    let author = person(seq, None, None);
    let text = format!("Great point about {}!", seq.pick(TOPICS));
    Comment {
        comment_id: (seq.next() % 1_000_000_000).to_string(),
        text,
        commented_at: format!("2026-11-{:02}T10:00:00Z", 1 + seq.below(19)),
        author: author.into(),
    }
}

fn reaction(seq: &mut Seq) -> Reaction {
    let reactor = person(seq, None, None);
    Reaction {
        reaction_type: seq.pick(REACTIONS).to_owned(),
        reactor: reactor.into(),
    }
}

/// The enrichment of a known profile: always the same person for the same handle, whichever
/// way (handle, URL, identifier) it was asked for.
fn enriched_profile(handle: String, asked_by_identifier: Option<&str>) -> EnrichedProfile {
    let mut seq = Seq(stable_hash(&["profile", &handle]));
    let mut person = person(&mut seq, None, None);
    person.profile_url = profile_url(&handle);
    let network_profile_identifier =
        asked_by_identifier.map_or_else(|| profile_identifier(&handle), str::to_owned);
    person.public_identifier = handle;
    let about = format!("Working on {} and {}.", seq.pick(TOPICS), seq.pick(TOPICS));
    let mut position = |start: &str, end: Option<&str>| Position {
        title: seq.pick(TITLES).to_owned(),
        company: seq.pick(COMPANIES).to_owned(),
        start: start.to_owned(),
        end: end.map(str::to_owned),
    };
    let experience = vec![
        position("2021-03", None),
        position("2016-09", Some("2021-02")),
    ];
    let education = vec![Degree {
        school: seq.pick(SCHOOLS).to_owned(),
        degree: "MSc".to_owned(),
        end: 2016,
    }];
    let skills = vec![
        seq.pick(TOPICS).to_owned(),
        seq.pick(TOPICS).to_owned(),
        "Leadership".to_owned(),
    ];
    EnrichedProfile {
        person,
        network_profile_identifier,
        about,
        experience,
        education,
        skills,
        connections: seq.below(5_000),
    }
}

/// A record as a run's output holds it.
fn record(record: impl Serialize) -> Value {
    serde_json::to_value(record).expect("records serialise")
}

/// Records with markup, script URLs, spreadsheet formulas, a 10,000-character string,
/// right-to-left and emoji text and nested objects: everything a console must render inert.
pub fn hostile_records(count: usize) -> Vec<Value> {
    let samples = [
        json!({ "name": "<script>alert('xss')</script>", "headline": "<img src=x onerror=alert(1)>",
                "profile_url": "javascript:alert(document.domain)", "location": "=HYPERLINK(\"https://evil.example\",\"click\")" }),
        json!({ "name": "+cmd|' /C calc'!A0", "headline": "-2+3", "profile_url": "data:text/html,<script>alert(1)</script>",
                "location": "@SUM(1+1)*cmd|' /C calc'!A0" }),
        json!({ "name": "\u{202e}gnp.exe", "headline": "مرحبا بالعالم — שלום עולם", "profile_url": "https://www.network.com/in/rtl-ok",
                "location": "🚀🔥👩‍💻 emoji ✓" }),
        json!({ "name": "Long text", "headline": "A".repeat(10_000), "profile_url": "http://insecure.example/in/x",
                "location": "\"quoted\", with, commas\nand a newline" }),
        json!({ "name": "Nested", "headline": "<a href=\"javascript:alert(1)\">link</a>", "profile_url": "  javascript:alert(1)",
                "location": { "city": "<b>Berlin</b>", "geo": { "lat": 52.52, "lng": 13.405 }, "tags": ["=1+1", "<i>x</i>"] } }),
    ];
    (0..count)
        .map(|i| samples[i % samples.len()].clone())
        .collect()
}

/// Every text value of the input, for magic words.
pub fn input_texts(input: &RunInput) -> Vec<&str> {
    match input {
        RunInput::StandardPerson {
            first_name,
            last_name,
            company,
            network_profile_url,
        } => {
            let mut v = vec![first_name.as_str(), last_name.as_str(), company.as_str()];
            v.extend(network_profile_url.as_deref());
            v
        }
        RunInput::Keywords { keywords } => vec![keywords],
        RunInput::Identifier { identifier } => vec![identifier],
        RunInput::SocialId { social_id } => vec![social_id],
        RunInput::CompanyEmployees { company, keywords }
        | RunInput::SchoolAlumni {
            school: company,
            keywords,
        } => {
            let mut v = vec![company.as_str()];
            v.extend(keywords.as_deref());
            v
        }
        RunInput::GroupMembers { group_id } => vec![group_id],
        RunInput::Query { query } => vec![query],
    }
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

#[cfg(test)]
mod tests {
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
}
