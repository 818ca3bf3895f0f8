//! The console's preferences in this browser (localStorage), by name: which ones there are, the
//! key each is kept under, and what a person is told when the browser does not keep one. Pure;
//! `browser::preferences` reads and writes them, `state::preferences` tells a refusal.
//!
//! A preference is a choice about how the console looks or behaves here (a switch's position, a
//! choice of columns, a number of days): never data, never a credential (ARCHITECTURE.md).

/// Every key starts with this, so the console's own entries are told apart from a site's others.
const PREFIX: &str = "console.";
/// A workspace's safeguards are kept under this and its id.
const SAFEGUARDS_PREFIX: &str = "console.safeguards.";

/// A preference kept in this browser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preference<'a> {
    /// Presenter mode's switch: kept as `on`, absent when off.
    Presenter,
    /// How many days kept outputs are kept (`model::expiry::ForgetAfter`).
    ForgetOutputsAfter,
    /// A workspace's spending safeguards (`model::safeguards::Safeguards`, as JSON).
    Safeguards { workspace: &'a str },
    /// The theme: system, light or dark.
    Theme,
    /// The language requests are shown in as code.
    CodeLanguage,
    /// An action's columns in the output explorer (`model::output::ColumnChoice`, as JSON).
    ExplorerColumns { action: &'a str },
    /// How recent a kept result the form offers to reuse (`model::same_input::ReuseWindow`).
    ReuseWindow,
}

impl Preference<'_> {
    /// The key it is kept under. These are the keys the console has always used: a preference
    /// kept by an older version reads back.
    pub fn key(self) -> String {
        match self {
            Preference::Presenter => format!("{PREFIX}presenter"),
            Preference::ForgetOutputsAfter => format!("{PREFIX}forget-outputs-after-days"),
            Preference::Safeguards { workspace } => format!("{SAFEGUARDS_PREFIX}{workspace}"),
            Preference::Theme => format!("{PREFIX}theme"),
            Preference::CodeLanguage => format!("{PREFIX}code-language"),
            Preference::ExplorerColumns { action } => format!("{PREFIX}columns.{action}"),
            Preference::ReuseWindow => format!("{PREFIX}reuse-window"),
        }
    }

    /// What it is, for a sentence: "This browser did not keep {what}."
    pub fn what(self) -> &'static str {
        match self {
            Preference::Presenter => "presenter mode's switch",
            Preference::ForgetOutputsAfter => "the days kept outputs are kept",
            Preference::Safeguards { .. } => "the safeguards",
            Preference::Theme => "the theme",
            Preference::CodeLanguage => "the language of the request as code",
            Preference::ExplorerColumns { .. } => "the columns chosen",
            Preference::ReuseWindow => "how recent a kept result may be",
        }
    }

    /// Whether a `storage` event for `changed` (another tab wrote it; `None`: every entry was
    /// cleared) may have changed this preference. A workspace's safeguards answer for every
    /// workspace's, so a tab follows whichever workspace it shows.
    pub fn changed_by(self, changed: Option<&str>) -> bool {
        match (self, changed) {
            (_, None) => true,
            (Preference::Safeguards { .. }, Some(key)) => key.starts_with(SAFEGUARDS_PREFIX),
            (preference, Some(key)) => key == preference.key(),
        }
    }
}

/// Why a preference was not kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotKept {
    /// The browser gives this page no localStorage (site data blocked, some private windows).
    NoStorage,
    /// The space the browser gives the site is full.
    Full,
    /// The browser refused the write for another reason.
    Refused,
}

impl NotKept {
    /// From the name of the exception a refused write threw (`DOMException.name`).
    pub fn from_exception(name: &str) -> NotKept {
        match name {
            // Firefox before 2018 said NS_ERROR_DOM_QUOTA_REACHED.
            "QuotaExceededError" | "NS_ERROR_DOM_QUOTA_REACHED" => NotKept::Full,
            "SecurityError" => NotKept::NoStorage,
            _ => NotKept::Refused,
        }
    }

    /// What happened and what to do, about `preference`.
    pub fn sentence(self, preference: Preference<'_>) -> String {
        let what = preference.what();
        match self {
            NotKept::NoStorage => format!(
                "This browser did not keep {what}: it keeps no preferences for this page (its \
                 site data is blocked)."
            ),
            NotKept::Full => format!(
                "This browser did not keep {what}: its storage for the console is full. Free \
                 some space on this computer or on the Storage page, then choose again."
            ),
            NotKept::Refused => format!("This browser refused to keep {what}."),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keys_are_the_ones_older_versions_kept() {
        assert_eq!(Preference::Presenter.key(), "console.presenter");
        assert_eq!(
            Preference::ForgetOutputsAfter.key(),
            "console.forget-outputs-after-days"
        );
        assert_eq!(
            Preference::Safeguards { workspace: "ws_1" }.key(),
            "console.safeguards.ws_1"
        );
        assert_eq!(Preference::Theme.key(), "console.theme");
        assert_eq!(Preference::CodeLanguage.key(), "console.code-language");
        assert_eq!(
            Preference::ExplorerColumns {
                action: "premium-search-people"
            }
            .key(),
            "console.columns.premium-search-people"
        );
        assert_eq!(Preference::ReuseWindow.key(), "console.reuse-window");
    }

    #[test]
    fn another_tabs_write_is_followed_by_the_preference_it_names() {
        assert!(Preference::Theme.changed_by(Some("console.theme")));
        assert!(!Preference::Theme.changed_by(Some("console.presenter")));
        // Every entry cleared (`localStorage.clear()` in another tab).
        assert!(Preference::Presenter.changed_by(None));
        // Any workspace's safeguards: the tab reads again those of the workspace it shows.
        let shown = Preference::Safeguards { workspace: "ws_1" };
        assert!(shown.changed_by(Some("console.safeguards.ws_2")));
        assert!(!shown.changed_by(Some("console.theme")));
    }

    #[test]
    fn a_refusal_says_what_was_not_kept_and_why() {
        assert_eq!(NotKept::from_exception("QuotaExceededError"), NotKept::Full);
        assert_eq!(
            NotKept::from_exception("NS_ERROR_DOM_QUOTA_REACHED"),
            NotKept::Full
        );
        assert_eq!(NotKept::from_exception("SecurityError"), NotKept::NoStorage);
        assert_eq!(NotKept::from_exception("Error"), NotKept::Refused);
        assert_eq!(
            NotKept::Full.sentence(Preference::Theme),
            "This browser did not keep the theme: its storage for the console is full. Free \
             some space on this computer or on the Storage page, then choose again."
        );
        assert!(
            NotKept::NoStorage
                .sentence(Preference::Safeguards { workspace: "ws_1" })
                .starts_with("This browser did not keep the safeguards: ")
        );
    }
}
