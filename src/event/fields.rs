//! Typed access to an event's fields, each error a sentence a person can act on.

use serde_json::{Map, Value};

use crate::clock::Timestamp;

/// The longest id (of a job, a delivery, a decision) a ledger takes, in bytes. Ids are
/// keys: a server ledger's index entry holds at most about 2,700 bytes (two ids and
/// more in some), and no system names its jobs with kilobytes; the same limit on
/// either engine keeps the same stream giving the same ledger.
pub const MAX_ID_BYTES: usize = 1024;

/// Typed access to an event's fields, each error a sentence a person can act on.
pub(super) struct Fields<'a>(pub(super) &'a Map<String, Value>);

impl Fields<'_> {
    pub(super) fn opt_text(&self, name: &str) -> Result<Option<String>, String> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            // A server ledger's text cannot hold one, so no ledger takes one: the same
            // stream gives the same ledger on either engine (the line itself is kept).
            Some(Value::String(text)) if text.contains('\0') => Err(format!(
                "field `{name}` holds a NUL character (\\u0000), which no ledger keeps in a value"
            )),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(other) => Err(format!(
                "field `{name}` must be a string, not {}",
                type_name(other)
            )),
        }
    }

    pub(super) fn text(&self, name: &str) -> Result<String, String> {
        match self.opt_text(name)? {
            Some(text) if !text.trim().is_empty() => Ok(text),
            Some(_) => Err(format!("field `{name}` is empty")),
            None => Err(format!("field `{name}` is missing")),
        }
    }

    /// An id (of a job, delivery or decision): text of at most [`MAX_ID_BYTES`].
    pub(super) fn opt_id(&self, name: &str) -> Result<Option<String>, String> {
        match self.opt_text(name)? {
            Some(id) if id.len() > MAX_ID_BYTES => Err(format!(
                "field `{name}` is {} bytes long; an id is at most {MAX_ID_BYTES} bytes",
                id.len()
            )),
            id => Ok(id),
        }
    }

    pub(super) fn id(&self, name: &str) -> Result<String, String> {
        match self.opt_id(name)? {
            Some(id) if !id.trim().is_empty() => Ok(id),
            Some(_) => Err(format!("field `{name}` is empty")),
            None => Err(format!("field `{name}` is missing")),
        }
    }

    pub(super) fn opt_time(&self, name: &str) -> Result<Option<Timestamp>, String> {
        match self.opt_text(name)? {
            None => Ok(None),
            Some(text) => Timestamp::parse(&text)
                .map(Some)
                .ok_or_else(|| {
                    format!(
                        "field `{name}` is not an RFC 3339 time in the years 0000 to 9999 (UTC): {text:?}"
                    )
                }),
        }
    }

    pub(super) fn time(&self, name: &str) -> Result<Timestamp, String> {
        self.opt_time(name)?
            .ok_or_else(|| format!("field `{name}` is missing"))
    }

    pub(super) fn opt_count(&self, name: &str) -> Result<Option<i64>, String> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => match n.as_i64() {
                Some(count) if count > 0 => Ok(Some(count)),
                _ => Err(format!(
                    "field `{name}` must be a positive whole number, not {n}"
                )),
            },
            Some(other) => Err(format!(
                "field `{name}` must be a number, not {}",
                type_name(other)
            )),
        }
    }

    pub(super) fn attempt(&self) -> Result<i64, String> {
        let attempt = self
            .opt_count("attempt")?
            .ok_or("field `attempt` is missing")?;
        if attempt > i64::from(u32::MAX) {
            return Err(format!("field `attempt` is implausibly large: {attempt}"));
        }
        Ok(attempt)
    }

    pub(super) fn opt_bool(&self, name: &str) -> Result<Option<bool>, String> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(flag)) => Ok(Some(*flag)),
            Some(other) => Err(format!(
                "field `{name}` must be true or false, not {}",
                type_name(other)
            )),
        }
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
