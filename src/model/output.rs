//! A run's output as data for people: table columns, safe links, truncation, CSV text with
//! formula neutralising, and the chained actions a record leads to.
//!
//! Pure functions, tested natively; `model::explore` and `components/output_explorer.rs`
//! render them. Nothing here produces
//! HTML: the page inserts every value as text, and only [`safe_link`] URLs become links.

use std::borrow::Cow;
use std::collections::HashSet;

use api_contract::{ActionId, ChainRule};
use serde_json::Value;

use crate::model::urls::action_form_prefilled;

/// Strings longer than this are shown shortened, with a way to see them whole.
pub const SHORT_TEXT: usize = 160;

/// The table's columns: every key of the object records, in the order first seen. Records that
/// are not objects are shown under `value`.
pub fn columns(records: &[Value]) -> Vec<String> {
    let mut found = ColumnsFound::default();
    found.add(records);
    found.columns
}

/// The columns of records met a slice at a time, in the order [`columns`] gives for all of them
/// at once: a look-up per key, so 10,000 records of 30 fields are one pass, which a reading of
/// records in slices makes on the way.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ColumnsFound {
    /// The columns, in the order they were met.
    pub columns: Vec<String>,
    seen: HashSet<String>,
}

impl ColumnsFound {
    /// Columns met already (e.g. in the first records read), in their order.
    pub fn with_columns(columns: Vec<String>) -> Self {
        ColumnsFound {
            seen: columns.iter().cloned().collect(),
            columns,
        }
    }

    /// Adds the columns of `records` not met yet.
    pub fn add(&mut self, records: &[Value]) {
        for record in records {
            match record {
                Value::Object(map) => {
                    for key in map.keys() {
                        self.met(key);
                    }
                }
                _ => self.met("value"),
            }
        }
    }

    fn met(&mut self, column: &str) {
        if !self.seen.contains(column) {
            self.seen.insert(column.to_owned());
            self.columns.push(column.to_owned());
        }
    }
}

/// A record's value in a column (`None` when the record has no such key).
pub fn cell<'a>(record: &'a Value, column: &str) -> Option<&'a Value> {
    match record {
        Value::Object(map) => map.get(column),
        other if column == "value" => Some(other),
        _ => None,
    }
}

/// A record's value in a column as an export's cell: empty where the record has none (or null),
/// a scalar as text, a nested value as indented JSON.
pub fn export_cell(record: &Value, column: &str) -> String {
    match cell(record, column) {
        None | Some(Value::Null) => String::new(),
        Some(value) => plain(value),
    }
}

/// The URL, if this text is an absolute `https:` URL that is safe to make a link: nothing
/// before the scheme, a host, no spaces, control characters or bidirectional overrides. Everything else stays text.
pub fn safe_link(text: &str) -> Option<&str> {
    let rest = text
        .get(..8)
        .filter(|scheme| scheme.eq_ignore_ascii_case("https://"))
        .map(|_| &text[8..])?;
    let host_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let clean = !text.chars().any(|c| {
        // Bidirectional overrides would make the link read as something else.
        c.is_whitespace() || c.is_control() || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    });
    (host_end > 0 && !rest.starts_with('@') && clean).then_some(text)
}

/// Text with its invisible direction controls shown by name (`[RLO]`…), so a value like
/// `"\u{202e}gnp.exe"` cannot pass for `exe.png`. Copy and export keep the text as it is.
pub fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let name = match c {
            '\u{200e}' => "[LRM]",
            '\u{200f}' => "[RLM]",
            '\u{202a}' => "[LRE]",
            '\u{202b}' => "[RLE]",
            '\u{202c}' => "[PDF]",
            '\u{202d}' => "[LRO]",
            '\u{202e}' => "[RLO]",
            '\u{2066}' => "[LRI]",
            '\u{2067}' => "[RLI]",
            '\u{2068}' => "[FSI]",
            '\u{2069}' => "[PDI]",
            _ => {
                out.push(c);
                continue;
            }
        };
        out.push_str(name);
    }
    out
}

/// The first `SHORT_TEXT` characters and whether anything was cut.
pub fn shorten(text: &str) -> (&str, bool) {
    match text.char_indices().nth(SHORT_TEXT) {
        Some((end, _)) => (&text[..end], true),
        None => (text, false),
    }
}

/// A one-line summary of a nested value: `{3 fields}` or `[2 items]`.
pub fn summary(value: &Value) -> String {
    match value {
        Value::Object(map) => match map.len() {
            1 => "{1 field}".to_owned(),
            n => format!("{{{n} fields}}"),
        },
        Value::Array(items) => match items.len() {
            1 => "[1 item]".to_owned(),
            n => format!("[{n} items]"),
        },
        other => plain(other),
    }
}

