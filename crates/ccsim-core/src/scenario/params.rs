//! Typed access to free-form parameter tables (`cc_params`, queue options)
//! with errors that name the field, the value and what is allowed.
use super::ConfigError;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// A parameter of a free-form table as `ccsim list` describes it: its
/// name, default and meaning. Every registry (queues, stages,
/// controllers, applications) documents its table with these.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ParamDoc {
    pub name: &'static str,
    pub default: Value,
    pub doc: &'static str,
}

pub struct Params<'a> {
    map: &'a Map<String, Value>,
    path: String,
    used: BTreeSet<&'static str>,
}

impl<'a> Params<'a> {
    pub fn new(map: &'a Map<String, Value>, path: &str) -> Self {
        Params { map, path: path.to_string(), used: BTreeSet::new() }
    }

    fn err(&self, key: &str, msg: String) -> ConfigError {
        ConfigError::new(super::key_path(&self.path, key), msg)
    }

    pub fn bool(&mut self, key: &'static str, default: bool) -> Result<bool, ConfigError> {
        self.used.insert(key);
        match self.map.get(key) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(v) => Err(self.err(key, format!("{v} is not allowed; expected true or false"))),
        }
    }

    /// An optional flag (absent: `None`).
    pub fn opt_bool(&mut self, key: &'static str) -> Result<Option<bool>, ConfigError> {
        self.used.insert(key);
        match self.map.get(key) {
            None => Ok(None),
            Some(_) => self.bool(key, false).map(Some),
        }
    }

    /// A field that no longer exists: present, it is an error that names
    /// what replaced it (`instead`), never a value read in an old unit.
    pub fn renamed(&self, key: &'static str, instead: &str) -> Result<(), ConfigError> {
        match self.map.get(key) {
            None => Ok(()),
            Some(_) => Err(self.err(key, format!("this field was renamed: use {instead}"))),
        }
    }

    /// A number in `[lo, hi]`.
    pub fn f64_in(&mut self, key: &'static str, default: f64, lo: f64, hi: f64) -> Result<f64, ConfigError> {
        self.used.insert(key);
        match self.map.get(key) {
            None => Ok(default),
            Some(Value::Number(n)) => {
                let x = n.as_f64().unwrap_or(f64::NAN);
                if x.is_finite() && x >= lo && x <= hi {
                    Ok(x)
                } else {
                    Err(self.err(key, format!("{x} is out of range; allowed: {lo} to {hi}")))
                }
            }
            Some(v) => Err(self.err(key, format!("{v} is not a number; allowed: {lo} to {hi}"))),
        }
    }

    /// An integer in `[lo, hi]`.
    pub fn u64_in(&mut self, key: &'static str, default: u64, lo: u64, hi: u64) -> Result<u64, ConfigError> {
        self.used.insert(key);
        match self.map.get(key) {
            None => Ok(default),
            Some(Value::Number(n)) if n.as_u64().is_some_and(|x| x >= lo && x <= hi) => Ok(n.as_u64().unwrap()),
            Some(v) => Err(self.err(key, format!("{v} is not allowed; expected an integer from {lo} to {hi}"))),
        }
    }

    /// A number checked by `check`, which gets the field's full path (so
    /// `validate::positive` and friends name it).
    pub fn f64_with(
        &mut self,
        key: &'static str,
        default: f64,
        check: fn(&str, f64) -> Result<(), ConfigError>,
    ) -> Result<f64, ConfigError> {
        Ok(self.opt_f64_with(key, check)?.unwrap_or(default))
    }

    /// An optional number (absent or `null`: `None`) checked by `check`.
    pub fn opt_f64_with(
        &mut self,
        key: &'static str,
        check: fn(&str, f64) -> Result<(), ConfigError>,
    ) -> Result<Option<f64>, ConfigError> {
        self.used.insert(key);
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => {
                let x = n.as_f64().unwrap_or(f64::NAN);
                check(&format!("{}.{key}", self.path), x)?;
                Ok(Some(x))
            }
            Some(v) => Err(self.err(key, format!("{v} is not a number"))),
        }
    }

    /// One of the names in `allowed`.
    pub fn choice(
        &mut self,
        key: &'static str,
        default: &'static str,
        allowed: &[&'static str],
    ) -> Result<&'static str, ConfigError> {
        self.used.insert(key);
        match self.map.get(key) {
            None => Ok(default),
            Some(Value::String(s)) => allowed
                .iter()
                .copied()
                .find(|a| a == s)
                .ok_or_else(|| self.err(key, format!("unknown value \"{s}\"; allowed: {}", allowed.join(", ")))),
            Some(v) => Err(self.err(key, format!("{v} is not allowed; allowed: {}", allowed.join(", ")))),
        }
    }

    /// Every key present must have been read or be one of `fixed` (keys the
    /// caller handles itself); the error names `what` and every allowed key.
    pub fn finish_with(self, what: &str, fixed: &[&str]) -> Result<(), ConfigError> {
        for k in self.map.keys() {
            if !self.used.contains(k.as_str()) && !fixed.contains(&k.as_str()) {
                let allowed: Vec<&str> = fixed.iter().copied().chain(self.used.iter().copied()).collect();
                return Err(self.err(k, format!("unknown field for {what}; allowed: {}", allowed.join(", "))));
            }
        }
        Ok(())
    }

    /// Every key present must have been read.
    pub fn finish(self) -> Result<(), ConfigError> {
        for k in self.map.keys() {
            if !self.used.contains(k.as_str()) {
                let allowed: Vec<&str> = self.used.iter().copied().collect();
                let allowed = if allowed.is_empty() { "none".to_string() } else { allowed.join(", ") };
                return Err(self.err(k, format!("unknown parameter; allowed: {allowed}")));
            }
        }
        Ok(())
    }
}
