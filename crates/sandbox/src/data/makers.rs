//! One record of each kind, drawn from a run's sequence.

use serde::Serialize;
use serde_json::Value;

use super::ids::{SOCIAL_KINDS, profile_identifier, profile_url, slug, social_id};
use super::seq::{Seq, stable_hash};
use super::words::{
    CITIES, COMPANIES, FIRST, INDUSTRIES, LAST, REACTIONS, SCHOOLS, TITLES, TOPICS,
};
use crate::records::{
    Comment, Company, Degree, EnrichedProfile, Group, Person, Position, Post, Reaction, School,
};

/// A person at `company` (or one drawn), with `headline_hint` added to the headline.
pub(super) fn person(seq: &mut Seq, company: Option<&str>, headline_hint: Option<&str>) -> Person {
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

/// A company whose name carries `hint`, the search words, when there are any.
pub(super) fn company(seq: &mut Seq, hint: &str) -> Company {
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

/// A post by `author` about `topic`, with a social id the sandbox accepts back.
pub(super) fn post(seq: &mut Seq, author: &str, topic: &str) -> Post {
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

/// A school found for `query`.
pub(super) fn school(seq: &mut Seq, query: &str) -> School {
    let name = seq.pick(SCHOOLS);
    School {
        name: name.to_owned(),
        school_id: (1000 + seq.below(90_000)).to_string(),
        location: seq.pick(CITIES).to_owned(),
        matched_query: query.to_owned(),
        school_url: format!("https://www.network.com/school/{}", slug(name)),
    }
}

/// A group about a drawn topic, found for `query`.
pub(super) fn group(seq: &mut Seq, query: &str) -> Group {
    let topic = seq.pick(TOPICS);
    let id = (100_000 + seq.below(9_000_000)).to_string();
    Group {
        name: format!("{topic} professionals ({query})"),
        member_count: 50 + seq.below(200_000),
        group_url: format!("https://www.network.com/groups/{id}"),
        group_id: id,
    }
}

/// A comment on a post, by a drawn person.
pub(super) fn comment(seq: &mut Seq) -> Comment {
    let author = person(seq, None, None);
    let text = format!("Great point about {}!", seq.pick(TOPICS));
    Comment {
        comment_id: (seq.next() % 1_000_000_000).to_string(),
        text,
        commented_at: format!("2026-11-{:02}T10:00:00Z", 1 + seq.below(19)),
        author: author.into(),
    }
}

/// A reaction to a post, by a drawn person.
pub(super) fn reaction(seq: &mut Seq) -> Reaction {
    let reactor = person(seq, None, None);
    Reaction {
        reaction_type: seq.pick(REACTIONS).to_owned(),
        reactor: reactor.into(),
    }
}

/// The enrichment of a known profile: always the same person for the same handle, whichever
/// way (handle, URL, identifier) it was asked for.
pub(super) fn enriched_profile(
    handle: String,
    asked_by_identifier: Option<&str>,
) -> EnrichedProfile {
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
pub(super) fn record(record: impl Serialize) -> Value {
    serde_json::to_value(record).expect("records serialise")
}