/// A scalar as text (strings without quotes), a nested value as indented JSON.
pub fn plain(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        nested => pretty(nested),
    }
}

/// Indented JSON: the one formatter the console ships.
pub fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// A cell's text made safe for a spreadsheet: formula triggers (`=`, `+`, `-`, `@`, tab,
/// carriage return) at the start are neutralised with a leading `'`, so a spreadsheet shows the
/// text instead of running it.
pub fn neutralise(text: &str) -> Cow<'_, str> {
    match text.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => Cow::Owned(format!("'{text}")),
        _ => Cow::Borrowed(text),
    }
}

/// CSV text (RFC 4180: CRLF line ends, a field quoted when it holds a separator, a quote or a
/// line break, quotes doubled), every field [`neutralise`]d: the one CSV writer of the
/// console's exports. It quotes by itself rather than through the `csv` crate's writer, which
/// measured 15.6 KB gzip more of the pages' chunk (docs/decisions/csv-writer.md); the tests
/// read what it writes back with the `csv` crate's reader.
#[derive(Default)]
pub struct CsvText(String);

impl CsvText {
    pub fn new() -> CsvText {
        CsvText::default()
    }

    /// Adds one line.
    pub fn line<S: AsRef<str>>(&mut self, fields: impl IntoIterator<Item = S>) {
        for (i, field) in fields.into_iter().enumerate() {
            if i > 0 {
                self.0.push(',');
            }
            let field = neutralise(field.as_ref());
            if field.contains([',', '"', '\n', '\r']) {
                self.0.push('"');
                self.0.push_str(&field.replace('"', "\"\""));
                self.0.push('"');
            } else {
                self.0.push_str(&field);
            }
        }
        self.0.push_str("\r\n");
    }

    /// The lines written so far.
    pub fn into_text(self) -> String {
        self.0
    }
}

/// A link from a record to the form of an action it chains into, prefilled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainLink {
    /// The target action's purpose ("Get profile posts", "Get post comments").
    pub label: &'static str,
    /// The prefilled form's URL.
    pub href: String,
}

