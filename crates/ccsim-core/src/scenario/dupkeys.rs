//! Duplicate keys in a JSON scenario. RFC 8259 §4 leaves a repeated name
//! to the implementation, and `serde_json` keeps the last value: a
//! scenario with `"cc"` twice would run with whichever came last, and the
//! user would never know. TOML forbids duplicates itself (the `toml`
//! parser reports them with their line), so only JSON needs this walk.
use super::{key_path, ConfigError};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::collections::HashSet;
use std::fmt;

/// The first repeated key in the JSON text `s`, as a field path
/// (`flows[0].cc`), if any. Text that is not JSON gives `Ok`: the parse
/// proper reports it.
pub fn check_json(s: &str) -> Result<(), ConfigError> {
    let mut de = serde_json::Deserializer::from_str(s);
    match (Walk { path: String::new() }).deserialize(&mut de) {
        Ok(None) | Err(_) => Ok(()),
        Ok(Some(path)) => Err(ConfigError::new(path, "this key appears more than once; give each key once")),
    }
}

/// Visits a value at `path`; yields the path of the first duplicate key.
struct Walk {
    path: String,
}

impl<'de> DeserializeSeed<'de> for Walk {
    type Value = Option<String>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
        let mut seen = HashSet::new();
        let mut found = None;
        while let Some(k) = m.next_key::<String>()? {
            let path = key_path(&self.path, &k);
            if found.is_none() && !seen.insert(k) {
                found = Some(path.clone());
            }
            let inner = m.next_value_seed(Walk { path })?;
            found = found.or(inner);
        }
        Ok(found)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        let mut i = 0;
        while let Some(inner) = s.next_element_seed(Walk { path: format!("{}[{i}]", self.path) })? {
            found = found.or(inner);
            i += 1;
        }
        Ok(found)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_key_is_named_by_its_path() {
        assert_eq!(check_json(r#"{"a": 1, "b": {"c": [1, {"d": 2}]}}"#), Ok(()));
        let e = check_json(r#"{"duration_s": 1, "duration_s": 2}"#).unwrap_err();
        assert_eq!(e.field, "duration_s");
        let e = check_json(r#"{"flows": [{"cc": "reno"}, {"cc": "reno", "cc": "cubic"}]}"#).unwrap_err();
        assert_eq!(e.field, "flows[1].cc");
        assert!(e.to_string().contains("more than once"), "{e}");
        assert_eq!(check_json("{not json"), Ok(()), "the parse proper reports bad text");
    }

    #[test]
    fn a_scenario_with_a_repeated_key_is_refused() {
        let doc = r#"{"duration_s": 1, "topology": {"kind": "dumbbell", "bottleneck_rate_bps": 1e6,
                      "bottleneck_queue": {"kind": "droptail", "limit_pkts": 5, "limit_pkts": 50}},
                      "flows": [{"count": 1}]}"#;
        let e = crate::Scenario::from_json(doc).unwrap_err();
        assert_eq!(e.field, "topology.bottleneck_queue.limit_pkts", "{e}");
    }
}
