//! An API error message in presenter mode: only its personal parts are masked, so a demo still
//! reads what went wrong ("No public profile matches the identifier “u••• (k4)”.").
//!
//! The API's messages are free text the console does not know in advance, so what is personal
//! is decided by what messages quote rather than by a list of the API's sentences:
//! - what is between quotes (`“…”`, `‘…’`, `«…»`, `"…"`, `'…'`, `` `…` ``), whole, except a
//!   field's name in backticks (`` `max_results` ``); an unclosed quote hides the rest of the
//!   message;
//! - the inputs sent (every text of the request's input, as far as this browser knows it),
//!   wherever they appear, and any word that one of their words makes up (`ada-lovelace` when
//!   the profile URL `…/in/ada-lovelace` was sent);
//! - URLs, email addresses and `@handles`;
//! - a capitalised word inside a sentence (a name the API quoted without quotes: `Ada`), but not
//!   one that starts a sentence, and not an acronym (`ID`, `URL`).
//!
//! The rest (the API's own words, numbers, dates, UUIDs, field names) is shown. Each hidden part
//! is masked by [`Masker::text`], so it keeps its shape and the tag it has everywhere else.

use std::borrow::Cow;
use std::collections::HashSet;
use std::ops::Range;

use serde_json::Value;

use super::{Masker, URL_KINDS, is_date_or_time, is_uuid, url_scheme_end};

/// Quotes that open a quoted part, and the one that closes each.
const QUOTES: &[(char, char)] = &[
    ('“', '”'),
    ('‘', '’'),
    ('«', '»'),
    ('"', '"'),
    ('`', '`'),
    ('\'', '\''),
];

/// Around a word, not part of it (quotes included: a quoted part is masked inside its quotes).
const PUNCTUATION: &[char] = &[
    '.', ',', ';', ':', '!', '?', '(', ')', '[', ']', '{', '}', '<', '>', '“', '”', '‘', '’', '«',
    '»', '"', '`', '\'',
];

impl Masker {
    /// An error message with only its personal parts masked when on (see the module's rule);
    /// `inputs` are the texts the request sent, as far as they are known.
    pub fn message<'a>(self, message: &'a str, inputs: &[String]) -> Cow<'a, str> {
        if !self.on || message.is_empty() {
            return Cow::Borrowed(message);
        }
        let mut hidden = quoted_parts(message);
        hidden.extend(input_occurrences(message, inputs));
        hidden.extend(personal_words(message, &input_words(inputs)));
        let hidden = merged(hidden);
        if hidden.is_empty() {
            return Cow::Borrowed(message);
        }
        let mut shown = String::with_capacity(message.len() + 8 * hidden.len());
        let mut from = 0;
        for part in hidden {
            shown.push_str(&message[from..part.start]);
            shown.push_str(&self.text(&message[part.clone()]));
            from = part.end;
        }
        shown.push_str(&message[from..]);
        Cow::Owned(shown)
    }
}

/// The texts of a request's JSON body (every string at any depth: the input's values), for
/// [`Masker::message`]; none for a body that is not JSON.
pub fn body_texts(body: &str) -> Vec<String> {
    let mut texts = Vec::new();
    if let Ok(value) = serde_json::from_str::<Value>(body) {
        string_values(&value, &mut texts);
    }
    texts
}

/// Every text of `value`, at any depth, into `out`.
pub(super) fn string_values(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(text) => out.push(text.clone()),
        Value::Array(items) => items.iter().for_each(|item| string_values(item, out)),
        Value::Object(fields) => fields.values().for_each(|item| string_values(item, out)),
        _ => {}
    }
}

/// The insides of the message's quoted parts (byte ranges).
fn quoted_parts(message: &str) -> Vec<Range<usize>> {
    let mut parts = Vec::new();
    let mut chars = message.char_indices().peekable();
    let mut before: Option<char> = None;
    while let Some((at, c)) = chars.next() {
        let closing = QUOTES.iter().find(|(open, _)| *open == c).map(|q| q.1);
        // An ASCII apostrophe opens a quote only where a word cannot go on (`'ada'`, not
        // `doesn't`).
        let opens = closing.is_some()
            && (c != '\'' || before.is_none_or(|b| b.is_whitespace() || "([{:".contains(b)));
        before = Some(c);
        let (true, Some(closing)) = (opens, closing) else {
            continue;
        };
        let start = at + c.len_utf8();
        let end = message[start..]
            .char_indices()
            .find(|&(offset, d)| {
                d == closing
                    && (closing != '\''
                        || message[start + offset + 1..]
                            .chars()
                            .next()
                            .is_none_or(|after| !after.is_alphanumeric()))
            })
            .map_or(message.len(), |(offset, _)| start + offset);
        // A field's name in backticks is the API's word; the inputs' rule still hides one
        // that is made of an input.
        if end > start && !(c == '`' && is_field_name(&message[start..end])) {
            parts.push(start..end);
        }
        // Go on after the closing quote.
        while chars.peek().is_some_and(|&(next, _)| next <= end) {
            before = chars.next().map(|(_, d)| d);
        }
    }
    parts
}

