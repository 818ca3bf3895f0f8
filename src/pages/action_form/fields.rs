//! The form's text inputs: their state as signals, which error each shows, and their markup.

use leptos::prelude::*;

use crate::model::form::{
    FormError, FormModel, MAX_CREDITS, MAX_RESULTS, ServerErrors, Values, max_results_help,
};
use crate::state::presenter::use_masker;

/// One text input of the form: its value, whether it was left once, and the server's word on it.
#[derive(Clone)]
struct FieldState {
    name: String,
    value: RwSignal<String>,
    touched: RwSignal<bool>,
    /// From a 400, until the field changes.
    server_error: RwSignal<Option<String>>,
}

/// Every input of the form (the action's fields and the two limits), what they hold, and the
/// rules they break.
#[derive(Clone, Copy)]
pub(super) struct FormFields {
    states: StoredValue<Vec<FieldState>>,
    pub model: StoredValue<FormModel>,
    /// What is typed, by field name.
    pub values: Memo<Values>,
    /// The rules the values break, by the contract's rules.
    pub errors: Memo<Vec<FormError>>,
    /// After a submit attempt every error shows, also in fields never touched.
    pub show_all_errors: RwSignal<bool>,
}

impl FormFields {
    /// The inputs of `model`, holding `start`'s values.
    pub fn new(model: FormModel, start: &Values) -> FormFields {
        let states: Vec<FieldState> = model
            .field_names()
            .into_iter()
            .map(|name| FieldState {
                name: name.to_owned(),
                value: RwSignal::new(start.get(name).cloned().unwrap_or_default()),
                touched: RwSignal::new(false),
                server_error: RwSignal::new(None),
            })
            .collect();
        let states = StoredValue::new(states);
        let model = StoredValue::new(model);
        let values = Memo::new(move |_| {
            states.with_value(|fields| {
                fields
                    .iter()
                    .map(|f| (f.name.clone(), f.value.get()))
                    .collect::<Values>()
            })
        });
        let errors = Memo::new(move |_| values.with(|v| model.with_value(|m| m.errors(v))));
        FormFields {
            states,
            model,
            values,
            errors,
            show_all_errors: RwSignal::new(false),
        }
    }

    fn state(&self, name: &str) -> FieldState {
        self.states
            .with_value(|fs| fs.iter().find(|f| f.name == name).cloned())
            .expect("a field")
    }

    /// The error the field of this name shows: the server's, else the first rule it breaks
    /// once it was typed in or left, or once a submission was tried.
    fn error_of(&self, name: &str) -> Signal<Option<String>> {
        let field = self.state(name);
        let (errors, show_all_errors) = (self.errors, self.show_all_errors);
        Signal::derive(move || {
            if let Some(said) = field.server_error.get() {
                return Some(said);
            }
            let shown =
                show_all_errors.get() || field.value.with(|v| !v.is_empty()) || field.touched.get();
            if !shown {
                return None;
            }
            errors.with(|e| {
                e.iter()
                    .find(|e| e.is_for(&field.name))
                    .map(|e| e.message.clone())
            })
        })
    }

    /// The field to focus for the first broken rule, if any; a rule spanning fields focuses
    /// the first field. Untracked.
    pub fn first_invalid_untracked(&self) -> Option<String> {
        let first = self.errors.with_untracked(|e| e.first().cloned())?;
        Some(first.field.unwrap_or_else(|| {
            self.states
                .with_value(|fs| fs.first().map(|f| f.name.clone()).unwrap_or_default())
        }))
    }

