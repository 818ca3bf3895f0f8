//! Why this browser's store (IndexedDB) did not do what the console asked, told apart so that
//! the person reads what happened and what to do, rather than one "could not" for everything.

use std::fmt;

/// A failure of the store, by what the person can do about it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum StoreError {
    /// The browser keeps nothing for the console: no IndexedDB, or refused (some private
    /// windows, site data blocked by the browser's settings).
    Unavailable,
    /// The disk, or the space the browser gives the site, is full.
    Full,
    /// This browser keeps data of a newer version of the console, which this one cannot read.
    NewerVersion,
    /// An entry the store holds could not be read back: not what the console wrote there
    /// (changed by hand or by another program, or cut short).
    Damaged,
    /// Anything else the browser answered (its words).
    Failed(String),
}

impl StoreError {
    /// The error the browser named `name` (a `DOMException`'s name), with its `message`.
    pub fn from_dom(name: &str, message: &str) -> StoreError {
        match name {
            "QuotaExceededError" => StoreError::Full,
            // Refused outright: private windows, blocked site data, an insecure context.
            "SecurityError" | "NotAllowedError" | "InvalidAccessError" => StoreError::Unavailable,
            "VersionError" => StoreError::NewerVersion,
            _ if message.is_empty() => StoreError::Failed(name.to_owned()),
            _ => StoreError::Failed(format!("{name}: {message}")),
        }
    }

    /// What happened and what to do, for the person.
    pub fn sentence(&self) -> String {
        match self {
            StoreError::Unavailable => "This browser keeps nothing for the console here: its \
                storage (IndexedDB) is unavailable, as in some private windows or when the \
                browser's settings block site data. Allow site data for this site, or use a \
                normal window."
                .to_owned(),
            StoreError::Full => "This browser's storage is full. Free space (on the Storage \
                page: export the history, then forget it or keep fewer records), then try \
                again."
                .to_owned(),
            StoreError::NewerVersion => "This browser holds data of a newer version of the \
                console, which this one cannot read. Reload the page to get the newer console."
                .to_owned(),
            StoreError::Damaged => "Something this browser keeps for the console could not be \
                read back: it is damaged (changed by another program, or cut short). To be rid \
                of it, forget it where it is kept: the batch on the Bulk page, the request log \
                on the Log page, or this workspace's history on the Storage page (export the \
                history first: the export keeps what still reads back)."
                .to_owned(),
            StoreError::Failed(said) => format!(
                "This browser's storage refused the request ({said}). Try again; if it \
                 happens again, reload the page."
            ),
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.sentence())
    }
}

impl std::error::Error for StoreError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_browsers_names_are_told_apart() {
        assert_eq!(
            StoreError::from_dom("QuotaExceededError", "full"),
            StoreError::Full
        );
        assert_eq!(
            StoreError::from_dom("SecurityError", ""),
            StoreError::Unavailable
        );
        assert_eq!(
            StoreError::from_dom("VersionError", "x"),
            StoreError::NewerVersion
        );
        assert_eq!(
            StoreError::from_dom("DataError", "bad key"),
            StoreError::Failed("DataError: bad key".to_owned())
        );
        assert_eq!(
            StoreError::from_dom("AbortError", "The transaction was aborted"),
            StoreError::Failed("AbortError: The transaction was aborted".to_owned())
        );
        assert_eq!(
            StoreError::from_dom("UnknownError", ""),
            StoreError::Failed("UnknownError".to_owned())
        );
    }

    #[test]
    fn every_sentence_says_what_to_do() {
        for error in [
            StoreError::Unavailable,
            StoreError::Full,
            StoreError::NewerVersion,
            StoreError::Damaged,
            StoreError::Failed("UnknownError".to_owned()),
        ] {
            let sentence = error.sentence();
            assert!(
                [
                    "Allow",
                    "Free",
                    "Reload",
                    "Try again",
                    "forget it where it is kept"
                ]
                .iter()
                .any(|action| sentence.contains(action)),
                "{sentence}"
            );
            assert_eq!(error.to_string(), sentence);
        }
        assert!(StoreError::Full.sentence().contains("full"));
        assert!(StoreError::Damaged.sentence().contains("damaged"));
        assert!(
            StoreError::Failed("UnknownError".into())
                .sentence()
                .contains("UnknownError")
        );
    }
}
