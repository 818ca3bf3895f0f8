//! The column mapping: for each of the action's fields, a column of the file, one value for
//! every row, or nothing.

use leptos::prelude::*;

use crate::model::bulk::{ColumnMapping, Source};
use crate::model::bulk_view::{mapping_label, source_choice, source_of_choice};
use crate::model::form::FormModel;

#[component]
pub(super) fn Mapping(
    model: Memo<Option<FormModel>>,
    mapping: RwSignal<ColumnMapping>,
    headers: Memo<Vec<String>>,
    /// Fields whose value is set elsewhere (a chain's `max_results` and `max_credits`): not
    /// offered here.
    #[prop(optional)]
    set_elsewhere: &'static [&'static str],
) -> impl IntoView {
    let names = move || {
        mapping.with(|m| {
            m.fields()
                .filter(|field| !set_elsewhere.contains(field))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
    };
    view! {
        <fieldset class="bulk-mapping">
            <legend>"Columns for each field"</legend>
            <p class="help">"Matched by header name; choose another column, or one value for every row."</p>
            <For each=names key=|n| n.clone() let:name>
                <MappingRow label=model.with(|m| mapping_label(m.as_ref(), &name)) name mapping headers />
            </For>
        </fieldset>
    }
}

/// One field's source: a `<select>` of the columns, and the value for every row when chosen.
#[component]
fn MappingRow(
    /// The field's name in the input.
    name: String,
    /// The field's label for people.
    label: String,
    mapping: RwSignal<ColumnMapping>,
    headers: Memo<Vec<String>>,
) -> impl IntoView {
    let id = format!("map-{name}");
    let const_id = format!("map-{name}-value");
    let name = StoredValue::new(name);
    let choice = Memo::new(move |_| mapping.with(|m| source_choice(&m.source(&name.read_value()))));
    let on_choice = move |ev: leptos::ev::Event| {
        let source = source_of_choice(&event_target_value(&ev));
        mapping.update(|m| m.set(&name.read_value(), source));
    };
    let constant = move || {
        mapping.with(|m| match m.source(&name.read_value()) {
            Source::Constant(text) => Some(text),
            _ => None,
        })
    };
    let on_constant = move |ev: leptos::ev::Event| {
        let value = event_target_value(&ev);
        mapping.update(|m| m.set(&name.read_value(), Source::Constant(value)));
    };
    view! {
        <div class="mapping-row" data-map=name.get_value()>
            <label for=id.clone()>{label.clone()}</label>
            <select id=id prop:value=move || choice.get() on:change=on_choice>
                <option value="-" selected=move || choice.get() == "-">"Not set"</option>
                {move || headers.get().into_iter().enumerate().map(|(i, h)| {
                    let v = format!("c{i}");
                    let selected = v.clone();
                    view! { <option value=v selected=move || choice.get() == selected>{format!("Column “{h}”")}</option> }
                }).collect_view()}
                <option value="const" selected=move || choice.get() == "const">"Same value for every row"</option>
            </select>
            {move || (choice.get() == "const").then(|| view! {
                <input id=const_id.clone() type="text" aria-label=format!("{label}: value for every row")
                    prop:value=move || constant().unwrap_or_default()
                    on:change=on_constant />
            })}
        </div>
    }
}
