//! The action registry from `GET /v1/actions`, grouped the way people think of the actions.

use api_contract::{ActionEntry, ActionGroup, ActionId};
use leptos::prelude::*;

use crate::components::ApiErrorPanel;
use crate::shared_state::use_shared_state;

#[component]
pub fn ActionsPage() -> impl IntoView {
    let actions = use_shared_state().actions();

    view! {
        <section class="page">
            <h1>"Actions"</h1>
            <p class="lead">"Every action the API offers, in its published order."</p>
            {move || match actions.get() {
                None => view! { <p class="loading">"Loading the actions…"</p> }.into_any(),
                Some(Ok(list)) => view! { <ActionGroups entries=list.actions /> }.into_any(),
                Some(Err(error)) => view! { <ApiErrorPanel error context="Loading the actions" /> }.into_any(),
            }}
        </section>
    }
}

/// The registry split into groups; an action this console does not know goes under "Other".
#[component]
fn ActionGroups(entries: Vec<ActionEntry>) -> impl IntoView {
    let count = entries.len();
    let group_of = |e: &ActionEntry| ActionId::parse(&e.id).map(ActionId::group);
    let groups = ActionGroup::ALL
        .into_iter()
        .map(|group| {
            let members: Vec<ActionEntry> = entries
                .iter()
                .filter(|e| group_of(e) == Some(group))
                .cloned()
                .collect();
            (group.label(), members)
        })
        .chain(std::iter::once((
            "Other",
            entries
                .iter()
                .filter(|e| group_of(e).is_none())
                .cloned()
                .collect(),
        )))
        .filter(|(_, members)| !members.is_empty())
        .map(|(label, members)| {
            view! {
                <section class="action-group" data-group=label>
                    <h2 class="group-title">{label}</h2>
                    <ul class="action-list">
                        {members.into_iter().map(|entry| view! { <ActionCard entry /> }).collect_view()}
                    </ul>
                </section>
            }
        })
        .collect_view();
    view! {
        <p class="muted" data-field="action-count">{count} " actions"</p>
        {groups}
    }
}

#[component]
fn ActionCard(entry: ActionEntry) -> impl IntoView {
    let known = ActionId::parse(&entry.id);
    let purpose = known.map_or(
        "Not known to this version of the console",
        ActionId::purpose,
    );
    let inputs = match (known, &entry.input_keys) {
        (Some(action), _) => action
            .input_shapes()
            .iter()
            .map(|shape| describe_shape(shape.fields()))
            .collect::<Vec<_>>()
            .join(" or "),
        (None, Some(keys)) => keys.join(", "),
        (None, None) => String::new(),
    };
    let cost = known.map_or_else(
        || format!("{} credits per record", entry.credits_per_record),
        |a| a.cost_rule().to_owned(),
    );
    view! {
        <li class="action-card" data-action=entry.id.clone()>
            <div class="action-head">
                <code class="action-id">{entry.id.clone()}</code>
                <span class="action-purpose">{purpose}</span>
            </div>
            <dl class="action-facts">
                <dt>"Cost"</dt><dd>{cost}</dd>
                <dt>"Max results"</dt><dd>{entry.max_results}</dd>
                <dt>"Input"</dt><dd>{inputs}</dd>
            </dl>
        </li>
    }
}

/// `first_name, last_name, company (optional: network_profile_url)`.
fn describe_shape(fields: &[api_contract::FieldSpec]) -> String {
    let names = |required: bool| {
        fields
            .iter()
            .filter(|f| f.required == required)
            .map(|f| f.name)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (required, optional) = (names(true), names(false));
    if optional.is_empty() {
        required
    } else {
        format!("{required} (optional: {optional})")
    }
}

#[cfg(test)]
mod tests {
    use super::describe_shape;
    use api_contract::{ActionId, InputShape};

    #[test]
    fn inputs_are_described_per_shape() {
        assert_eq!(
            describe_shape(InputShape::StandardPerson.fields()),
            "first_name, last_name, company (optional: network_profile_url)"
        );
        let metrics: Vec<String> = ActionId::PremiumSearchCompanyMetrics
            .input_shapes()
            .iter()
            .map(|s| describe_shape(s.fields()))
            .collect();
        assert_eq!(
            metrics.join(" or "),
            "company (optional: keywords) or keywords"
        );
    }
}
