//! What magic words in an input set off: the texts they are looked for in, and the hostile
//! records the word `hostile` returns.

use api_contract::RunInput;
use serde_json::{Value, json};

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
