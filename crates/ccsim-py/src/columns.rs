//! The results' per-flow and per-link tables as typed columns.
//!
//! A run of 10,000 flows has 40,000 link rows and 10,000 flow rows: as one
//! JSON document they are 26 MB of text, and parsed 47 MB of Python dicts,
//! about 7 KB per flow on top of the run's own memory. As columns
//! (one packed array of 8-byte numbers per field, strings dictionary-coded
//! where their values repeat)
//! they are about 1 KB per flow, and Python reads them in place
//! (`ccsim.tables.RowTable`, which gives each row as a mapping).
//!
//! The columns come from the rows' own serde serialisation, read back in
//! field order, so a row seen through the table is the row the JSON
//! document holds, key for key and value for value: a field added to
//! `FlowResult` or `LinkResult` appears here without code, a skipped
//! field (`skip_serializing_if`) is absent from that row, and JSON null
//! (`None`, a NaN) is null. Each value keeps its JSON type: a number
//! written with a fraction or exponent is a float, any other an integer,
//! as `json.loads` would give it.

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde::Serialize;
use serde_json::value::RawValue;
use std::collections::HashMap;

/// A row's fields in the order serde wrote them, values unparsed.
struct Entries<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Entries<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Entries<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a results row (a JSON object)")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
                let mut v = Vec::new();
                while let Some((k, raw)) = m.next_entry::<String, &'de RawValue>()? {
                    v.push((k, raw));
                }
                Ok(Entries(v))
            }
        }
        d.deserialize_map(V)
    }
}

/// A row's value for a column: present, JSON null, or absent (a skipped
/// field). `STATE_VALUE` rows hold a value in the column's data.
pub const STATE_VALUE: u8 = 0;
pub const STATE_NULL: u8 = 1;
pub const STATE_ABSENT: u8 = 2;

/// A string column's values, end to end in one string: value `c` is
/// `text` from character `starts[c]` to `starts[c + 1]` (characters, as
/// Python slices a `str`). One allocation for all of them, not one per
/// value.
///
/// Values are dictionary-coded (each distinct value kept once) while that
/// pays. Coding costs a hash table entry and a byte offset per distinct
/// value and saves a repeated value's text and offsets, so it pays when
/// values repeat about three times or more: a column more than a third of
/// whose first [`PROBE`] values are distinct (the links' names, all
/// distinct, 40,000 of them for 10,000 flows on a dumbbell; their `from`
/// and `to`, half distinct) stops looking values up and appends each as
/// it comes, holding no hash table (about 220 bytes per flow at S2 for the
/// names alone). A value that repeats is then kept again; every
/// row still reads its own value.
#[derive(Default)]
pub struct Strings {
    pub text: String,
    pub starts: Vec<u32>,
    /// A hash of each value to its code (the first value with that hash);
    /// values whose hash an earlier value has are in `collided`. `None`
    /// once the column appends without coding.
    index: Option<HashMap<u64, u32>>,
    collided: HashMap<String, u32>,
    chars: u32,
    /// Each value's byte offset in `text`, for the lookups while coding.
    bytes: Vec<u32>,
    /// Values held (codes handed out).
    values: u32,
    /// Values given so far, and how many the column will have.
    seen: usize,
    rows: usize,
}

/// Values a string column codes before deciding whether coding pays.
pub const PROBE: usize = 256;

impl Strings {
    fn with_rows(rows: usize) -> Strings {
        Strings { index: Some(HashMap::new()), rows, ..Strings::default() }
    }

    fn get(&self, c: u32) -> &str {
        let c = c as usize;
        &self.text[self.bytes[c] as usize..self.bytes.get(c + 1).map_or(self.text.len(), |&b| b as usize)]
    }

    fn add(&mut self, s: &str) -> u32 {
        let c = self.values;
        self.values += 1;
        if self.index.is_some() {
            self.bytes.push(self.text.len() as u32);
        }
        self.starts.push(self.chars);
        self.text.push_str(s);
        self.chars += s.chars().count() as u32;
        c
    }

    /// Stop coding: every value from now on is appended. The offsets are
    /// allocated for every row at once, the text for as many more values
    /// of the mean length so far, so that nothing doubles on the way.
    fn append_from_now(&mut self) {
        self.index = None;
        self.collided = HashMap::new();
        self.bytes = Vec::new();
        let more = self.rows.saturating_sub(self.seen);
        self.starts.reserve_exact(more + 1);
        self.text.reserve_exact(self.text.len().div_ceil(self.values.max(1) as usize) * more);
    }

