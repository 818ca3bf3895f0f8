//! The explorer's column choice: which columns are shown and in which order, kept in this
//! browser per action, and the panel that changes it.

use leptos::prelude::*;

use crate::model::explore::{ColumnChoice, ColumnState};
use crate::model::preferences::Preference;
use crate::state::preferences::use_preferences;

/// An action's column choice as kept in this browser (not a secret: column names); every
/// column in the records' order when none is, or it does not read back.
pub(super) fn remembered_choice(action: &str) -> ColumnChoice {
    use_preferences()
        .read(Preference::ExplorerColumns { action })
        .and_then(|json| serde_json::from_str(&json).ok())
        .unwrap_or_default()
}

/// The person's column choice and what it makes of the columns found.
#[derive(Clone, Copy)]
pub(super) struct ColumnView {
    /// The choice, as kept in this browser.
    pub(super) choice: RwSignal<ColumnChoice>,
    /// Every column found, in the chosen order, each shown or not.
    pub(super) arranged: Memo<Vec<ColumnState>>,
    /// The names of the columns shown, in order.
    pub(super) shown: Memo<Vec<String>>,
}

/// `<details class="columns-panel">`: the columns shown, in their order, each one to hide or
/// show and to move; the choice is kept in this browser for `action`.
#[component]
pub(super) fn ColumnsPanel(
    /// Whose choice it is (`Preference::ExplorerColumns`).
    action: String,
    /// The choice this panel changes.
    columns: ColumnView,
    /// Hidden while the JSON view is shown.
    #[prop(into)]
    hidden: Signal<bool>,
) -> impl IntoView {
    let ColumnView {
        choice,
        arranged,
        shown: columns,
    } = columns;
    let preferences = use_preferences();
    let change_choice = move |change: &dyn Fn(&mut ColumnChoice, &[ColumnState])| {
        let arranged_now = arranged.get_untracked();
        choice.update(|c| change(c, &arranged_now));
        let json = choice.with_untracked(|c| serde_json::to_string(c).expect("names serialize"));
        preferences.keep(Preference::ExplorerColumns { action: &action }, &json);
    };
    let (toggle_change, move_change, reset_change) =
        (change_choice.clone(), change_choice.clone(), change_choice);
    // The list is built when the panel is first opened, and kept: closed, it is not drawn, and
    // a list of many columns built with the explorer lengthened its first task.
    let opened = RwSignal::new(false);
    let column_list = move || {
        opened.get().then(|| {
            let (toggle_change, move_change) = (toggle_change.clone(), move_change.clone());
            view! {
                <ul class="column-list">
                    <For each=move || arranged.get() key=|c| (c.name.clone(), c.shown) let(column)>
                        {column_item(column, toggle_change.clone(), move_change.clone())}
                    </For>
                </ul>
            }
        })
    };
    view! {
        <details class="columns-panel" hidden=hidden data-field="columns-panel"
            on:toggle=move |_| if !opened.get_untracked() { opened.set(true) }>
            <summary>{move || format!("Columns: {} of {} shown", columns.with(Vec::len), arranged.with(Vec::len))}</summary>
            <p class="help">"Exports hold the records shown, in this order, with these columns. Your choice is kept in this browser for this action."</p>
            {column_list}
            <button type="button" class="button secondary" on:click=move |_| reset_change(&|c, _| *c = ColumnChoice::default())>"Reset the columns"</button>
        </details>
    }
}

/// One column of the panel's list: shown or not, and its moves.
fn column_item(
    column: ColumnState,
    toggle_change: impl Fn(&dyn Fn(&mut ColumnChoice, &[ColumnState])) + 'static,
    move_change: impl Fn(&dyn Fn(&mut ColumnChoice, &[ColumnState])) + Clone + 'static,
) -> impl IntoView {
    let (name, up, down) = (
        column.name.clone(),
        column.name.clone(),
        column.name.clone(),
    );
    let (up_change, down_change) = (move_change.clone(), move_change);
    view! {
        <li data-column=column.name.clone()>
            <label>
                <input type="checkbox" prop:checked=column.shown
                    on:change=move |_| toggle_change(&|c, _| c.toggle(&name)) />
                " " {column.name.clone()}
            </label>
            <button type="button" class="button link" aria-label=format!("Move {} earlier", column.name)
                on:click=move |_| up_change(&|c, a| c.move_column(a, &up, -1))>"↑"</button>
            <button type="button" class="button link" aria-label=format!("Move {} later", column.name)
                on:click=move |_| down_change(&|c, a| c.move_column(a, &down, 1))>"↓"</button>
        </li>
    }
}
