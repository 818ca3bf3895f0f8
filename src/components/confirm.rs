//! The question asked in the page before something that cannot be undone (forget, clear, revoke,
//! cancel a batch): a panel with the question, what it means, and two buttons.

use leptos::prelude::*;

/// `<div class="confirm" role="alertdialog">` named by its question, with the danger button
/// first and the harmless one second. It stays in the page's flow (not a modal): the page
/// shows it in place of the button that asked for it.
#[component]
pub fn Confirm(
    /// The panel's `data-field`; the question's element is `{field}-title`, which names the
    /// dialog.
    field: &'static str,
    /// The question, in bold (a closure: `title=|| "Cancel the batch?"`), drawn again when
    /// what it reads changes.
    #[prop(into)]
    title: ViewFn,
    /// The danger button's text, e.g. "Forget the history".
    confirm_label: &'static str,
    /// The harmless button's text, e.g. "Keep it".
    cancel_label: &'static str,
    /// The danger button's `data-field`, where a page's tests find it.
    #[prop(optional)]
    confirm_field: Option<&'static str>,
    /// Focus starts on the harmless button, so Enter does no harm.
    #[prop(optional)]
    focus_cancel: bool,
    /// The danger button was pressed.
    on_confirm: Callback<()>,
    /// The harmless button was pressed.
    on_cancel: Callback<()>,
    /// What saying yes means, below the question.
    #[prop(optional)]
    children: Option<Children>,
) -> impl IntoView {
    let cancel = NodeRef::<leptos::html::Button>::new();
    if focus_cancel {
        cancel.on_load(|button| {
            let _ = button.focus();
        });
    }
    let title_id = format!("{field}-title");
    let labelled_by = title_id.clone();
    view! {
        <div class="confirm" role="alertdialog" aria-labelledby=labelled_by data-field=field>
            <p id=title_id><strong>{move || title.run()}</strong></p>
            {children.map(|body| body())}
            <div class="actions-row">
                <button type="button" class="button danger" data-field=confirm_field
                    on:click=move |_| on_confirm.run(())>{confirm_label}</button>
                <button type="button" class="button secondary" node_ref=cancel
                    on:click=move |_| on_cancel.run(())>{cancel_label}</button>
            </div>
        </div>
    }
}