    /// The code of `s`, added if new (or if the column no longer codes).
    fn code(&mut self, s: &str) -> u32 {
        use std::hash::{Hash, Hasher};
        self.seen += 1;
        let Some(index) = &self.index else {
            return self.add(s);
        };
        let mut h = std::collections::hash_map::DefaultHasher::new();
        s.hash(&mut h);
        let h = h.finish();
        let c = match index.get(&h).copied() {
            Some(c) if self.get(c) == s => c,
            Some(_) => match self.collided.get(s) {
                Some(&c) => c,
                None => {
                    let c = self.add(s);
                    self.collided.insert(s.to_owned(), c);
                    c
                }
            },
            None => {
                let c = self.add(s);
                // `add` does not touch the index
                self.index.as_mut().expect("coding").insert(h, c);
                c
            }
        };
        if self.seen == PROBE && 3 * self.values as usize > PROBE {
            self.append_from_now();
        }
        c
    }

    /// `starts` closed with the end of the last value.
    pub fn into_parts(mut self) -> (String, Vec<u32>) {
        self.starts.push(self.chars);
        (self.text, self.starts)
    }

    /// Each code's value, whether the column codes or appends.
    fn into_values(self) -> Vec<String> {
        let (text, starts) = self.into_parts();
        let at: Vec<usize> = text.char_indices().map(|(b, _)| b).chain(std::iter::once(text.len())).collect();
        starts.windows(2).map(|w| text[at[w[0] as usize]..at[w[1] as usize]].to_owned()).collect()
    }
}

/// One column's values, one per row (a placeholder where the row's state
/// is null or absent).
pub enum Data {
    F64(Vec<f64>),
    /// Unsigned integers while every one fits 32 bits (counts nearly
    /// always do: half the memory), widened to `U64` by the first that
    /// does not.
    U32(Vec<u32>),
    U64(Vec<u64>),
    I64(Vec<i64>),
    Bool(Vec<u8>),
    /// Dictionary-coded strings: value `codes[i]` of `values`.
    Str {
        values: Strings,
        codes: Vec<u32>,
    },
    /// Anything else (an array or object, or a column whose rows disagree
    /// on the type): each row's JSON text.
    Json(Vec<Option<String>>),
}

/// The JSON type of one value as serde_json wrote it.
enum Kind {
    Null,
    Bool(bool),
    Str(String),
    F64(f64),
    U64(u64),
    I64(i64),
    Other,
}

fn kind(text: &str) -> Kind {
    match text.as_bytes().first() {
        Some(b'n') => Kind::Null,
        Some(b't') => Kind::Bool(true),
        Some(b'f') => Kind::Bool(false),
        Some(b'"') => serde_json::from_str(text).map(Kind::Str).unwrap_or(Kind::Other),
        Some(b'[') | Some(b'{') | None => Kind::Other,
        // serde_json writes every f64 with a '.' or an exponent; json.loads
        // reads exactly those as floats. Rust's and Python's parsers both
        // round correctly, so the double is the one the document holds.
        _ if text.bytes().any(|c| matches!(c, b'.' | b'e' | b'E')) => {
            text.parse().map(Kind::F64).unwrap_or(Kind::Other)
        }
        Some(b'-') => text.parse().map(Kind::I64).unwrap_or(Kind::Other),
        _ => text.parse().map(Kind::U64).unwrap_or(Kind::Other),
    }
}

impl Data {
    fn for_kind(k: &Kind, n: usize) -> Option<Data> {
        Some(match k {
            Kind::Null => return None,
            Kind::Bool(_) => Data::Bool(Vec::with_capacity(n)),
            Kind::Str(_) => Data::Str { values: Strings::with_rows(n), codes: Vec::with_capacity(n) },
            Kind::F64(_) => Data::F64(Vec::with_capacity(n)),
            Kind::U64(_) => Data::U32(Vec::with_capacity(n)),
            Kind::I64(_) => Data::I64(Vec::with_capacity(n)),
            Kind::Other => Data::Json(Vec::with_capacity(n)),
        })
    }

    fn push_placeholder(&mut self) {
        match self {
            Data::F64(v) => v.push(0.0),
            Data::U32(v) => v.push(0),
            Data::U64(v) => v.push(0),
            Data::I64(v) => v.push(0),
            Data::Bool(v) => v.push(0),
            Data::Str { codes, .. } => codes.push(0),
            Data::Json(v) => v.push(None),
        }
    }

