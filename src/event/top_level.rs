//! The top level of a line, read with a repeated key noticed.

use serde_json::{Map, Value};

/// The top level of a line.
///
/// `serde_json::Value` keeps the last of two equal keys without a word, so
/// `{"job_id":"a","job_id":"b"}` would be read as job `b` by jobledger and as job `a`
/// by a tool that keeps the first: a way to smuggle a report past one of them. The
/// top-level object is therefore read here, with a repeated key noticed.
pub(super) enum TopLevel {
    Object(Map<String, Value>),
    /// The first key given twice (the rest of the line is still checked as JSON).
    DuplicateKey(String),
    /// Valid JSON, but not an object.
    Other,
}

impl<'de> serde::Deserialize<'de> for TopLevel {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TopLevelVisitor)
    }
}

struct TopLevelVisitor;

impl<'de> serde::de::Visitor<'de> for TopLevelVisitor {
    type Value = TopLevel;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<TopLevel, A::Error> {
        let mut object = Map::new();
        let mut duplicate = None;
        while let Some(key) = map.next_key::<String>()? {
            if duplicate.is_some() {
                map.next_value::<serde::de::IgnoredAny>()?;
            } else if object.contains_key(&key) {
                map.next_value::<serde::de::IgnoredAny>()?;
                duplicate = Some(key);
            } else {
                let value = map.next_value::<Value>()?;
                object.insert(key, value);
            }
        }
        Ok(duplicate.map_or(TopLevel::Object(object), TopLevel::DuplicateKey))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<TopLevel, A::Error> {
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(TopLevel::Other)
    }

    fn visit_bool<E>(self, _: bool) -> Result<TopLevel, E> {
        Ok(TopLevel::Other)
    }

    fn visit_i64<E>(self, _: i64) -> Result<TopLevel, E> {
        Ok(TopLevel::Other)
    }

    fn visit_u64<E>(self, _: u64) -> Result<TopLevel, E> {
        Ok(TopLevel::Other)
    }

    fn visit_f64<E>(self, _: f64) -> Result<TopLevel, E> {
        Ok(TopLevel::Other)
    }

    fn visit_str<E>(self, _: &str) -> Result<TopLevel, E> {
        Ok(TopLevel::Other)
    }

    fn visit_unit<E>(self) -> Result<TopLevel, E> {
        Ok(TopLevel::Other)
    }
}
