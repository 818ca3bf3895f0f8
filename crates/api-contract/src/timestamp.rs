//! Serde for the contract's date-times: written as RFC 3339 UTC with milliseconds and `Z`, read from any RFC 3339.
//!
//! chrono's own serde writes 0, 3, 6 or 9 fraction digits depending on the value, and its reader
//! also takes forms RFC 3339 does not (e.g. `2026-11-20T10:00:00 +00:00`). The wire has always
//! carried exactly three digits, so clients that compare or sort the strings keep working.
//! Use with `#[serde(with = "api_contract::timestamp")]`, or `timestamp::option` for a nullable one.

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserializer, Serializer, de};

/// The wire form of `at`: `2026-11-20T14:03:09.123Z`. Digits past the millisecond are dropped.
pub fn to_wire(at: &DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Reads an RFC 3339 date-time with any offset as the UTC instant it names.
pub fn from_wire(text: &str) -> Result<DateTime<Utc>, chrono::ParseError> {
    DateTime::parse_from_rfc3339(text).map(|at| at.with_timezone(&Utc))
}

pub fn serialize<S: Serializer>(at: &DateTime<Utc>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&to_wire(at))
}

pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<DateTime<Utc>, D::Error> {
    deserializer.deserialize_str(Rfc3339Visitor)
}

struct Rfc3339Visitor;

impl de::Visitor<'_> for Rfc3339Visitor {
    type Value = DateTime<Utc>;

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("an RFC 3339 date-time such as 2026-11-20T14:03:09.123Z")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
        from_wire(text).map_err(|e| E::custom(format_args!("invalid date-time {text:?}: {e}")))
    }
}

/// The same for `Option<DateTime<Utc>>`: `None` is written as `null`, and `null` reads as `None`.
/// Pair it with `#[serde(default)]` so an absent field reads as `None` too.
pub mod option {
    use super::*;

    pub fn serialize<S: Serializer>(
        at: &Option<DateTime<Utc>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match at {
            Some(at) => super::serialize(at, serializer),
            None => serializer.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<DateTime<Utc>>, D::Error> {
        deserializer.deserialize_option(OptionVisitor)
    }

    struct OptionVisitor;

    impl<'de> de::Visitor<'de> for OptionVisitor {
        type Value = Option<DateTime<Utc>>;

        fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.write_str("null or an RFC 3339 date-time")
        }

        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_some<D: Deserializer<'de>>(
            self,
            deserializer: D,
        ) -> Result<Self::Value, D::Error> {
            super::deserialize(deserializer).map(Some)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn whole_seconds_keep_three_fraction_digits_and_finer_digits_are_dropped() {
        let whole = Utc.with_ymd_and_hms(2026, 11, 20, 14, 3, 9).unwrap();
        assert_eq!(to_wire(&whole), "2026-11-20T14:03:09.000Z");
        let fine = whole + chrono::Duration::nanoseconds(123_987_654);
        assert_eq!(to_wire(&fine), "2026-11-20T14:03:09.123Z");
    }

    #[test]
    fn offsets_are_read_as_the_utc_instant() {
        let at = from_wire("2026-11-20T16:03:09.5+02:00").unwrap();
        assert_eq!(to_wire(&at), "2026-11-20T14:03:09.500Z");
        assert!(from_wire("2026-11-20").is_err());
        assert!(from_wire("2026-11-20T14:03:09").is_err(), "no offset");
    }
}
