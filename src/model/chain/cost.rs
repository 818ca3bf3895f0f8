//! The most a chain can spend, known before anything is sent (docs/chains.md gives the rule).
//!
//! The first step runs once per distinct row (the same-input rule has already removed the
//! spreadsheet's repeats), each run charging at most its `max_results` records. Every later step
//! runs at most once per record fed to it: of each run before it, the first
//! `first_records_of_each` records that carry the contract's field. Repeats reached from two
//! parents run once, so the real count can only be lower; the bound never counts on that.
//! Each submission is sent with `max_credits` = its own worst case, so no run can charge more
//! than the bound counted for it.

use api_contract::{ActionEntry, ActionId};

use super::{ActionTerms, ChainPlan};

/// One step's worst case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepWorstCase {
    pub action: ActionId,
    /// Runs the step may make.
    pub runs: u64,
    /// Records each run may return, and so charge for: the step's `max_results` within the
    /// action's ceiling.
    pub records_per_run: u64,
    /// What one run may charge: the `max_credits` each of its submissions is sent with.
    pub credits_per_run: u64,
    /// `runs` × `credits_per_run`.
    pub credits: u64,
}

/// The chain's worst case: each step's, and their sum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainWorstCase {
    pub steps: Vec<StepWorstCase>,
    pub credits: u64,
}

impl ChainWorstCase {
    /// The worst case of `plan` over `distinct_rows` first-step inputs, at the prices of
    /// `registry`. `None` when the registry lacks one of the plan's actions (the plan's
    /// [`ChainPlan::problems`] says so).
    pub fn of(
        plan: &ChainPlan,
        distinct_rows: u64,
        registry: &[ActionEntry],
    ) -> Option<ChainWorstCase> {
        let mut steps: Vec<StepWorstCase> = Vec::with_capacity(plan.steps.len() + 1);
        let first_terms = ActionTerms::of(registry, plan.first.action)?;
        steps.push(StepWorstCase::new(
            plan.first.action,
            distinct_rows,
            plan.first.max_results,
            first_terms,
        ));
        for (offset, step) in plan.steps.iter().enumerate() {
            let before = steps[offset];
            // A step the contract does not chain feeds nothing; the plan's problems refuse it.
            let fed_per_parent = plan.rule_into(offset + 1).map_or(0, |rule| {
                let returned = u32::try_from(before.records_per_run).unwrap_or(u32::MAX);
                u64::from(rule.records_per_run(returned.min(step.first_records_of_each)))
            });
            let terms = ActionTerms::of(registry, step.action)?;
            steps.push(StepWorstCase::new(
                step.action,
                before.runs.saturating_mul(fed_per_parent),
                step.max_results,
                terms,
            ));
        }
        let credits = steps
            .iter()
            .fold(0u64, |sum, step| sum.saturating_add(step.credits));
        Some(ChainWorstCase { steps, credits })
    }
}

