//! A chain over a spreadsheet (the contract's section 4.2, "Chaining actions"): a first action
//! run for every row of a spreadsheet, then steps, each "for every record of the previous step,
//! run this action with its input taken from the field the contract names". The links come
//! from [`api_contract::CHAIN_RULES`] alone: a step exists only where the contract chains.
//!
//! This module holds the plan and its checks ([`ChainPlan::problems`]); [`cost`] bounds what a
//! plan may spend before anything is sent; [`file`] keeps a plan as a small JSON file and
//! refuses one that does not match the contract.

pub mod cost;
pub mod file;
pub mod join;
pub mod kept;
pub mod preview;
pub mod progress;
pub mod steps;

use crate::model::bulk::MAX_ROWS;
use api_contract::input::MAX_RESULTS_LIMIT;
use api_contract::{ActionEntry, ActionId, CarriedBy, ChainRule};
use serde::{Deserialize, Serialize};

/// The most characters of a chain's name (as an API key's name).
pub const CHAIN_NAME_MAX: usize = 100;

/// A chain: what runs first on the spreadsheet's rows, and each step after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainPlan {
    /// The person's name for it, unique per workspace.
    pub name: String,
    pub first: FirstStep,
    /// In order; each takes its inputs from the records of the step before it.
    pub steps: Vec<NextStep>,
    /// The most rows a batch of a later step holds: a step with more runs as several batches
    /// ("parts"), one after another, so what the console holds in memory follows this, not
    /// the step's size (docs/chains.md). Lower it on a computer short of memory. The first
    /// step is the spreadsheet, one batch of at most [`MAX_ROWS`] rows.
    #[serde(
        default = "rows_per_batch_by_default",
        skip_serializing_if = "is_rows_per_batch_by_default"
    )]
    pub rows_per_batch: u32,
}

/// A later step's batch holds at most this many rows unless the plan says fewer: as many as a
/// spreadsheet the bulk page takes, about 30 MB in the page and the worker together.
pub const ROWS_PER_BATCH: u32 = MAX_ROWS as u32;
/// A plan's `rows_per_batch` is at least this.
pub const ROWS_PER_BATCH_AT_LEAST: u32 = 10;

fn rows_per_batch_by_default() -> u32 {
    ROWS_PER_BATCH
}

fn is_rows_per_batch_by_default(rows: &u32) -> bool {
    *rows == ROWS_PER_BATCH
}

/// The action run once for each distinct row of the spreadsheet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FirstStep {
    pub action: ActionId,
    /// Records each run asks for (the submission's `max_results`).
    pub max_results: u32,
}

/// A step: `action` run once for each distinct value of the contract's field among the first
/// `first_records_of_each` records of every run of the step before.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NextStep {
    pub action: ActionId,
    /// Records each run asks for (the submission's `max_results`).
    pub max_results: u32,
    /// Of each run of the step before, how many records (in the order returned) feed this step.
    pub first_records_of_each: u32,
}

/// What a plan breaks, said for people: which step and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanProblem {
    /// 0 for the first step, 1 for the first [`NextStep`], and so on; `None` for the whole plan.
    pub step: Option<usize>,
    pub message: String,
}

impl PlanProblem {
    fn of_step(step: usize, message: String) -> PlanProblem {
        PlanProblem {
            step: Some(step),
            message,
        }
    }

