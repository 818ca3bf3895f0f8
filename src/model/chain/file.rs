//! A chain kept as a small JSON file, to start it in another browser or workspace
//! (docs/chains.md shows one):
//!
//! ```json
//! { "format": "console-chain", "version": 1,
//!   "chain": { "name": "…", "first": { "action": "…", "max_results": 1 },
//!              "steps": [ { "action": "…", "max_results": 3, "first_records_of_each": 1 } ] } }
//! ```
//!
//! An imported file is taken whole or not at all: one that is not such a file, of a later
//! version, too large, or whose chain does not match the contract and the API's registry is
//! refused with the reason ([`ImportRefusal`]), and nothing changes.

use api_contract::ActionEntry;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ChainPlan, PlanProblem};

/// The file's `format`: what says it is a chain.
pub const CHAIN_FILE_FORMAT: &str = "console-chain";
/// The version this console writes and reads.
pub const CHAIN_FILE_VERSION: u64 = 1;
/// A chain file is a few hundred bytes; anything past this is not one.
pub const CHAIN_FILE_MAX_BYTES: usize = 64 * 1024;

/// A refusal names at most this many of a chain's problems.
const PROBLEMS_SAID: usize = 3;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ChainFile {
    format: String,
    version: u64,
    chain: ChainPlan,
}

/// Why an imported file was not taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImportRefusal {
    TooLarge {
        bytes: usize,
    },
    NotJson(String),
    NotAChainFile,
    LaterVersion(u64),
    /// The file says it is a chain but its content is not what the format says.
    Malformed(String),
    /// A well-formed chain that does not match the contract or the API's registry.
    DoesNotRun(Vec<PlanProblem>),
}

impl std::fmt::Display for ImportRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ImportRefusal::TooLarge { bytes } => write!(
                f,
                "This file has {bytes} bytes; a chain file has at most {CHAIN_FILE_MAX_BYTES}."
            ),
            ImportRefusal::NotJson(why) => write!(f, "This file is not JSON ({why})."),
            ImportRefusal::NotAChainFile => write!(
                f,
                "This file is not a chain saved by the console (no \"format\": \"{CHAIN_FILE_FORMAT}\")."
            ),
            ImportRefusal::LaterVersion(version) => write!(
                f,
                "This chain file is of version {version}, later than this console reads \
                 ({CHAIN_FILE_VERSION}): update the console."
            ),
            ImportRefusal::Malformed(why) => write!(f, "This chain file is damaged: {why}."),
            ImportRefusal::DoesNotRun(problems) => {
                f.write_str("This chain cannot run here: ")?;
                let said: Vec<String> = problems
                    .iter()
                    .take(PROBLEMS_SAID)
                    .map(ToString::to_string)
                    .collect();
                f.write_str(&said.join("; "))?;
                match problems.len().saturating_sub(PROBLEMS_SAID) {
                    0 => Ok(()),
                    more => write!(f, "; and {more} more."),
                }
            }
        }
    }
}

/// The file for `plan`, as it is downloaded.
pub fn export(plan: &ChainPlan) -> String {
    let file = ChainFile {
        format: CHAIN_FILE_FORMAT.to_owned(),
        version: CHAIN_FILE_VERSION,
        chain: plan.clone(),
    };
    serde_json::to_string_pretty(&file).expect("a plan is plain data")
}