/// Where the inputs' texts appear in the message (ASCII case aside).
fn input_occurrences(message: &str, inputs: &[String]) -> Vec<Range<usize>> {
    // ASCII lowercasing keeps every byte offset.
    let lower = message.to_ascii_lowercase();
    let mut found = Vec::new();
    for input in inputs {
        let input = input.trim().to_ascii_lowercase();
        if input.chars().count() < 2 || is_shown_as_is(&input) {
            continue;
        }
        let mut from = 0;
        while let Some(offset) = lower[from..].find(&input) {
            let start = from + offset;
            found.push(start..start + input.len());
            from = start + input.len();
        }
    }
    found
}

/// The words of the inputs that may name someone, lowercased: every word of a text, and of a
/// URL only its path's (its scheme, host and kinds of page say nothing of anyone).
fn input_words(inputs: &[String]) -> HashSet<String> {
    let mut words = HashSet::new();
    for input in inputs {
        let personal_part = match url_scheme_end(input) {
            Some(scheme_end) => {
                let rest = &input[scheme_end..];
                rest.find('/').map_or("", |slash| &rest[slash..])
            }
            None => input.as_str(),
        };
        for word in alphanumeric_runs(personal_part) {
            let word = word.to_lowercase();
            if word.chars().count() >= 2
                && !URL_KINDS.contains(&word.as_str())
                && !word.bytes().all(|b| b.is_ascii_digit())
            {
                words.insert(word);
            }
        }
    }
    words
}

/// The message's words that are personal by themselves or by the inputs' `words` (byte ranges,
/// surrounding punctuation left out).
fn personal_words(message: &str, words: &HashSet<String>) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    let mut starts_sentence = true;
    for (start, token) in tokens(message) {
        let trimmed = token.trim_start_matches(PUNCTUATION);
        let start = start + (token.len() - trimmed.len());
        let word = trimmed.trim_end_matches(PUNCTUATION);
        let personal = !word.is_empty()
            && !is_shown_as_is(word)
            && (url_scheme_end(word).is_some()
                || word.to_ascii_lowercase().starts_with("www.")
                || is_address_or_handle(word)
                || alphanumeric_runs(word).any(|run| words.contains(&run.to_lowercase()))
                || (!starts_sentence && is_capitalised(word)));
        if personal {
            found.push(start..start + word.len());
        }
        starts_sentence = token.ends_with(['.', '!', '?']);
    }
    found
}

/// The message's whitespace-separated tokens, with where each starts.
fn tokens(message: &str) -> impl Iterator<Item = (usize, &str)> {
    message
        .split_whitespace()
        .map(move |token| (token.as_ptr() as usize - message.as_ptr() as usize, token))
}

/// The runs of letters and digits in `text`.
fn alphanumeric_runs(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|run| !run.is_empty())
}

/// `ada@example.com` or `@ada`.
fn is_address_or_handle(word: &str) -> bool {
    match word.find('@') {
        Some(0) => word.len() > 1,
        Some(at) => at + 1 < word.len(),
        None => false,
    }
}

/// `Ada`, `McCoy`: a capital first and a small letter after; not `ID` or `URL`.
fn is_capitalised(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(char::is_uppercase) && chars.next().is_some_and(char::is_lowercase)
}

/// A number, a date or time, or a UUID: never hidden.
fn is_shown_as_is(text: &str) -> bool {
    let is_number = text.bytes().any(|b| b.is_ascii_digit())
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || b",.-+".contains(&b));
    is_number || is_date_or_time(text) || is_uuid(text)
}

/// `max_results`, `input.profile_url`: a field's name between backticks, shown.
fn is_field_name(text: &str) -> bool {
    text.starts_with(|c: char| c.is_ascii_lowercase())
        && text
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'.')
}

/// The ranges, overlapping or touching ones joined, in order.
fn merged(mut ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    ranges.sort_by_key(|range| range.start);
    let mut joined: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for range in ranges {
        match joined.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => joined.push(range),
        }
    }
    joined
}

#[cfg(test)]
mod tests {
    use super::*;

    const ON: Masker = Masker { on: true, salt: 7 };