    /// Append a row's value if its type fits this column.
    fn push(&mut self, k: Kind, text: &str) -> Result<(), Kind> {
        // Integers of either sign are one type in JSON (and Python): an
        // unsigned column that meets a negative value becomes signed, and
        // a signed one takes an unsigned value that fits.
        let widen = match (&*self, &k) {
            (Data::U32(v), Kind::U64(x)) if *x > u32::MAX as u64 => {
                Some(Data::U64(v.iter().map(|&x| x as u64).collect()))
            }
            (Data::U32(v), Kind::I64(_)) => Some(Data::I64(v.iter().map(|&x| x as i64).collect())),
            (Data::U64(v), Kind::I64(_)) if v.iter().all(|&x| x <= i64::MAX as u64) => {
                Some(Data::I64(v.iter().map(|&x| x as i64).collect()))
            }
            _ => None,
        };
        if let Some(w) = widen {
            *self = w;
        }
        let k = match (&*self, k) {
            (Data::I64(_), Kind::U64(x)) if x <= i64::MAX as u64 => Kind::I64(x as i64),
            (_, k) => k,
        };
        match (self, k) {
            (Data::F64(v), Kind::F64(x)) => v.push(x),
            (Data::U32(v), Kind::U64(x)) => v.push(x as u32),
            (Data::U64(v), Kind::U64(x)) => v.push(x),
            (Data::I64(v), Kind::I64(x)) => v.push(x),
            (Data::Bool(v), Kind::Bool(x)) => v.push(x as u8),
            (Data::Str { values, codes }, Kind::Str(s)) => codes.push(values.code(&s)),
            (Data::Json(v), _) => v.push(Some(text.to_owned())),
            (_, k) => return Err(k),
        }
        Ok(())
    }

    /// This column as JSON text per row (None where `has_value` is false):
    /// for a column whose rows turn out to hold values of more than one
    /// type.
    fn into_json(self, has_value: impl Fn(usize) -> bool) -> Data {
        fn text<T: Serialize>(x: &T) -> String {
            serde_json::to_string(x).expect("a value serialises")
        }
        let v: Vec<String> = match self {
            Data::F64(v) => v.iter().map(text).collect(),
            Data::U32(v) => v.iter().map(text).collect(),
            Data::U64(v) => v.iter().map(text).collect(),
            Data::I64(v) => v.iter().map(text).collect(),
            Data::Bool(v) => v.iter().map(|&b| text(&(b != 0))).collect(),
            Data::Str { values, codes } => {
                let values = values.into_values();
                codes.iter().map(|&c| text(&values[c as usize])).collect()
            }
            j @ Data::Json(_) => return j,
        };
        Data::Json(v.into_iter().enumerate().map(|(i, t)| has_value(i).then_some(t)).collect())
    }
}

pub struct Column {
    pub name: String,
    /// `None` until a row gives it a value (a column of nulls so far).
    pub data: Option<Data>,
    /// Each row's `STATE_*`; `None` while every row has a value.
    pub state: Option<Vec<u8>>,
    /// Rows so far.
    len: usize,
}

impl Column {
    fn push_state(&mut self, s: u8, capacity: usize) {
        if self.state.is_none() && s != STATE_VALUE {
            let mut v = Vec::with_capacity(capacity.max(self.len + 1));
            v.resize(self.len, STATE_VALUE);
            self.state = Some(v);
        }
        if let Some(v) = &mut self.state {
            v.push(s);
        }
        self.len += 1;
    }

    /// Rows before `n` that did not give this column a value are absent.
    fn fill_absent(&mut self, n: usize, capacity: usize) {
        while self.len < n {
            if let Some(d) = &mut self.data {
                d.push_placeholder();
            }
            self.push_state(STATE_ABSENT, capacity);
        }
    }