impl StepWorstCase {
    fn new(action: ActionId, runs: u64, max_results: u32, terms: ActionTerms) -> StepWorstCase {
        let records_per_run = u64::from(max_results.clamp(1, terms.max_results_ceiling));
        let credits_per_run = records_per_run.saturating_mul(terms.credits_per_record);
        StepWorstCase {
            action,
            runs,
            records_per_run,
            credits_per_run,
            credits: runs.saturating_mul(credits_per_run),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use api_contract::ChainRule;
    use proptest::prelude::*;

    use super::*;
    use crate::model::chain::tests::{profile_posts_comments, registry};
    use crate::model::chain::{FirstStep, NextStep};

    #[test]
    fn the_issues_example_twenty_rows_with_four_repeats() {
        // 20 profile URLs, 4 of them repeats: 16 enrichments of 20 credits, then the first 3
        // posts of each (3 credits a run), then the first 5 comments of each post.
        let worst = ChainWorstCase::of(&profile_posts_comments(3, 5), 16, &registry()).unwrap();
        let per_step: Vec<(u64, u64)> = worst.steps.iter().map(|s| (s.runs, s.credits)).collect();
        assert_eq!(per_step, [(16, 320), (16, 48), (48, 240)]);
        assert_eq!(worst.credits, 608);
        assert_eq!(worst.steps[2].credits_per_run, 5);
    }

    #[test]
    fn fewer_records_feed_a_step_than_a_run_returns_when_capped() {
        let mut plan = profile_posts_comments(20, 5);
        plan.steps[1].first_records_of_each = 2;
        let worst = ChainWorstCase::of(&plan, 10, &registry()).unwrap();
        assert_eq!(worst.steps[1].credits, 10 * 20);
        assert_eq!(worst.steps[2].runs, 10 * 2);
    }

    #[test]
    fn max_results_is_capped_at_the_registry_ceiling() {
        let mut plan = profile_posts_comments(3, 5);
        plan.first.max_results = 100; // the sandbox's enrichment returns one record
        let worst = ChainWorstCase::of(&plan, 1, &registry()).unwrap();
        assert_eq!(worst.steps[0].credits_per_run, 20);
    }

    #[test]
    fn an_action_missing_from_the_registry_has_no_bound() {
        let registry: Vec<ActionEntry> = registry()
            .into_iter()
            .filter(|e| e.id != "network-extract-post-commenters")
            .collect();
        assert_eq!(
            ChainWorstCase::of(&profile_posts_comments(3, 5), 1, &registry),
            None
        );
    }

    #[test]
    fn enormous_chains_saturate_rather_than_wrap() {
        let worst =
            ChainWorstCase::of(&profile_posts_comments(100, 100), u64::MAX / 2, &registry())
                .unwrap();
        assert_eq!(worst.credits, u64::MAX);
    }

    /// Runs the chain as the console does (each distinct value once per step, the first N of
    /// each run feeding the next), each run answered by `answer` (the records it returns, before
    /// the cap: each the value of the contract's field, or `None` for a record without it), and
    /// sums what the API charged.
    fn spent(plan: &ChainPlan, rows: &[u32], mut answer: impl FnMut() -> Vec<Option<u32>>) -> u64 {
        let registry = registry();
        let mut inputs: Vec<u32> = {
            let mut seen = HashSet::new();
            rows.iter().copied().filter(|r| seen.insert(*r)).collect()
        };
        let mut total = 0;
        for index in 0..=plan.steps.len() {
            let action = plan.action_at(index).unwrap();
            let terms = crate::model::chain::ActionTerms::of(&registry, action).unwrap();
            let asked = if index == 0 {
                plan.first.max_results
            } else {
                plan.steps[index - 1].max_results
            };
            let cap = asked.min(terms.max_results_ceiling) as usize;
            let feeds = plan.steps.get(index).map(|step| {
                let rule = ChainRule::between(action, step.action).unwrap();
                (rule, step.first_records_of_each as usize)
            });
            let mut seen = HashSet::new();
            let mut fed = Vec::new();
            for _input in &inputs {
                let mut returned = answer();
                returned.truncate(cap);
                // The API charges per record returned, the page capped by `max_results`.
                total += returned.len() as u64 * terms.credits_per_record;
                if let Some((rule, first_n)) = feeds {
                    let carried = rule.records_per_run(returned.len() as u32) as usize;
                    for value in returned.iter().take(carried.min(first_n)).flatten() {
                        if seen.insert(*value) {
                            fed.push(*value);
                        }
                    }
                }
            }
            inputs = fed;
        }
        total
    }

    /// Plans the contract allows, each step asking for at most `most` records.
    fn plans(most: u32) -> impl Strategy<Value = ChainPlan> {
        let step = move |action| {
            (1..=most, 1..=most).prop_map(move |(max_results, first)| NextStep {
                action,
                max_results,
                first_records_of_each: first,
            })
        };
        let profile_chain = (
            step(ActionId::NetworkExtractPeoplePostActivity),
            step(ActionId::NetworkExtractPostCommenters),
        )
            .prop_map(|(mut posts, comments)| {
                posts.first_records_of_each = 1;
                ChainPlan {
                    name: "p".into(),
                    first: FirstStep {
                        action: ActionId::NetworkExtractPeople,
                        max_results: 1,
                    },
                    steps: vec![posts, comments],
                    rows_per_batch: crate::model::chain::ROWS_PER_BATCH,
                }
            });
        let search_ceiling = most.min(ActionId::NetworkSearchContent.sandbox_max_results());
        let search_chain = (1..=search_ceiling, step(ActionId::NetworkExtractPostLikers)).prop_map(
            |(max_results, likers)| ChainPlan {
                name: "s".into(),
                first: FirstStep {
                    action: ActionId::NetworkSearchContent,
                    max_results,
                },
                steps: vec![likers],
                rows_per_batch: crate::model::chain::ROWS_PER_BATCH,
            },
        );
        prop_oneof![profile_chain, search_chain]
    }

    proptest! {
        /// Whatever the API answers (any number of records, any of them lacking the field, any
        /// repeats across parents), the chain spends no more than its bound.
        #[test]
        fn the_bound_is_never_below_what_the_chain_can_spend(
            plan in plans(100),
            rows in prop::collection::vec(0u32..40, 1..30),
            pages in prop::collection::vec(
                prop::collection::vec(prop::option::weighted(0.9, 0u32..60), 0..120), 1..20),
        ) {
            prop_assert_eq!(plan.problems(&registry()), []);
            let distinct = rows.iter().collect::<HashSet<_>>().len() as u64;
            let worst = ChainWorstCase::of(&plan, distinct, &registry()).unwrap();
            let mut answers = pages.into_iter().cycle();
            let spent = spent(&plan, &rows, || answers.next().unwrap());
            prop_assert!(spent <= worst.credits, "spent {} > bound {}", spent, worst.credits);
        }

        /// When every run returns a whole page of values never seen before, the chain spends
        /// exactly its bound: the bound is the least that holds, not a loose one.
        #[test]
        fn the_bound_is_reached_when_every_record_is_new(
            plan in plans(12),
            rows in prop::collection::vec(0u32..1_000, 1..6),
        ) {
            let distinct = rows.iter().collect::<HashSet<_>>().len() as u64;
            let worst = ChainWorstCase::of(&plan, distinct, &registry()).unwrap();
            let mut next_value = 1_000;
            let spent = spent(&plan, &rows, || {
                (0..120).map(|_| { next_value += 1; Some(next_value) }).collect()
            });
            prop_assert_eq!(spent, worst.credits);
        }
    }
}