    fn inputs(texts: &[&str]) -> Vec<String> {
        texts.iter().map(|text| (*text).to_owned()).collect()
    }

    #[test]
    fn off_shows_the_message_as_it_is() {
        let message = "No public profile matches the identifier “ada-lovelace”.";
        assert_eq!(
            Masker::OFF.message(message, &inputs(&["ada-lovelace"])),
            message
        );
    }

    #[test]
    fn the_quoted_input_is_masked_and_the_sentence_kept() {
        let masked = ON.message(
            "No public profile matches the identifier “unknown-person”.",
            &[],
        );
        assert!(
            masked.starts_with("No public profile matches the identifier “u••• ("),
            "{masked}"
        );
        assert!(masked.ends_with(")”."), "{masked}");
        assert!(!masked.contains("unknown"));
        // The same tag as the value has everywhere else.
        assert!(masked.contains(&*ON.text("unknown-person")));
        // The same when the input sent is known: its quotes stay around it.
        let known = ON.message(
            "No public profile matches the identifier “unknown-person”.",
            &inputs(&["unknown-person"]),
        );
        assert_eq!(known, masked);
    }

    #[test]
    fn every_kind_of_quote_is_masked_and_an_unclosed_one_hides_the_rest() {
        for message in [
            "Not found: \"Ada Lovelace\" (no match)",
            "Not found: 'Ada Lovelace' (no match)",
            "Not found: ‘Ada Lovelace’ (no match)",
            "Not found: «Ada Lovelace» (no match)",
            "Not found: `Ada Lovelace` (no match)",
        ] {
            let masked = ON.message(message, &[]);
            assert!(
                !masked.contains("da") && !masked.contains("ovelace"),
                "{masked}"
            );
            assert!(masked.starts_with("Not found: ") && masked.ends_with(" (no match)"));
        }
        let masked = ON.message("Not found: “Ada Lovelace, analyst", &[]);
        assert!(
            !masked.contains("nalyst") && !masked.contains("ovelace"),
            "{masked}"
        );
        // An apostrophe inside a word is not a quote.
        assert_eq!(
            ON.message("The profile doesn't exist and isn't public.", &[]),
            "The profile doesn't exist and isn't public."
        );
    }

    #[test]
    fn inputs_are_masked_wherever_they_appear_unquoted() {
        let masked = ON.message(
            "No results for grace hopper in the last year.",
            &inputs(&["Grace Hopper"]),
        );
        assert!(!masked.to_lowercase().contains("grace"), "{masked}");
        assert!(masked.starts_with("No results for ") && masked.ends_with(" in the last year."));
        // A word of a URL sent: the handle is masked, the host's words are not the person's.
        let masked = ON.message(
            "Profile ada-lovelace is private on network.com.",
            &inputs(&["https://www.network.com/in/ada-lovelace"]),
        );
        assert!(!masked.contains("lovelace"), "{masked}");
        assert!(masked.starts_with("Profile ") && masked.contains(" is private on "));
    }

    #[test]
    fn urls_addresses_handles_and_names_inside_a_sentence_are_masked() {
        let masked = ON.message(
            "The page https://x.example/in/ada of ada@example.com (@ada) belongs to Ada Lovelace.",
            &[],
        );
        for personal in ["x.example", "/in/ada", "ada@", "@ada", "Ada", "Lovelace"] {
            assert!(!masked.contains(personal), "{personal} in {masked}");
        }
        assert!(
            masked.starts_with("The page https://•••/in/••• ("),
            "{masked}"
        );
        assert!(masked.contains(" belongs to "), "{masked}");
    }

    #[test]
    fn the_apis_own_words_numbers_ids_and_acronyms_are_shown() {
        for message in [
            "The run failed with upstream_timeout (a fault the sandbox was asked for).",
            "input.max_results must be an integer from 1 to 100. Pass it as a number.",
            "No group has the ID 4242; group IDs are numeric.",
            "Pass `social_id` as the profile-posts action returned it.",
            "Run 54fc8e59-80bc-49e1-91b6-2397d06a91d3 expired on 2026-10-03.",
        ] {
            assert_eq!(ON.message(message, &[]), message);
        }
        // Numbers sent are not hidden where the message repeats them.
        assert_eq!(
            ON.message("Asked for 25 records.", &inputs(&["25"])),
            "Asked for 25 records."
        );
    }

    #[test]
    fn a_bodys_texts_are_every_string_in_it() {
        let body = r#"{"input":{"first_name":"Ada","tags":["x",{"y":"z"}]},"max_results":5}"#;
        assert_eq!(body_texts(body), inputs(&["Ada", "x", "z"]));
        assert!(body_texts("not json").is_empty());
    }
}