    /// Append the value `text` (JSON) as the next row.
    fn push(&mut self, text: &str, capacity: usize) {
        let k = kind(text);
        if let Kind::Null = k {
            if let Some(d) = &mut self.data {
                d.push_placeholder();
            }
            self.push_state(STATE_NULL, capacity);
            return;
        }
        let len = self.len;
        let data = self.data.get_or_insert_with(|| {
            let mut d = Data::for_kind(&k, capacity).expect("not null");
            (0..len).for_each(|_| d.push_placeholder());
            d
        });
        if data.push(k, text).is_err() {
            let old = std::mem::replace(data, Data::Json(Vec::new()));
            let state = self.state.as_deref();
            let mut j = old.into_json(|i| state.is_none_or(|s| s[i] == STATE_VALUE));
            let _ = j.push(Kind::Other, text);
            *data = j;
        }
        self.push_state(STATE_VALUE, capacity);
    }
}

/// A table of rows as columns, in the rows' field order.
#[derive(Default)]
pub struct Table {
    pub rows: usize,
    /// Columns in field order (the order every row's fields follow).
    pub columns: Vec<Column>,
    by_name: HashMap<String, usize>,
    /// Rows expected: each column is allocated for them at once (a growing
    /// vector would hold up to twice its values at its peak).
    capacity: usize,
}

impl Table {
    pub fn with_capacity(rows: usize) -> Table {
        Table { capacity: rows, ..Table::default() }
    }

