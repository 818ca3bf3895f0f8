//! The theme switch: follow the system, or force light or dark. The choice is a preference, so
//! it is remembered in localStorage (credentials never are).

use leptos::prelude::*;

use crate::model::preferences::Preference;
use crate::state::preferences::use_preferences;

/// The theme a person picked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    System,
    Light,
    Dark,
}

impl Theme {
    pub fn as_str(self) -> &'static str {
        match self {
            Theme::System => "system",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    pub fn parse(text: &str) -> Theme {
        match text {
            "light" => Theme::Light,
            "dark" => Theme::Dark,
            _ => Theme::System,
        }
    }

    /// The next theme a click on the switch selects.
    pub fn next(self) -> Theme {
        match self {
            Theme::System => Theme::Light,
            Theme::Light => Theme::Dark,
            Theme::Dark => Theme::System,
        }
    }
}

/// Sets `data-theme` on `<html>`; the stylesheet follows the system when it is absent.
fn apply(theme: Theme) {
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = match theme {
            Theme::System => root.remove_attribute("data-theme"),
            other => root.set_attribute("data-theme", other.as_str()),
        };
    }
}

#[component]
pub fn ThemeToggle() -> impl IntoView {
    let preferences = use_preferences();
    let initial = preferences
        .read(Preference::Theme)
        .map_or(Theme::System, |t| Theme::parse(&t));
    apply(initial);
    let theme = RwSignal::new(initial);
    let switch = move |_| {
        let next = theme.get_untracked().next();
        theme.set(next);
        apply(next);
        preferences.keep(Preference::Theme, next.as_str());
    };
    view! {
        <button type="button" class="button secondary theme-toggle" on:click=switch
            aria-label=move || format!("Theme: {}. Switch theme", theme.get().as_str())
            data-theme-choice=move || theme.get().as_str()>
            // The theme's name on wide screens; narrower ones keep the header on one line.
            <span aria-hidden="true">{move || match theme.get() { Theme::System => "◐", Theme::Light => "☀", Theme::Dark => "☾" }}</span>
            <span class="wide-only" aria-hidden="true">{move || match theme.get() { Theme::System => " System", Theme::Light => " Light", Theme::Dark => " Dark" }}</span>
        </button>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_switch_cycles_through_three_themes_and_parses_back() {
        let mut t = Theme::System;
        let mut seen = Vec::new();
        for _ in 0..3 {
            t = t.next();
            seen.push(t);
            assert_eq!(Theme::parse(t.as_str()), t);
        }
        assert_eq!(seen, [Theme::Light, Theme::Dark, Theme::System]);
        assert_eq!(Theme::parse("garbage"), Theme::System);
    }
}