/// The actions a record chains into, by the contract's chaining rules ([`CHAIN_RULES`]): an
/// enriched profile's `network_profile_identifier` into profile posts, a post's `social_id` into
/// its comments and reactions. The ids are passed exactly as returned.
pub fn chain_links(action: &str, record: &Value) -> Vec<ChainLink> {
    let Some(from) = ActionId::parse(action) else {
        return Vec::new();
    };
    ChainRule::out_of(from)
        .filter_map(|rule| {
            let value = rule.value_in(record)?;
            Some(ChainLink {
                label: rule.to.purpose(),
                href: action_form_prefilled(rule.to.as_str(), &[(rule.input_field(), value)]),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn columns_are_every_key_in_first_seen_order() {
        let records = vec![json!({"b": 1, "a": 2}), json!({"c": 3, "a": 4}), json!(5)];
        // serde_json's map keeps keys sorted; first-seen order is across records.
        assert_eq!(columns(&records), ["a", "b", "c", "value"]);
        assert_eq!(cell(&records[2], "value"), Some(&json!(5)));
        assert_eq!(cell(&records[1], "b"), None);
    }

    #[test]
    fn columns_met_a_slice_at_a_time_are_those_of_all_the_records_at_once() {
        let records = vec![
            json!({"b": 1, "a": 2}),
            json!(5),
            json!({"c": 3, "a": 4}),
            json!({"d": 1, "b": 2}),
        ];
        let mut found = ColumnsFound::default();
        for slice in records.chunks(1) {
            found.add(slice);
        }
        assert_eq!(found.columns, columns(&records));
        assert_eq!(found.columns, ["a", "b", "value", "c", "d"]);
    }

    #[test]
    fn columns_met_already_are_not_met_again() {
        let mut found = ColumnsFound::with_columns(vec!["b".into(), "a".into()]);
        found.add(&[json!({"a": 1, "c": 2, "b": 3})]);
        assert_eq!(found.columns, ["b", "a", "c"]);
    }

    #[test]
    fn only_clean_https_urls_become_links() {
        assert_eq!(
            safe_link("https://www.network.com/in/x"),
            Some("https://www.network.com/in/x")
        );
        assert_eq!(
            safe_link("HTTPS://example.com"),
            Some("HTTPS://example.com")
        );
        for unsafe_text in [
            "javascript:alert(1)",
            "  javascript:alert(1)",
            "data:text/html,<script>alert(1)</script>",
            "http://insecure.example/in/x",
            " https://example.com",
            "https://",
            "https:///path",
            "https://@evil",
            "https://exa mple.com",
            "https://example.com/\u{202e}x",
            "https://example.com/\nx",
            "<a href=\"https://x\">",
        ] {
            assert_eq!(safe_link(unsafe_text), None, "{unsafe_text:?}");
        }
    }

    #[test]
    fn direction_controls_are_shown_by_name() {
        assert_eq!(visible("\u{202e}gnp.exe"), "[RLO]gnp.exe");
        assert_eq!(visible("مرحبا — שלום ✓"), "مرحبا — שלום ✓");
    }

    #[test]
    fn long_text_is_shortened_on_a_character_boundary() {
        let long = "é".repeat(SHORT_TEXT + 5);
        let (short, cut) = shorten(&long);
        assert!(cut);
        assert_eq!(short.chars().count(), SHORT_TEXT);
        assert_eq!(shorten("short"), ("short", false));
    }

    #[test]
    fn csv_neutralises_formulas_and_quotes_separators() {
        let field = |text: &str| {
            let mut csv = CsvText::new();
            csv.line([text, "next"]);
            csv.into_text()
        };
        assert_eq!(
            field("=HYPERLINK(\"x\")"),
            "\"'=HYPERLINK(\"\"x\"\")\",next\r\n"
        );
        assert_eq!(field("+cmd"), "'+cmd,next\r\n");
        assert_eq!(field("-2+3"), "'-2+3,next\r\n");
        assert_eq!(field("@SUM(1+1)"), "'@SUM(1+1),next\r\n");
        assert_eq!(field("\tx"), "'\tx,next\r\n");
        assert_eq!(field("\rx"), "\"'\rx\",next\r\n");
        assert_eq!(field("plain"), "plain,next\r\n");
        assert_eq!(field("a,b"), "\"a,b\",next\r\n");
        assert_eq!(field("line\nbreak"), "\"line\nbreak\",next\r\n");
        assert_eq!(field(""), ",next\r\n");
        assert_eq!(field("é ü 中"), "é ü 中,next\r\n");
    }

    #[test]
    fn the_csv_crate_reads_back_what_is_written() {
        let lines: [&[&str]; 4] = [
            &["name", "note", "empty", "n"],
            &["Ada \"The Countess\"", "a,b\r\nc", "", "3"],
            &["", "", "", ""],
            &["line\nbreak", "=1+1", "\u{2028} 中", "-5"],
        ];
        let mut csv = CsvText::new();
        for line in lines {
            csv.line(line);
        }
        let text = csv.into_text();
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(text.as_bytes());
        let read: Vec<Vec<String>> = reader
            .records()
            .map(|r| r.unwrap().iter().map(str::to_owned).collect())
            .collect();
        let expected: Vec<Vec<String>> = lines
            .iter()
            .map(|line| line.iter().map(|f| neutralise(f).into_owned()).collect())
            .collect();
        assert_eq!(read, expected);
    }

    #[test]
    fn summaries_are_compact() {
        assert_eq!(summary(&json!({"a": 1, "b": 2})), "{2 fields}");
        assert_eq!(summary(&json!({"a": 1})), "{1 field}");
        assert_eq!(summary(&json!([1])), "[1 item]");
        assert_eq!(summary(&json!("x")), "x");
        assert_eq!(plain(&json!(null)), "null");
        assert_eq!(plain(&json!(1.5)), "1.5");
    }

    #[test]
    fn chains_follow_the_contract() {
        let profile = json!({"network_profile_identifier": "ACoAA x/y", "name": "A"});
        assert_eq!(
            chain_links("network-extract-people", &profile),
            [ChainLink {
                label: "Get profile posts",
                href: "/actions/network-extract-people-post-activity?identifier=ACoAA%20x%2Fy"
                    .to_owned()
            }]
        );
        let post = json!({"social_id": "urn:network:activity:123"});
        for action in [
            "network-extract-people-post-activity",
            "network-search-content",
        ] {
            let links = chain_links(action, &post);
            assert_eq!(links.len(), 2);
            assert_eq!(links[0].label, "Get post comments");
            assert_eq!(links[1].label, "Get post reactions");
            assert_eq!(
                links[0].href,
                "/actions/network-extract-post-commenters?social_id=urn%3Anetwork%3Aactivity%3A123"
            );
            assert_eq!(
                links[1].href,
                "/actions/network-extract-post-likers?social_id=urn%3Anetwork%3Aactivity%3A123"
            );
        }
        assert!(chain_links("premium-search-people", &post).is_empty());
        assert!(chain_links("network-extract-people", &json!({"name": "no id"})).is_empty());
        assert!(chain_links("network-search-content", &json!({"social_id": ""})).is_empty());
        assert!(chain_links("no-such-action", &post).is_empty());
    }
}