    /// Append one row, serialised as serde writes it into the JSON
    /// document.
    pub fn push<T: Serialize>(&mut self, row: &T) {
        let text = serde_json::to_string(row).expect("a results row serialises");
        let Entries(entries) = serde_json::from_str(&text).expect("a results row is a JSON object");
        let (r, capacity) = (self.rows, self.capacity.max(self.rows + 1));
        self.rows += 1;
        // Where a field first seen in this row goes: after the last field
        // of this row already placed, so that every row's fields keep
        // their order (all rows come from one struct).
        let mut cursor = 0;
        for (name, raw) in entries {
            let at = match self.by_name.get(&name) {
                Some(&i) => i,
                None => {
                    self.columns.insert(cursor, Column { name, data: None, state: None, len: 0 });
                    self.by_name = self.columns.iter().enumerate().map(|(i, c)| (c.name.clone(), i)).collect();
                    cursor
                }
            };
            cursor = cursor.max(at + 1);
            let c = &mut self.columns[at];
            c.fill_absent(r, capacity);
            c.push(raw.get(), capacity);
        }
        for c in &mut self.columns {
            c.fill_absent(self.rows, capacity);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Row {
        id: u32,
        name: String,
        x: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        extra: Option<f64>,
        maybe: Option<f64>,
        flag: bool,
        neg: i64,
        list: Vec<u32>,
    }

    fn row(id: u32, extra: Option<f64>) -> Row {
        Row {
            id,
            name: format!("r{}", id % 2),
            x: id as f64 * 0.5,
            extra,
            maybe: if id == 1 { None } else { Some(f64::NAN) },
            flag: id.is_multiple_of(2),
            neg: -(id as i64),
            list: vec![id],
        }
    }

    #[test]
    fn a_field_first_seen_later_keeps_its_place_and_types_hold() {
        let mut t = Table::default();
        t.push(&row(0, None));
        t.push(&row(1, Some(2.0)));
        let names: Vec<&str> = t.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["id", "name", "x", "extra", "maybe", "flag", "neg", "list"]);
        let extra = &t.columns[3];
        assert_eq!(extra.state.as_deref(), Some(&[STATE_ABSENT, STATE_VALUE][..]));
        assert!(matches!(&extra.data, Some(Data::F64(v)) if v[1] == 2.0));
        // NaN and None are both JSON null
        assert_eq!(t.columns[4].state.as_deref(), Some(&[STATE_NULL, STATE_NULL][..]));
        assert!(t.columns[4].data.is_none());
        assert!(t.columns[0].state.is_none(), "a column with every value has no states");
        assert!(matches!(&t.columns[0].data, Some(Data::U32(v)) if v == &[0, 1]));
        assert!(matches!(&t.columns[6].data, Some(Data::I64(v)) if v == &[0, -1]));
        assert!(matches!(&t.columns[5].data, Some(Data::Bool(v)) if v == &[1, 0]));
        match t.columns.remove(1).data {
            Some(Data::Str { values, codes }) => {
                assert_eq!(codes, &[0, 1]);
                assert_eq!(values.into_parts(), ("r0r1".to_owned(), vec![0, 2, 4]));
            }
            _ => panic!("name is a string column"),
        }
        assert!(matches!(&t.columns[6].data, Some(Data::Json(v)) if v[1].as_deref() == Some("[1]")));
    }

    #[test]
    fn integers_widen_past_32_bits() {
        #[derive(Serialize)]
        struct A {
            v: u64,
        }
        let mut t = Table::default();
        t.push(&A { v: 7 });
        t.push(&A { v: u64::MAX });
        assert!(matches!(&t.columns[0].data, Some(Data::U64(v)) if v == &[7, u64::MAX]));
    }

    #[test]
    fn strings_are_coded_once_each_with_character_offsets() {
        let mut s = Strings::with_rows(5);
        let codes: Vec<u32> = ["a->b", "ü->b", "a->b", "ü->b", ""].iter().map(|x| s.code(x)).collect();
        assert_eq!(codes, [0, 1, 0, 1, 2]);
        // offsets count characters, as Python slices a str
        assert_eq!(s.into_parts(), ("a->bü->b".to_owned(), vec![0, 4, 8, 8]));
    }

    /// Each row's value, as `RowTable` reads it from the parts.
    fn values_of(s: Strings, codes: &[u32]) -> Vec<String> {
        let (text, starts) = s.into_parts();
        let chars: Vec<char> = text.chars().collect();
        codes
            .iter()
            .map(|&c| chars[starts[c as usize] as usize..starts[c as usize + 1] as usize].iter().collect())
            .collect()
    }

    #[test]
    fn distinct_values_stop_being_coded_and_still_read_back() {
        let rows = 3 * PROBE;
        let given: Vec<String> = (0..rows).map(|i| format!("h{}->r", i % (2 * PROBE))).collect();
        let mut s = Strings::with_rows(rows);
        let codes: Vec<u32> = given.iter().map(|x| s.code(x)).collect();
        assert!(s.index.is_none(), "{PROBE} distinct values: no table");
        assert_eq!(s.starts.capacity(), rows + 1, "offsets for every row at once");
        // past the probe a repeated value is a new entry
        assert_eq!(codes[2 * PROBE], 2 * PROBE as u32);
        assert_eq!(values_of(s, &codes), given);

        // half distinct, as a dumbbell's links' `from`: not worth a table
        let given: Vec<String> = (0..rows).map(|i| if i % 2 == 0 { format!("h{i}") } else { "r".into() }).collect();
        let mut s = Strings::with_rows(rows);
        let codes: Vec<u32> = given.iter().map(|x| s.code(x)).collect();
        assert!(s.index.is_none() && s.bytes.is_empty(), "half distinct: appended");
        assert_eq!(values_of(s, &codes), given);

        // each value four times within the probe: coded, each kept once
        let given: Vec<String> = (0..rows).map(|i| format!("{}ü", i % (PROBE / 4))).collect();
        let mut s = Strings::with_rows(rows);
        let codes: Vec<u32> = given.iter().map(|x| s.code(x)).collect();
        assert!(s.index.is_some(), "a quarter distinct: still coded");
        assert_eq!(s.values as usize, PROBE / 4);
        assert_eq!(values_of(s, &codes), given);
    }

    #[test]
    fn an_appending_string_column_falls_back_to_json_text_too() {
        #[derive(Serialize)]
        struct A {
            v: serde_json::Value,
        }
        let mut t = Table::with_capacity(PROBE + 2);
        for i in 0..=PROBE {
            t.push(&A { v: serde_json::json!(format!("ü{i}")) });
        }
        t.push(&A { v: serde_json::json!(7) });
        match &t.columns[0].data {
            Some(Data::Json(v)) => {
                assert_eq!(v[PROBE].as_deref(), Some(format!("\"ü{PROBE}\"").as_str()));
                assert_eq!(v[PROBE + 1].as_deref(), Some("7"));
            }
            _ => panic!("mixed column is JSON text"),
        }
    }

    #[test]
    fn a_column_of_mixed_types_falls_back_to_json_text() {
        #[derive(Serialize)]
        struct A {
            v: serde_json::Value,
        }
        let mut t = Table::default();
        t.push(&A { v: serde_json::json!(1) });
        t.push(&A { v: serde_json::json!(null) });
        t.push(&A { v: serde_json::json!(1.5) });
        let c = &t.columns[0];
        assert_eq!(c.state.as_deref(), Some(&[STATE_VALUE, STATE_NULL, STATE_VALUE][..]));
        match &c.data {
            Some(Data::Json(v)) => assert_eq!(v, &[Some("1".to_owned()), None, Some("1.5".to_owned())]),
            _ => panic!("mixed column is JSON text"),
        }
    }
}
