//! `/actions`: the action registry from `GET /v1/actions`, grouped the way people think of the
//! actions, with a filter and a link to each action's form.

use api_contract::{ActionEntry, ActionGroup, ActionId};
use leptos::prelude::*;

use crate::components::ApiErrorPanel;
use crate::model::urls::action_form_path;
use crate::state::registry::use_registry;

#[component]
pub fn ActionsPage() -> impl IntoView {
    let registry = use_registry();
    view! {
        <section class="page">
            <h1>"Actions"</h1>
            <p class="lead">"Every action the API offers, in its published order."</p>
            <Transition fallback=|| view! { <p class="loading">"Loading the actions…"</p> }>
                {move || Suspend::new(async move {
                    match registry.await {
                        Ok(list) => view! { <ActionGroups entries=list.actions /> }.into_any(),
                        Err(error) => view! { <ApiErrorPanel error context="Loading the actions" /> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

/// The registry split into groups (an action this console does not know goes under "Other"),
/// with a filter that narrows the cards as the person types. Cards are built once; the filter
/// only hides them.
#[component]
fn ActionGroups(entries: Vec<ActionEntry>) -> impl IntoView {
    let count = entries.len();
    let typed = RwSignal::new(String::new());
    // Case folded to ASCII only: action ids, purposes and field names are ASCII.
    let filter = Memo::new(move |_| typed.with(|t| t.trim().to_ascii_lowercase()));
    let cards: Vec<(&'static str, Card)> = entries
        .into_iter()
        .map(|entry| {
            let card = Card::new(entry);
            (card.known.map_or("Other", |a| a.group().label()), card)
        })
        .collect();
    let labels = ActionGroup::ALL.map(ActionGroup::label);
    let all_text: Vec<String> = cards.iter().map(|(_, c)| c.text.clone()).collect();
    let groups = labels
        .into_iter()
        .chain(["Other"])
        .map(|label| {
            let members: Vec<Card> = cards
                .iter()
                .filter(|(l, _)| *l == label)
                .map(|(_, c)| c.clone())
                .collect();
            let texts: Vec<String> = members.iter().map(|c| c.text.clone()).collect();
            (!members.is_empty()).then(|| view! {
                <section class="action-group" data-group=label
                    hidden=move || filter.with(|q| !texts.iter().any(|t| t.contains(q.as_str())))>
                    <h2 class="group-title">{label}</h2>
                    <ul class="action-list">
                        {members.into_iter().map(|card| card.view(filter)).collect_view()}
                    </ul>
                </section>
            })
        })
        .collect_view();
    view! {
        <input class="filter" type="search" aria-label="Filter actions" autocomplete="off"
            placeholder="Filter by id, purpose or input field" bind:value=typed />
        <p class="muted" data-field="action-count">{count} " actions"</p>
        {groups}
        <p class="muted" hidden=move || filter.with(|q| all_text.iter().any(|t| t.contains(q.as_str())))>
            "No action matches the filter."
        </p>
    }
}

/// One action's card: what it does, what it costs, what it takes, and a link to its form.
#[derive(Clone)]
struct Card {
    entry: ActionEntry,
    known: Option<ActionId>,
    inputs: String,
    /// Everything the filter matches, lower-cased.
    text: String,
}

impl Card {
    fn new(entry: ActionEntry) -> Card {
        let known = ActionId::parse(&entry.id);
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
        let text = format!(
            "{} {} {inputs}",
            entry.id,
            known.map_or("", ActionId::purpose)
        )
        .to_ascii_lowercase();
        Card {
            entry,
            known,
            inputs,
            text,
        }
    }

    fn view(self, filter: Memo<String>) -> impl IntoView {
        let Card {
            entry,
            known,
            inputs,
            text,
        } = self;
        let purpose = known.map_or(
            "Not known to this version of the console",
            ActionId::purpose,
        );
        let cost = known.map_or_else(
            || format!("{} credits per record", entry.credits_per_record),
            |a| a.cost_rule().to_owned(),
        );
        view! {
            <li class="action-card" data-action=entry.id.clone()
                hidden=move || filter.with(|q| !text.contains(q.as_str()))>
                <div class="action-head">
                    <a class="action-id" href=action_form_path(&entry.id)><code>{entry.id.clone()}</code></a>
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
