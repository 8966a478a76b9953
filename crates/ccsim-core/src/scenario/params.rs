//! Typed access to free-form parameter tables (`cc_params`, queue options)
//! with errors that name the field, the value and what is allowed.
use super::ConfigError;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

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
        ConfigError::new(format!("{}.{key}", self.path), msg)
    }

    pub fn bool(&mut self, key: &'static str, default: bool) -> Result<bool, ConfigError> {
        self.used.insert(key);
        match self.map.get(key) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(v) => Err(self.err(key, format!("{v} is not allowed; expected true or false"))),
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
