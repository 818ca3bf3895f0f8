//! What the chain page says before anything is sent: each step's worst case in words, the
//! total, the budget the chain pauses at, and the [`Spend`] the safeguards ask about.

use super::ChainPlan;
use super::cost::{ChainWorstCase, StepWorstCase};
use crate::model::format::{counted, group_thousands};
use crate::model::safeguards::Spend;

/// One step's line: "Step 2 · Get profile posts: up to 16 runs (…) × 3 credits = up to 48
/// credits".
pub fn step_sentence(plan: &ChainPlan, worst: &ChainWorstCase, index: usize) -> String {
    let step: &StepWorstCase = &worst.steps[index];
    let runs = match index {
        0 => counted(step.runs, "distinct row", "distinct rows"),
        _ => {
            let fed = plan.steps[index - 1].first_records_of_each;
            let of_each = plan
                .rule_into(index)
                .map_or(fed, |rule| rule.records_per_run(fed));
            let records = match of_each {
                1 => "record".to_owned(),
                many => format!("{many} records"),
            };
            format!(
                "up to {} (the first {records} of each run of step {index})",
                counted(step.runs, "run", "runs"),
            )
        }
    };
    format!(
        "Step {} · {}: {runs}, each up to {} × {} = up to {} credits",
        index + 1,
        step.action.purpose(),
        counted(step.records_per_run, "record", "records"),
        counted(
            step.credits_per_run / step.records_per_run.max(1),
            "credit",
            "credits"
        ),
        group_thousands(step.credits),
    )
}

/// The total, and what the budget changes: "At worst 608 credits in all." and, with a budget
/// below that, "The chain pauses at its budget of 500 credits."
pub fn total_sentence(worst: &ChainWorstCase, budget: Option<u64>) -> String {
    let total = format!(
        "At worst {} credits in all.",
        group_thousands(worst.credits)
    );
    match budget {
        Some(budget) if budget < worst.credits => format!(
            "{total} The chain pauses at its budget of {} credits.",
            group_thousands(budget)
        ),
        _ => total,
    }
}

/// What the chain may spend, for the safeguards' question: its worst case, or its budget when
/// that is lower.
pub fn spend(worst: &ChainWorstCase, budget: Option<u64>) -> Spend {
    Spend::Chain {
        steps: worst.steps.len(),
        worst_case: budget.map_or(worst.credits, |budget| budget.min(worst.credits)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::chain::tests::{profile_posts_comments, registry};

    #[test]
    fn each_step_says_its_worst_case_in_words() {
        let plan = profile_posts_comments(3, 5);
        let worst = ChainWorstCase::of(&plan, 16, &registry()).unwrap();
        let lines: Vec<String> = (0..3).map(|i| step_sentence(&plan, &worst, i)).collect();
        assert_eq!(
            lines,
            [
                "Step 1 · Enrich a profile: 16 distinct rows, each up to 1 record × 20 credits = \
                 up to 320 credits",
                "Step 2 · Get profile posts: up to 16 runs (the first record of each run of step 1), \
                 each up to 3 records × 1 credit = up to 48 credits",
                "Step 3 · Get post comments: up to 48 runs (the first 3 records of each run of \
                 step 2), each up to 5 records × 1 credit = up to 240 credits",
            ]
        );
    }

    #[test]
    fn the_total_and_the_budget_it_pauses_at() {
        let worst = ChainWorstCase::of(&profile_posts_comments(3, 5), 16, &registry()).unwrap();
        assert_eq!(total_sentence(&worst, None), "At worst 608 credits in all.");
        assert_eq!(
            total_sentence(&worst, Some(1_000)),
            "At worst 608 credits in all."
        );
        assert_eq!(
            total_sentence(&worst, Some(500)),
            "At worst 608 credits in all. The chain pauses at its budget of 500 credits."
        );
        assert_eq!(
            spend(&worst, None),
            Spend::Chain {
                steps: 3,
                worst_case: 608
            }
        );
        assert_eq!(
            spend(&worst, Some(500)),
            Spend::Chain {
                steps: 3,
                worst_case: 500
            }
        );
        assert_eq!(
            spend(&worst, Some(900)),
            Spend::Chain {
                steps: 3,
                worst_case: 608
            }
        );
    }
}