    fn of_plan(message: impl Into<String>) -> PlanProblem {
        PlanProblem {
            step: None,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for PlanProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.step {
            Some(step) => write!(f, "step {}: {}", step + 1, self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// An action's registry entry as the chain needs it: its price and its ceiling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActionTerms {
    pub credits_per_record: u64,
    /// The registry's `max_results` for the action, within the contract's 1 to 100.
    pub max_results_ceiling: u32,
}

impl ActionTerms {
    /// The terms of `action` in the registry the API returned; `None` when it lists no such action.
    pub fn of(registry: &[ActionEntry], action: ActionId) -> Option<ActionTerms> {
        registry
            .iter()
            .find(|entry| entry.id == action.as_str())
            .map(|entry| ActionTerms {
                credits_per_record: entry.credits_per_record,
                max_results_ceiling: entry.max_results.clamp(1, MAX_RESULTS_LIMIT),
            })
    }
}

impl ChainPlan {
    /// The actions a chain may start with: those the contract chains out of.
    pub fn first_actions() -> impl Iterator<Item = ActionId> {
        ActionId::ALL
            .into_iter()
            .filter(|action| ChainRule::out_of(*action).next().is_some())
    }

    /// The plan for `first` and the longest chain the contract gives from it (taking the first
    /// rule at each step: posts, then comments), each step at its registry ceiling and every
    /// record feeding the next.
    pub fn suggested(first: ActionId, registry: &[ActionEntry]) -> ChainPlan {
        let ceiling =
            |action| ActionTerms::of(registry, action).map_or(1, |t| t.max_results_ceiling);
        let mut steps = Vec::new();
        let mut from = first;
        while let Some(rule) = ChainRule::out_of(from).next() {
            steps.push(NextStep {
                action: rule.to,
                max_results: ceiling(rule.to),
                first_records_of_each: rule.records_per_run(ceiling(from)),
            });
            from = rule.to;
        }
        ChainPlan {
            name: format!("{} chain", first.purpose()),
            first: FirstStep {
                action: first,
                max_results: ceiling(first),
            },
            steps,
            rows_per_batch: ROWS_PER_BATCH,
        }
    }

    /// The action of step `index` (0: the first step).
    pub fn action_at(&self, index: usize) -> Option<ActionId> {
        match index {
            0 => Some(self.first.action),
            _ => self.steps.get(index - 1).map(|step| step.action),
        }
    }

    /// The contract's rule feeding step `index` (≥ 1) from the step before.
    pub fn rule_into(&self, index: usize) -> Option<ChainRule> {
        let from = self.action_at(index.checked_sub(1)?)?;
        ChainRule::between(from, self.action_at(index)?)
    }

    /// Everything that keeps the plan from running against `registry` (the API's `/v1/actions`);
    /// empty when it can run.
    pub fn problems(&self, registry: &[ActionEntry]) -> Vec<PlanProblem> {
        let mut problems = Vec::new();
        let name = self.name.trim();
        if name.is_empty() {
            problems.push(PlanProblem::of_plan("The chain needs a name."));
        } else if name.chars().count() > CHAIN_NAME_MAX {
            problems.push(PlanProblem::of_plan(format!(
                "A chain's name has at most {CHAIN_NAME_MAX} characters."
            )));
        } else if name.chars().any(char::is_control) {
            problems.push(PlanProblem::of_plan(
                "A chain's name cannot hold control characters.",
            ));
        }
        if !(ROWS_PER_BATCH_AT_LEAST..=ROWS_PER_BATCH).contains(&self.rows_per_batch) {
            problems.push(PlanProblem::of_plan(format!(
                "A batch of a chain's step holds {} to {} rows, not {}.",
                ROWS_PER_BATCH_AT_LEAST,
                crate::model::format::group_thousands(ROWS_PER_BATCH.into()),
                crate::model::format::group_thousands(self.rows_per_batch.into()),
            )));
        }
        if self.steps.is_empty() {
            problems.push(PlanProblem::of_plan(
                "A chain has at least one step after the first.",
            ));
        }
        problems.extend(max_results_problem(
            0,
            self.first.action,
            self.first.max_results,
            registry,
        ));
        for (offset, step) in self.steps.iter().enumerate() {
            let index = offset + 1;
            let from = self.action_at(offset).expect("the step before exists");
            let Some(rule) = ChainRule::between(from, step.action) else {
                problems.push(PlanProblem::of_step(
                    index,
                    format!(
                        "the contract does not chain {from} into {}: {}",
                        step.action,
                        chains_from(from)
                    ),
                ));
                continue;
            };
            problems.extend(max_results_problem(
                index,
                step.action,
                step.max_results,
                registry,
            ));
            let most = rule.records_per_run(MAX_RESULTS_LIMIT);
            if !(1..=most).contains(&step.first_records_of_each) {
                let message = match rule.carried_by {
                    CarriedBy::FirstRecord => format!(
                        "only the first record of {from} carries `{}`: the first 1 of each, not {}.",
                        rule.field, step.first_records_of_each
                    ),
                    CarriedBy::EveryRecord => format!(
                        "the first 1 to {most} records of each run feed this step, not {}.",
                        step.first_records_of_each
                    ),
                };
                problems.push(PlanProblem::of_step(index, message));
            }
        }
        problems
    }
}

/// What is wrong with asking `action` for `asked` records a run at step `index`, if anything.
fn max_results_problem(
    index: usize,
    action: ActionId,
    asked: u32,
    registry: &[ActionEntry],
) -> Option<PlanProblem> {
    let message = match ActionTerms::of(registry, action) {
        None => format!("the API's registry has no action `{action}`."),
        Some(terms) if !(1..=terms.max_results_ceiling).contains(&asked) => format!(
            "{action} returns 1 to {} records a run; {asked} was asked.",
            terms.max_results_ceiling
        ),
        Some(_) => return None,
    };
    Some(PlanProblem::of_step(index, message))
}

/// What `from` chains into, for a message.
fn chains_from(from: ActionId) -> String {
    let targets: Vec<&str> = ChainRule::out_of(from)
        .map(|rule| rule.to.as_str())
        .collect();
    if targets.is_empty() {
        format!("nothing chains out of {from}.")
    } else {
        format!("{from} chains into {}.", targets.join(" or "))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The registry the sandbox serves.
    pub(crate) fn registry() -> Vec<ActionEntry> {
        ActionId::ALL
            .into_iter()
            .map(ActionId::sandbox_registry_entry)
            .collect()
    }

    pub(crate) fn profile_posts_comments(posts: u32, comments: u32) -> ChainPlan {
        ChainPlan {
            name: "Who commented".into(),
            first: FirstStep {
                action: ActionId::NetworkExtractPeople,
                max_results: 1,
            },
            steps: vec![
                NextStep {
                    action: ActionId::NetworkExtractPeoplePostActivity,
                    max_results: posts,
                    first_records_of_each: 1,
                },
                NextStep {
                    action: ActionId::NetworkExtractPostCommenters,
                    max_results: comments,
                    first_records_of_each: posts,
                },
            ],
            rows_per_batch: ROWS_PER_BATCH,
        }
    }

    #[test]
    fn chains_start_where_the_contract_chains_out() {
        let firsts: Vec<ActionId> = ChainPlan::first_actions().collect();
        assert_eq!(
            firsts,
            [
                ActionId::NetworkExtractPeople,
                ActionId::NetworkExtractPeoplePostActivity,
                ActionId::NetworkSearchContent,
            ]
        );
    }

    #[test]
    fn the_suggested_plans_run() {
        for first in ChainPlan::first_actions() {
            let plan = ChainPlan::suggested(first, &registry());
            assert_eq!(plan.problems(&registry()), [], "{first}");
        }
        let plan = ChainPlan::suggested(ActionId::NetworkExtractPeople, &registry());
        let actions: Vec<ActionId> = (0..=plan.steps.len())
            .map(|i| plan.action_at(i).unwrap())
            .collect();
        assert_eq!(
            actions,
            [
                ActionId::NetworkExtractPeople,
                ActionId::NetworkExtractPeoplePostActivity,
                ActionId::NetworkExtractPostCommenters,
            ]
        );
        assert_eq!(plan.steps[0].first_records_of_each, 1, "output[0] only");
    }

    #[test]
    fn every_step_takes_a_field_the_step_before_returns() {
        let plan = profile_posts_comments(3, 5);
        assert_eq!(plan.problems(&registry()), []);
        for index in 1..=plan.steps.len() {
            let rule = plan.rule_into(index).unwrap();
            assert_eq!(Some(rule.from), plan.action_at(index - 1));
            assert_eq!(Some(rule.to), plan.action_at(index));
        }
        assert_eq!(plan.rule_into(0), None);
        assert_eq!(plan.rule_into(3), None);
    }

    #[test]
    fn a_step_the_contract_does_not_chain_is_refused_with_what_does() {
        let mut plan = profile_posts_comments(3, 5);
        plan.steps[1].action = ActionId::NetworkExtractCompany;
        let problems = plan.problems(&registry());
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(
            problems[0].to_string(),
            "step 3: the contract does not chain network-extract-people-post-activity into \
             network-extract-company: network-extract-people-post-activity chains into \
             network-extract-post-commenters or network-extract-post-likers."
        );
    }

    #[test]
    fn caps_out_of_bounds_are_refused() {
        let mut plan = profile_posts_comments(3, 5);
        plan.first.max_results = 2; // an enrichment returns one record in the sandbox
        plan.steps[0].first_records_of_each = 2;
        plan.steps[1].max_results = 0;
        plan.steps[1].first_records_of_each = 101;
        let messages: Vec<String> = plan
            .problems(&registry())
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            messages,
            [
                "step 1: network-extract-people returns 1 to 1 records a run; 2 was asked.",
                "step 2: only the first record of network-extract-people carries \
                 `network_profile_identifier`: the first 1 of each, not 2.",
                "step 3: network-extract-post-commenters returns 1 to 100 records a run; 0 was asked.",
                "step 3: the first 1 to 100 records of each run feed this step, not 101.",
            ]
        );
    }

    #[test]
    fn a_plan_needs_a_name_and_a_step() {
        let mut plan = profile_posts_comments(3, 5);
        plan.name = "  ".into();
        plan.steps.clear();
        assert_eq!(plan.problems(&registry()).len(), 2);
        plan.name = "x".repeat(CHAIN_NAME_MAX + 1);
        assert_eq!(plan.problems(&registry()).len(), 2);
        plan.name = "a\u{7}b".into();
        assert_eq!(plan.problems(&registry()).len(), 2);
    }

    #[test]
    fn an_action_the_registry_lacks_is_refused() {
        let plan = profile_posts_comments(3, 5);
        let registry: Vec<ActionEntry> = registry()
            .into_iter()
            .filter(|e| e.id != "network-extract-post-commenters")
            .collect();
        let problems = plan.problems(&registry);
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].step, Some(2));
    }
}

/// A whole chain run natively against the sandbox's own records (the same generator its API
/// answers from), as the example: 20 profile URLs with 4 repeats → posts → comments.
#[cfg(test)]
mod whole_chain {
    use std::collections::HashSet;

    use api_contract::{ActionId, Submission};
    use sandbox::data::{Outcome, generate};
    use serde_json::Value;

    use super::cost::ChainWorstCase;
    use super::join::{ChainJoin, FirstStepRow, LaterStepRow};
    use super::steps::{NextStepRows, checked_step_rows};
    use super::tests::{profile_posts_comments, registry};
    use crate::model::bulk::{ColumnMapping, Table, TableRow, check_rows};
    use crate::model::form::FormModel;

    /// What the sandbox returns for a checked row's body, and what it charges.
    fn run(action: ActionId, body: &str) -> (Vec<Value>, u64) {
        let body: Value = serde_json::from_str(body).unwrap();
        let submission = Submission::validate(action, &body).unwrap();
        let limit = submission.effective_max_results(action.sandbox_max_results()) as usize;
        match generate(action, &submission.input, limit) {
            Outcome::Records { records, .. } => {
                let charged = records.len() as u64 * action.credits_per_record();
                (records, charged)
            }
            Outcome::Failed { code, message } => panic!("{code}: {message}"),
        }
    }

    #[test]
    fn twenty_profiles_with_four_repeats_then_posts_then_comments() {
        let plan = profile_posts_comments(3, 5);
        let handles = ["ada", "bob", "cy", "dee", "eve", "fay", "gus", "hal"];
        let mut urls: Vec<String> = (0..16)
            .map(|i| format!("https://www.network.com/in/{}-{i}", handles[i % 8]))
            .collect();
        // Four repeats, written as a person would: another case, no `www.`, a trailing slash.
        for i in [1, 5, 9, 13] {
            urls.push(format!("https://network.com/in/{}-{i}/", handles[i % 8]));
        }
        let table = Table {
            headers: vec!["identifier".into()],
            rows: urls
                .iter()
                .enumerate()
                .map(|(i, url)| TableRow {
                    line: i + 2,
                    cells: vec![url.clone()],
                })
                .collect(),
        };
        let form = FormModel::from_entry(&ActionId::NetworkExtractPeople.sandbox_registry_entry());
        let mut mapping = ColumnMapping::by_header(&form, &table.headers);
        mapping.set(
            "max_results",
            crate::model::bulk::Source::Constant("1".into()),
        );
        let checked = check_rows(&form, &mapping, &table);
        let to_send: Vec<_> = checked.iter().filter(|r| r.repeat_of.is_none()).collect();
        assert_eq!(
            to_send.len(),
            16,
            "the same-input rule removes the four repeats"
        );
        let worst = ChainWorstCase::of(&plan, to_send.len() as u64, &registry()).unwrap();

        let mut spent = [0u64; 3];
        let mut first_rows_kept = Vec::new();
        let mut posts_rows = NextStepRows::new(
            plan.rule_into(1).unwrap(),
            plan.steps[0].first_records_of_each,
        );
        for row in &to_send {
            let (output, charged) = run(plan.first.action, &row.body);
            spent[0] += charged;
            posts_rows.take_run(row.line, &output);
            first_rows_kept.push(FirstStepRow {
                line: row.line,
                cells: row.cells.clone(),
                run_id: Some(format!("p{}", row.line)),
                output,
            });
        }
        let mut steps_kept: Vec<Vec<LaterStepRow>> = Vec::new();
        let mut feeding = posts_rows;
        for (offset, step) in plan.steps.iter().enumerate() {
            let checked = checked_step_rows(&feeding, step, &step.action.sandbox_registry_entry());
            assert!(
                checked
                    .iter()
                    .all(|r| r.errors.is_empty() && r.repeat_of.is_none())
            );
            let questions: HashSet<&str> = checked.iter().map(|r| r.body.as_str()).collect();
            assert_eq!(questions.len(), checked.len(), "each input asked once");
            assert!(checked.len() as u64 <= worst.steps[offset + 1].runs);
            let mut next = plan
                .rule_into(offset + 2)
                .map(|rule| NextStepRows::new(rule, plan.steps[offset + 1].first_records_of_each));
            let mut kept = Vec::new();
            for (row, fed) in checked.iter().zip(feeding.rows()) {
                let (output, charged) = run(step.action, &row.body);
                spent[offset + 1] += charged;
                if let Some(next) = next.as_mut() {
                    next.take_run(row.line, &output);
                }
                kept.push(LaterStepRow {
                    line: row.line,
                    run_id: Some(format!("s{}-{}", offset + 2, row.line)),
                    output,
                    parents: fed.parents.clone(),
                });
            }
            steps_kept.push(kept);
            if let Some(next) = next {
                feeding = next;
            }
        }
        for (step, credits) in spent.iter().enumerate() {
            assert!(
                *credits <= worst.steps[step].credits,
                "step {step}: {credits}"
            );
        }
        assert!(spent.iter().sum::<u64>() <= worst.credits);
        assert!(spent[2] > 0, "the sandbox returns comments");

        let comments = steps_kept.pop().unwrap();
        let join = ChainJoin::new(table.headers.clone(), first_rows_kept, steps_kept);
        let joined: Vec<Value> = comments.iter().flat_map(|row| join.joined(row)).collect();
        let comment_records: usize = comments.iter().map(|row| row.output.len()).sum();
        assert_eq!(
            joined.len(),
            comment_records,
            "one row per comment (no post is shared here)"
        );
        for record in &joined {
            assert!(
                record["input.identifier"]
                    .as_str()
                    .unwrap()
                    .contains("/in/")
            );
            assert!(record["step1.network_profile_identifier"].is_string());
            assert!(record["step2.social_id"].is_string());
            assert!(record.get("step3.record").is_some());
        }
    }
}