/// The plan in `text`, if it is a chain file this console reads and its chain runs against
/// `registry`.
pub fn import(text: &str, registry: &[ActionEntry]) -> Result<ChainPlan, ImportRefusal> {
    if text.len() > CHAIN_FILE_MAX_BYTES {
        return Err(ImportRefusal::TooLarge { bytes: text.len() });
    }
    let value: Value =
        serde_json::from_str(text).map_err(|error| ImportRefusal::NotJson(error.to_string()))?;
    if value.get("format").and_then(Value::as_str) != Some(CHAIN_FILE_FORMAT) {
        return Err(ImportRefusal::NotAChainFile);
    }
    match value.get("version").and_then(Value::as_u64) {
        Some(CHAIN_FILE_VERSION) => {}
        Some(later) if later > CHAIN_FILE_VERSION => {
            return Err(ImportRefusal::LaterVersion(later));
        }
        _ => {
            return Err(ImportRefusal::Malformed(format!(
                "\"version\" is not {CHAIN_FILE_VERSION}"
            )));
        }
    }
    let file: ChainFile = serde_json::from_value(value)
        .map_err(|error| ImportRefusal::Malformed(error.to_string()))?;
    let problems = file.chain.problems(registry);
    if problems.is_empty() {
        Ok(file.chain)
    } else {
        Err(ImportRefusal::DoesNotRun(problems))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;
    use crate::model::chain::tests::{profile_posts_comments, registry};

    fn file_with(chain: Value) -> String {
        json!({ "format": CHAIN_FILE_FORMAT, "version": 1, "chain": chain }).to_string()
    }

    fn good_chain() -> Value {
        json!({
            "name": "Who commented",
            "first": { "action": "network-extract-people", "max_results": 1 },
            "steps": [
                { "action": "network-extract-people-post-activity", "max_results": 3, "first_records_of_each": 1 },
                { "action": "network-extract-post-commenters", "max_results": 5, "first_records_of_each": 3 },
            ],
        })
    }

    #[test]
    fn an_exported_plan_imports_as_itself() {
        let plan = profile_posts_comments(3, 5);
        assert_eq!(import(&export(&plan), &registry()), Ok(plan.clone()));
        assert_eq!(import(&file_with(good_chain()), &registry()), Ok(plan));
    }

    /// A plan's rows per batch travels with it when it is not the default, and one out of
    /// bounds (a batch of no rows, or larger than a spreadsheet) is refused with the bounds.
    #[test]
    fn rows_per_batch_travels_with_the_plan_within_its_bounds() {
        let plan = ChainPlan {
            rows_per_batch: 500,
            ..profile_posts_comments(3, 5)
        };
        let file = export(&plan);
        assert!(file.contains("\"rows_per_batch\": 500"), "{file}");
        assert_eq!(import(&file, &registry()), Ok(plan));
        assert!(!export(&profile_posts_comments(3, 5)).contains("rows_per_batch"));
        for rows in [0, 9, 10_001, u32::MAX] {
            let mut chain = good_chain();
            chain["rows_per_batch"] = json!(rows);
            assert!(
                refusal(&file_with(chain))
                    .contains("A batch of a chain's step holds 10 to 10,000 rows"),
                "{rows}"
            );
        }
    }

    fn refusal(text: &str) -> String {
        import(text, &registry()).unwrap_err().to_string()
    }

    #[test]
    fn hostile_and_wrong_files_are_refused_with_the_reason() {
        assert_eq!(
            refusal(&" ".repeat(CHAIN_FILE_MAX_BYTES + 1)),
            "This file has 65537 bytes; a chain file has at most 65536."
        );
        assert!(refusal("name,steps\n").starts_with("This file is not JSON ("));
        assert!(refusal(&"[".repeat(10_000)).starts_with("This file is not JSON ("));
        assert!(refusal(r#"{"runs": []}"#).starts_with("This file is not a chain saved"));
        assert!(
            refusal(r#"{"format": "console-case", "version": 1}"#)
                .starts_with("This file is not a chain")
        );
        assert_eq!(
            refusal(r#"{"format": "console-chain", "version": 2, "chain": {}}"#),
            "This chain file is of version 2, later than this console reads (1): update the console."
        );
        assert!(
            refusal(r#"{"format": "console-chain", "version": "1"}"#)
                .starts_with("This chain file is damaged")
        );
        assert!(
            refusal(r#"{"format": "console-chain", "version": 1}"#)
                .contains("missing field `chain`")
        );
    }

    #[test]
    fn content_that_is_not_what_the_format_says_is_damaged() {
        let with = |edit: &dyn Fn(&mut Value)| {
            let mut chain = good_chain();
            edit(&mut chain);
            refusal(&file_with(chain))
        };
        assert!(
            with(&|c| c["first"]["action"] = json!("drop-tables"))
                .contains("unknown action id `drop-tables`")
        );
        assert!(
            with(&|c| c["steps"][0]["max_results"] = json!(-1))
                .starts_with("This chain file is damaged")
        );
        assert!(
            with(&|c| c["steps"][0]["max_results"] = json!(1e300))
                .starts_with("This chain file is damaged")
        );
        assert!(
            with(&|c| c["steps"][0]["max_results"] = json!(4_294_967_296u64))
                .starts_with("This chain file is damaged")
        );
        assert!(
            with(&|c| c["steps"][0]["script"] = json!("<script>"))
                .contains("unknown field `script`")
        );
        assert!(with(&|c| c["name"] = json!(null)).starts_with("This chain file is damaged"));
        // A key written twice takes its last value, as the browser's JSON.parse does.
        let duplicate = file_with(good_chain()).replacen("\"name\"", "\"name\":\"a\",\"name\"", 1);
        assert_eq!(
            import(&duplicate, &registry()).unwrap().name,
            "Who commented"
        );
    }

    #[test]
    fn a_chain_the_contract_does_not_allow_is_refused_whole() {
        let mut chain = good_chain();
        chain["steps"][1]["action"] = json!("network-extract-company");
        assert_eq!(
            refusal(&file_with(chain)),
            "This chain cannot run here: step 3: the contract does not chain \
             network-extract-people-post-activity into network-extract-company: \
             network-extract-people-post-activity chains into network-extract-post-commenters or \
             network-extract-post-likers."
        );
        let mut chain = good_chain();
        chain["steps"][1]["max_results"] = json!(101);
        assert!(
            refusal(&file_with(chain)).contains("returns 1 to 100 records a run; 101 was asked")
        );
        let mut chain = good_chain();
        chain["steps"] = json!(vec![good_chain()["steps"][0].clone(); 100]);
        let said = refusal(&file_with(chain));
        assert!(said.starts_with("This chain cannot run here"), "{said}");
        assert!(said.ends_with("; and 96 more."), "{said}");
    }

    proptest! {
        /// Any text at all: import answers (never panics), and takes only what runs.
        #[test]
        fn import_never_panics_and_only_takes_what_runs(text in ".{0,400}") {
            if let Ok(plan) = import(&text, &registry()) {
                prop_assert_eq!(plan.problems(&registry()), []);
            }
        }

        /// Any damage to a good file's bytes: refused or a chain that runs, never a panic.
        #[test]
        fn a_damaged_file_is_refused_or_runs(position in 0usize..400, byte in any::<u8>()) {
            let mut bytes = file_with(good_chain()).into_bytes();
            let at = position % bytes.len();
            bytes[at] = byte;
            if let Ok(text) = String::from_utf8(bytes)
                && let Ok(plan) = import(&text, &registry())
            {
                prop_assert_eq!(plan.problems(&registry()), []);
            }
        }
    }
}
