//! What this browser keeps of a workspace's chains, in one value (`store::KEPT_CHAINS`): the
//! chains started, newest first, and the plans saved by name. A chain's steps are bulk batches
//! kept apart (`progress::SavedChain::step_batch_id`), so this value stays small: a plan and a
//! few numbers per chain.

use serde::{Deserialize, Serialize};

use super::ChainPlan;
use super::progress::SavedChain;

/// The most chains kept per workspace: the oldest goes past it (its step batches stay listed
/// on the Bulk page until cleared there).
pub const CHAINS_KEPT_AT_MOST: usize = 100;
/// The most plans saved per workspace.
pub const PLANS_KEPT_AT_MOST: usize = 100;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KeptChains {
    /// Newest first.
    #[serde(default)]
    pub started: Vec<SavedChain>,
    /// By name, in the order of their names.
    #[serde(default)]
    pub plans: Vec<ChainPlan>,
}

/// Names are compared without their outer spaces and case: "Posts chain" and "posts chain "
/// name one plan.
fn same_name(a: &str, b: &str) -> bool {
    a.trim().to_lowercase() == b.trim().to_lowercase()
}

impl KeptChains {
    /// With `chain` kept: in place of the chain of the same id, else first (the oldest goes
    /// past [`CHAINS_KEPT_AT_MOST`]).
    pub fn with_started(mut self, chain: SavedChain) -> KeptChains {
        match self.started.iter_mut().find(|kept| kept.id == chain.id) {
            Some(kept) => *kept = chain,
            None => {
                self.started.insert(0, chain);
                self.started.truncate(CHAINS_KEPT_AT_MOST);
            }
        }
        self
    }

    pub fn without_chain(mut self, id: &str) -> KeptChains {
        self.started.retain(|chain| chain.id != id);
        self
    }

    pub fn chain(&self, id: &str) -> Option<&SavedChain> {
        self.started.iter().find(|chain| chain.id == id)
    }

    /// With `plan` saved under its name, in place of a plan of the same name. `Err` with the
    /// reason when the list is full.
    pub fn with_plan(mut self, plan: ChainPlan) -> Result<KeptChains, String> {
        let full = self.plans.len() >= PLANS_KEPT_AT_MOST;
        match self
            .plans
            .iter_mut()
            .find(|kept| same_name(&kept.name, &plan.name))
        {
            Some(kept) => *kept = plan,
            None if full => {
                return Err(format!(
                    "This workspace already keeps {PLANS_KEPT_AT_MOST} chains: delete one first."
                ));
            }
            None => self.plans.push(plan),
        }
        self.plans
            .sort_by_key(|plan| plan.name.trim().to_lowercase());
        Ok(self)
    }

    pub fn without_plan(mut self, name: &str) -> KeptChains {
        self.plans.retain(|plan| !same_name(&plan.name, name));
        self
    }

    /// The chains started before `cutoff` (ms since the epoch), but `spared`: what the expiry
    /// rule forgets, with their step batches.
    pub fn expired(&self, cutoff: f64, spared: Option<&str>) -> Vec<SavedChain> {
        self.started
            .iter()
            .filter(|chain| chain.created_at < cutoff && Some(chain.id.as_str()) != spared)
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::chain::tests::profile_posts_comments;

    fn started(id: &str, created_at: f64) -> SavedChain {
        SavedChain {
            id: id.into(),
            workspace: "ws".into(),
            plan: profile_posts_comments(3, 5),
            budget: None,
            created_at,
            went_on_after: Vec::new(),
            cancelled: false,
            reuse: crate::model::same_input::ReuseWindow::Off,
            step_rows: Vec::new(),
        }
    }

    fn named(name: &str) -> ChainPlan {
        ChainPlan {
            name: name.into(),
            ..profile_posts_comments(3, 5)
        }
    }

    #[test]
    fn a_chain_is_kept_once_newest_first_and_the_oldest_goes_past_the_limit() {
        let mut kept = KeptChains::default();
        for n in 0..CHAINS_KEPT_AT_MOST + 2 {
            kept = kept.with_started(started(&format!("c{n}"), n as f64));
        }
        assert_eq!(kept.started.len(), CHAINS_KEPT_AT_MOST);
        assert_eq!(kept.started[0].id, format!("c{}", CHAINS_KEPT_AT_MOST + 1));
        assert!(kept.chain("c0").is_none() && kept.chain("c1").is_none());
        let mut changed = started("c5", 5.0);
        changed.went_on_after.push(0);
        let kept = kept.with_started(changed.clone());
        assert_eq!(kept.started.len(), CHAINS_KEPT_AT_MOST);
        assert_eq!(kept.chain("c5"), Some(&changed));
        let kept = kept.without_chain("c5");
        assert!(kept.chain("c5").is_none());
    }

    #[test]
    fn a_plan_saved_again_under_its_name_replaces_it_and_plans_stay_in_name_order() {
        let kept = KeptChains::default()
            .with_plan(named("Posts"))
            .and_then(|k| k.with_plan(named("Authors")))
            .unwrap();
        let mut again = named(" posts ");
        again.steps[0].first_records_of_each = 1;
        let kept = kept.with_plan(again.clone()).unwrap();
        assert_eq!(kept.plans.len(), 2);
        assert_eq!(kept.plans[0].name, "Authors");
        assert_eq!(kept.plans[1], again);
        assert_eq!(kept.without_plan("POSTS").plans.len(), 1);
    }

    #[test]
    fn a_full_list_of_plans_refuses_a_new_name_but_takes_a_known_one() {
        let mut kept = KeptChains::default();
        for n in 0..PLANS_KEPT_AT_MOST {
            kept = kept.with_plan(named(&format!("plan {n:03}"))).unwrap();
        }
        assert!(kept.clone().with_plan(named("one more")).is_err());
        assert!(kept.with_plan(named("plan 007")).is_ok());
    }

    #[test]
    fn the_expiry_rule_forgets_chains_started_before_its_cutoff_but_the_one_shown() {
        let kept = KeptChains::default()
            .with_started(started("old", 10.0))
            .with_started(started("shown", 20.0))
            .with_started(started("new", 100.0));
        let expired: Vec<String> = kept
            .expired(50.0, Some("shown"))
            .into_iter()
            .map(|c| c.id)
            .collect();
        assert_eq!(expired, ["old"]);
    }

    #[test]
    fn what_an_earlier_console_kept_reads_back() {
        let kept: KeptChains = serde_json::from_str("{}").unwrap();
        assert_eq!(kept, KeptChains::default());
    }
}
