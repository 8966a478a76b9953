//! The flow fields' declarations: [`FlowSpec`](super::FlowSpec) is written
//! once, through [`flow_spec!`], and each field's name, the transports that
//! take it, the values it takes and its doc come from that one place. The
//! transports' field checks (`transport::validate`), `ccsim list
//! transports` and docs/scenario.md's flow table read [`FLOW_FIELDS`];
//! the defaults come from the personalities' own fill code
//! (`transport::catalog`), so no default is written twice.
use serde::de::DeserializeOwned;

/// One flow field as declared in [`FlowSpec`](super::FlowSpec).
#[derive(Debug)]
pub struct FieldInfo {
    pub name: &'static str,
    /// The transports that take it; `common`: every transport.
    pub owners: &'static [&'static str],
    /// The values it takes, as docs/scenario.md writes them; empty for a
    /// named choice, whose names come from its type ([`FieldInfo::values`]).
    pub(super) ty: &'static str,
    /// What the docs' default column adds to the personalities' values
    /// (a default that depends on another field); empty: nothing.
    pub default_note: &'static str,
    pub(super) doc: &'static [&'static str],
    pub(super) choices: fn() -> Vec<String>,
}

impl FieldInfo {
    /// The field's doc, one paragraph.
    pub fn doc(&self) -> String {
        self.doc.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ")
    }

    /// The names a named choice accepts (its serde names), else empty.
    pub fn choices(&self) -> Vec<String> {
        (self.choices)()
    }

    /// The values it takes: the declared text, or a choice's names.
    pub fn values(&self) -> String {
        if self.ty.is_empty() {
            self.choices().iter().map(|c| format!("`\"{c}\"`")).collect::<Vec<_>>().join(", ")
        } else {
            self.ty.to_string()
        }
    }

    /// Whether transport `name` takes it.
    pub fn taken_by(&self, transport: &str) -> bool {
        self.owners.iter().any(|o| *o == "common" || *o == transport)
    }
}

/// The names a named choice of type `T` accepts, read from serde's own
/// error for an unknown name (so they are the names the parser takes);
/// empty for any other type.
pub fn choices<T: DeserializeOwned>() -> Vec<String> {
    let Err(e) = serde_json::from_value::<T>(serde_json::Value::from("\u{1}")) else {
        return Vec::new();
    };
    // serde writes "unknown variant `x`, expected one of `a`, `b`, `c`",
    // "... expected `a` or `b`" or "... expected `a`"
    let msg = e.to_string();
    let Some((_, list)) = msg.split_once("unknown variant").and_then(|(_, m)| m.split_once("expected ")) else {
        return Vec::new();
    };
    let list = list.trim_start_matches("one of ").replace(" or ", ", ");
    list.split(", ").map(|c| c.trim().trim_matches('`').to_string()).collect()
}

/// The fields transport `name` takes, besides the common ones.
pub fn of(transport: &str) -> impl Iterator<Item = &'static FieldInfo> + '_ {
    super::FLOW_FIELDS.iter().filter(move |f| f.owners.contains(&transport))
}

/// The flow fields every transport takes.
pub fn common() -> impl Iterator<Item = &'static FieldInfo> {
    super::FLOW_FIELDS.iter().filter(|f| f.owners.contains(&"common"))
}

/// Declares [`FlowSpec`](super::FlowSpec) and [`FLOW_FIELDS`](super::FLOW_FIELDS)
/// from one list: each field is its doc comment, `#[flow(owners; "values")]`
/// or `#[flow(owners; "values"; "default note")]`, its serde attribute
/// and `pub name: Type`. The `flow` attribute is the macro's and does not
/// reach the struct.
macro_rules! flow_spec {
    (
        $(#[$smeta:meta])*
        pub struct $S:ident {
            $(
                $(#[doc = $doc:literal])*
                #[flow($($owner:ident),+ ; $ty:literal $(; $note:literal)?)]
                #[serde($($serde:tt)*)]
                pub $name:ident : $t:ty,
            )*
        }
    ) => {
        $(#[$smeta])*
        pub struct $S {
            $(
                $(#[doc = $doc])*
                #[serde($($serde)*)]
                pub $name: $t,
            )*
        }

        /// Every flow field, in [`FlowSpec`]'s order, from its declaration.
        pub const FLOW_FIELDS: &[fields::FieldInfo] = &[
            $(
                fields::FieldInfo {
                    name: stringify!($name),
                    owners: &[$(stringify!($owner)),+],
                    ty: $ty,
                    default_note: concat!("" $(, $note)?),
                    doc: &[$($doc),*],
                    choices: fields::choices::<$t>,
                },
            )*
        ];
    };
}

#[cfg(test)]
mod tests {
    use super::super::{FlowSpec, FLOW_FIELDS};

    /// Every field of the struct is declared (the serialised names of a
    /// flow with every field given are the declaration's names).
    #[test]
    fn the_declaration_names_every_field_once() {
        let names: Vec<&str> = FLOW_FIELDS.iter().map(|f| f.name).collect();
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len(), "a field declared twice");
        let spec: FlowSpec = serde_json::from_value(serde_json::json!({})).unwrap();
        for k in serde_json::to_value(&spec).unwrap().as_object().unwrap().keys() {
            assert!(names.contains(&k.as_str()), "{k} serialised but not declared");
        }
        for f in FLOW_FIELDS {
            assert!(!f.doc().is_empty(), "{} has no doc", f.name);
            assert!(!f.values().is_empty(), "{} has no values", f.name);
            assert!(!f.owners.is_empty());
        }
    }

    /// A named choice's values are the names serde accepts, and each
    /// parses.
    #[test]
    fn a_choices_values_are_the_parsers_names() {
        let rec = FLOW_FIELDS.iter().find(|f| f.name == "recovery").unwrap();
        assert_eq!(rec.choices(), ["reno", "newreno", "sack", "sack1"]);
        assert_eq!(rec.values(), "`\"reno\"`, `\"newreno\"`, `\"sack\"`, `\"sack1\"`");
        for f in FLOW_FIELDS {
            for c in f.choices() {
                let j = serde_json::json!({ f.name: c });
                serde_json::from_value::<FlowSpec>(j).unwrap_or_else(|e| panic!("{}: {c}: {e}", f.name));
            }
        }
        let cc = FLOW_FIELDS.iter().find(|f| f.name == "cc").unwrap();
        assert!(cc.choices().is_empty(), "a string is not a named choice");
    }
}