    /// The names of every input, as a 400's message may name them.
    pub fn names(&self) -> Vec<String> {
        self.model.with_value(|m| {
            m.field_names()
                .into_iter()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
    }

    /// Puts what a 400 said beside each field it names, and clears the others.
    pub fn show_server_errors(&self, split: &ServerErrors) {
        self.states.with_value(|fs| {
            for f in fs {
                f.server_error
                    .set(split.message_for(&f.name).map(str::to_owned));
            }
        });
    }

    pub fn clear_server_errors(&self) {
        self.states
            .with_value(|fs| fs.iter().for_each(|f| f.server_error.set(None)));
    }
}

/// A broken rule spanning fields, once a submission was tried.
#[component]
pub(super) fn SpanningError(fields: FormFields) -> impl IntoView {
    let FormFields {
        errors,
        show_all_errors,
        ..
    } = fields;
    view! {
        <p class="field-error" role="alert">{move || {
            show_all_errors.get().then(|| {
                errors.with(|e| e.iter().find(|e| e.field.is_none()).map(|e| format!("Input {}", e.message)))
            }).flatten()
        }}</p>
    }
}

/// The action's own inputs, in the registry's order.
#[component]
pub(super) fn InputFields(fields: FormFields) -> impl IntoView {
    fields.model.with_value(|model| {
        model
            .fields
            .iter()
            .map(|f| {
                view! {
                    <Field state=fields.state(&f.name) error=fields.error_of(&f.name)
                        label=f.label.clone() required=f.required help=f.help_text() />
                }
            })
            .collect_view()
    })
}

/// The two limits: how many results, and how many credits at most.
#[component]
pub(super) fn LimitFields(fields: FormFields) -> impl IntoView {
    let ceiling = fields.model.with_value(|m| m.max_results_ceiling);
    view! {
        <fieldset class="limits">
            <legend>"Limits"</legend>
            <Field state=fields.state(MAX_RESULTS) error=fields.error_of(MAX_RESULTS)
                label="Max results".to_owned() required=false numeric=true
                placeholder=format!("{ceiling} (this action's most)")
                help=max_results_help(ceiling) />
            <Field state=fields.state(MAX_CREDITS) error=fields.error_of(MAX_CREDITS)
                label="Max credits".to_owned() required=false numeric=true
                placeholder="the estimate".to_owned()
                help="Empty: the estimate below, which is sent as max_credits so the run can never cost more. Lower it to spend less.".to_owned() />
        </fieldset>
    }
}

/// Live (wait for the result) or async (queue it and watch the run).
#[component]
pub(super) fn ModeChoice(
    /// `live` or `async`.
    mode: RwSignal<String>,
) -> impl IntoView {
    view! {
        <fieldset class="mode">
            <legend>"Mode"</legend>
            <label><input type="radio" name="mode" value="live" bind:group=mode />
                " Live: wait for the result"</label>
            <label><input type="radio" name="mode" value="async" bind:group=mode />
                " Async: queue it and watch the run"</label>
        </fieldset>
    }
}

/// One labelled text input of the form, with its help and its error.
#[component]
fn Field(
    /// The field's value and state.
    state: FieldState,
    /// The rule it breaks, when that should show.
    error: Signal<Option<String>>,
    label: String,
    required: bool,
    help: String,
    /// Whole numbers only (the limits): a numeric keyboard on phones.
    #[prop(optional)]
    numeric: bool,
    #[prop(optional)] placeholder: String,
) -> impl IntoView {
    let id = format!("field-{}", state.name);
    let help_id = format!("{id}-help");
    let error_id = format!("{id}-error");
    let FieldState {
        name,
        value,
        touched,
        server_error,
    } = state;
    let label_for_error = label.clone();
    // In presenter mode a value the field starts with (a draft, a prefill, a run again) is shown
    // masked and read-only until "Replace" empties it; what is typed then shows as typed. The
    // real value is then in no element: the input that holds it is not made until replaced.
    let masker = use_masker();
    let masked = RwSignal::new(if masker.is_on() && !numeric {
        value.with_untracked(|v| masker.text(v).into_owned())
    } else {
        String::new()
    });
    let described_by = format!("{help_id} {error_id}");
    let label_for = id.clone();
    let input = move || {
        let (id, name, placeholder, described_by) = (
            id.clone(),
            name.clone(),
            placeholder.clone(),
            described_by.clone(),
        );
        if !masked.with(String::is_empty) {
            return view! {
                <span class="masked-field">
                    <input id=id.clone() type="text" readonly data-masked="true" prop:value=masked
                        aria-describedby=described_by />
                    <button type="button" class="button secondary" on:click=move |_| {
                        value.set(String::new());
                        masked.set(String::new());
                        let id = id.clone();
                        // Once the editable input is made.
                        request_animation_frame(move || crate::browser::focus_id(&id));
                    }>"Replace"</button>
                </span>
            }
            .into_any();
        }
        view! {
            <input id=id type="text" inputmode=if numeric { "numeric" } else { "text" }
                name=name autocomplete="off" spellcheck="false" placeholder=placeholder
                aria-describedby=described_by
                // `try_`: removing a focused field (the page left by Back) blurs it, and the
                // write below wakes these views once more while the page's rules are already
                // gone; then they have nothing to show.
                aria-invalid=move || if error.try_with(Option::is_some).unwrap_or(false) { "true" } else { "false" }
                bind:value=value
                on:input=move |_| server_error.set(None)
                // A write only: safe even when the page is gone.
                on:blur=move |_| touched.set(true) />
        }
        .into_any()
    };
    view! {
        <div class="field">
            <label for=label_for>{label}
                <span class="optional">{(!required).then_some(" (optional)")}</span>
            </label>
            {input}
            <p class="help" id=help_id>{help}</p>
            <p class="field-error" id=error_id role="alert">
                {move || error.try_get().flatten().map(|e| format!("{label_for_error} {e}"))}
            </p>
        </div>
    }
}
