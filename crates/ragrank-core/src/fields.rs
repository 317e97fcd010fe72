//! Field indexes: metadata values to document sets, so a filter becomes bitmap algebra instead
//! of a walk over every document's JSON (see docs/FILTERS.md).
//!
//! One `FieldIndex` serves the documents of one segment, numbered from 0. For every indexed
//! field it keeps which documents hold it at all, and each scalar value (or element of an array
//! value) it holds: strings in code-point order (equality, and ranges such as ISO dates),
//! integers and other numbers in numeric order, booleans and null as sets. Objects and nested
//! arrays count as present and equal nothing, as in the scan (`MetaFilter::matches`).
//! `FieldIndex::select` answers a filter exactly as the scan would, or says it cannot (a field
//! it does not index), so the caller scans.
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::{Arc, Mutex};

pub use roaring::RoaringBitmap;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::filter::{lookup, Cond, MetaFilter};
use crate::{Error, Result};

/// What a declared field must hold (null and arrays of such values are always accepted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    /// Strings and booleans: exact values.
    Keyword,
    /// Numbers: values and ranges.
    Number,
    /// ISO 8601 strings (`2024-03-01`, `2024-03-01T12:00:00Z`): ranges in time order.
    Date,
    /// Any value, as a dynamically indexed field (declared `true`: a nested path, say).
    Any,
}

impl FieldType {
    pub fn parse(name: &str) -> Option<FieldType> {
        match name {
            "keyword" => Some(FieldType::Keyword),
            "number" => Some(FieldType::Number),
            "date" => Some(FieldType::Date),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            FieldType::Keyword => "keyword",
            FieldType::Number => "number",
            FieldType::Date => "date",
            FieldType::Any => "any",
        }
    }

    fn accepts(self, v: &Value) -> bool {
        match (self, v) {
            (_, Value::Null) | (FieldType::Any, _) => true,
            (FieldType::Keyword, Value::String(_) | Value::Bool(_)) => true,
            (FieldType::Number, Value::Number(_)) => true,
            (FieldType::Date, Value::String(s)) => is_iso_date(s),
            _ => false,
        }
    }
}

/// One entry of the `fields` option: a type name, `true` (indexed, any type) or `false`
/// (never indexed: filters on it scan).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldDecl(pub Option<FieldType>);

impl Serialize for FieldDecl {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self.0 {
            None => s.serialize_bool(false),
            Some(FieldType::Any) => s.serialize_bool(true),
            Some(t) => s.serialize_str(t.name()),
        }
    }
}

impl<'de> Deserialize<'de> for FieldDecl {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Decl;
        impl serde::de::Visitor<'_> for Decl {
            type Value = FieldDecl;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("'keyword', 'number', 'date', true or false")
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> std::result::Result<FieldDecl, E> {
                Ok(FieldDecl(v.then_some(FieldType::Any)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<FieldDecl, E> {
                match FieldType::parse(v) {
                    Some(t) => Ok(FieldDecl(Some(t))),
                    None => Err(E::custom(format!(
                        "unknown field type {v:?} (expected 'keyword', 'number', 'date', true or false)"
                    ))),
                }
            }
        }
        d.deserialize_any(Decl)
    }
}

/// Checks a `fields` option's entries, naming the bad one (`options.fields.year`).
pub fn check_decls(fields: Option<&Value>) -> Result<()> {
    let Some(fields) = fields.filter(|f| !f.is_null()) else {
        return Ok(());
    };
    let Some(map) = fields.as_object() else {
        return Err(Error::invalid(format!(
            "options.fields must be an object, got {}",
            shorten(fields)
        )));
    };
    for (name, decl) in map {
        let ok = match decl {
            Value::Bool(_) => true,
            Value::String(s) => FieldType::parse(s).is_some(),
            _ => false,
        };
        if name.is_empty() || !ok {
            return Err(Error::invalid(format!(
                "options.fields.{name} must be 'keyword', 'number', 'date', true or false, got {}",
                shorten(decl)
            )));
        }
    }
    Ok(())
}

/// `YYYY-MM-DD`, optionally followed by `T` or a space and a time: strings of this form sort in
/// time order when they share a time zone notation, which is what a range on them assumes.
fn is_iso_date(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    digits(0..4)
        && b.get(4) == Some(&b'-')
        && digits(5..7)
        && b.get(7) == Some(&b'-')
        && digits(8..10)
        && (b.len() == 10 || matches!(b[10], b'T' | b' '))
}

/// Which fields a segment indexes: declared ones (any path, `a.b` included), and, when dynamic,
/// every other top-level key of `meta` without a dot, as Elasticsearch's dynamic mapping does.
/// A field declared `None` is never indexed (filters on it scan).
#[derive(Debug, Clone, PartialEq)]
pub struct FieldSchema {
    declared: BTreeMap<String, Option<FieldType>>,
    dynamic: bool,
}

impl Default for FieldSchema {
    fn default() -> Self {
        FieldSchema::dynamic()
    }
}

impl FieldSchema {
    /// The schema of a `fields` option (name to declaration) and whether other top-level
    /// fields are indexed as they come.
    pub fn of_decls<'a>(decls: impl IntoIterator<Item = (&'a String, &'a FieldDecl)>, dynamic: bool) -> Self {
        FieldSchema::new(decls.into_iter().map(|(k, d)| (k.clone(), d.0)), dynamic)
    }

    pub fn new(declared: impl IntoIterator<Item = (String, Option<FieldType>)>, dynamic: bool) -> Self {
        FieldSchema {
            declared: declared.into_iter().collect(),
            dynamic,
        }
    }

    /// Dynamic indexing of every top-level scalar field, nothing declared.
    pub fn dynamic() -> Self {
        FieldSchema::new([], true)
    }

    /// The schema as JSON (`{"fields":{..},"dynamic":true}`), as files store it.
    pub fn to_json(&self) -> String {
        let fields: BTreeMap<&str, FieldDecl> =
            self.declared.iter().map(|(k, t)| (k.as_str(), FieldDecl(*t))).collect();
        serde_json::json!({ "fields": fields, "dynamic": self.dynamic }).to_string()
    }

    pub fn from_json(json: &[u8]) -> Result<Self> {
        #[derive(Deserialize)]
        struct Stored {
            fields: BTreeMap<String, FieldDecl>,
            dynamic: bool,
        }
        let s: Stored = serde_json::from_slice(json).map_err(|e| Error::invalid(format!("bad field schema: {e}")))?;
        Ok(FieldSchema::of_decls(&s.fields, s.dynamic))
    }

    /// The schema of caller options `{ fields?: { name: decl }, dynamicFields?: bool }`
    /// (JSON), with errors that name the bad option.
    pub fn from_options(json: &str) -> Result<Self> {
        let v: Value = serde_json::from_str(json).map_err(|e| Error::invalid(format!("bad field options: {e}")))?;
        check_decls(v.get("fields"))?;
        let decls: BTreeMap<String, FieldDecl> = match v.get("fields") {
            None | Some(Value::Null) => BTreeMap::new(),
            Some(f) => serde_json::from_value(f.clone()).map_err(|e| Error::invalid(format!("options.fields: {e}")))?,
        };
        let dynamic = match v.get("dynamicFields") {
            None | Some(Value::Null) => true,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(Error::invalid(format!(
                    "options.dynamicFields must be a boolean, got {other}"
                )))
            }
        };
        Ok(FieldSchema::of_decls(&decls, dynamic))
    }

    pub fn declared(&self) -> impl Iterator<Item = (&str, Option<FieldType>)> {
        self.declared.iter().map(|(k, t)| (k.as_str(), *t))
    }

    pub fn is_dynamic(&self) -> bool {
        self.dynamic
    }

    /// Whether filters on `path` are answered by the field index.
    pub fn indexes(&self, path: &str) -> bool {
        match self.declared.get(path) {
            Some(t) => t.is_some(),
            None => self.dynamic && !path.contains('.'),
        }
    }

    /// Checks one document's metadata against the declared types; the error names the field.
    pub fn check(&self, meta: Option<&Value>) -> Result<()> {
        for (path, ty) in &self.declared {
            let Some(ty) = ty else { continue };
            let Some(v) = lookup(meta, path) else { continue };
            let ok = match v {
                Value::Array(a) => a.iter().all(|e| ty.accepts(e)),
                v => ty.accepts(v),
            };
            if !ok {
                return Err(Error::invalid(format!(
                    "meta.{path} is declared {} but holds {}",
                    ty.name(),
                    shorten(v)
                )));
            }
        }
        Ok(())
    }

    /// The indexed fields of one document's metadata, with their values.
    fn fields<'a>(&'a self, meta: Option<&'a Value>) -> impl Iterator<Item = (&'a str, &'a Value)> + 'a {
        let declared = self
            .declared
            .iter()
            .filter(|(_, t)| t.is_some())
            .filter_map(move |(path, _)| Some((path.as_str(), lookup(meta, path)?)));
        let dynamic = meta
            .and_then(Value::as_object)
            .filter(|_| self.dynamic)
            .into_iter()
            .flatten()
            .filter(|(k, _)| !k.contains('.') && !self.declared.contains_key(k.as_str()))
            .map(|(k, v)| (k.as_str(), v));
        declared.chain(dynamic)
    }
}

fn shorten(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s,
    }
}

/// A number as a map key: ordered by value (JSON has no NaN; -0 is stored as 0).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Num(f64);

impl Eq for Num {}
impl PartialOrd for Num {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Num {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

fn num(f: f64) -> Num {
    Num(if f == 0.0 { 0.0 } else { f })
}

/// One field's documents by value.
#[derive(Debug, Clone, Default, PartialEq)]
struct Column {
    present: RoaringBitmap,
    nulls: RoaringBitmap,
    trues: RoaringBitmap,
    falses: RoaringBitmap,
    strings: BTreeMap<Box<str>, RoaringBitmap>,
    /// Numbers that fit an i64 (the scan compares two of them as integers).
    ints: BTreeMap<i64, RoaringBitmap>,
    /// Every other number (fractions, integers beyond i64), compared as f64.
    floats: BTreeMap<Num, RoaringBitmap>,
}

/// Ints within this distance of an f64 bound contain every int whose f64 image can compare
/// differently from its integer order (an i64 rounds to f64 by at most 1024).
const ROUNDING_SLACK: i64 = 1 << 12;

impl Column {
    fn insert(&mut self, doc: u32, v: &Value) {
        self.present.insert(doc);
        match v {
            Value::Array(a) => a.iter().for_each(|e| self.insert_scalar(doc, e)),
            v => self.insert_scalar(doc, v),
        }
    }

    fn insert_scalar(&mut self, doc: u32, v: &Value) {
        match v {
            Value::Null => {
                self.nulls.insert(doc);
            }
            Value::Bool(true) => {
                self.trues.insert(doc);
            }
            Value::Bool(false) => {
                self.falses.insert(doc);
            }
            Value::String(s) => {
                self.strings.entry(s.as_str().into()).or_default().insert(doc);
            }
            Value::Number(n) => match (n.as_i64(), n.as_f64()) {
                (Some(i), _) => {
                    self.ints.entry(i).or_default().insert(doc);
                }
                (None, Some(f)) => {
                    self.floats.entry(num(f)).or_default().insert(doc);
                }
                (None, None) => {}
            },
            // Nested arrays and objects equal nothing and order with nothing.
            Value::Array(_) | Value::Object(_) => {}
        }
    }

    /// Documents with a value (or array element) equal to `x`, as `filter::equal` decides.
    fn equal(&self, x: &Value) -> RoaringBitmap {
        match x {
            Value::Null => self.nulls.clone(),
            Value::Bool(true) => self.trues.clone(),
            Value::Bool(false) => self.falses.clone(),
            Value::String(s) => self.strings.get(s.as_str()).cloned().unwrap_or_default(),
            Value::Number(_) => self.numbers(x, |o| o == Ordering::Equal),
            Value::Array(_) | Value::Object(_) => RoaringBitmap::new(),
        }
    }

    /// Documents with a value `v` where `compare(v, x)` passes `keep`, as `filter::compare`
    /// orders: two strings by code point, two numbers by value, nothing across types.
    fn range(&self, x: &Value, keep: impl Fn(Ordering) -> bool) -> RoaringBitmap {
        match x {
            Value::String(s) => {
                let bounds: (Bound<&str>, Bound<&str>) = range_bounds(s.as_str(), &keep);
                union(self.strings.range::<str, _>(bounds).map(|(_, b)| b))
            }
            Value::Number(_) => self.numbers(x, keep),
            _ => RoaringBitmap::new(),
        }
    }

    /// Numbers `v` with `keep(v cmp x)`: integers compare as integers when `x` is one, everything
    /// else as f64.
    fn numbers(&self, x: &Value, keep: impl Fn(Ordering) -> bool) -> RoaringBitmap {
        let Value::Number(n) = x else {
            return RoaringBitmap::new();
        };
        let Some(xf) = n.as_f64() else {
            return RoaringBitmap::new();
        };
        let mut out = union(self.floats.range(range_bounds(num(xf), &keep)).map(|(_, b)| b));
        let ints = match n.as_i64() {
            Some(xi) => union(self.ints.range(range_bounds(xi, &keep)).map(|(_, b)| b)),
            None => {
                // x is no i64: ints compare by their f64 image, which is monotone in the int, so
                // the passing ints lie within the exact bounds widened by the rounding slack.
                let xi = xf as i64; // saturates
                let (lo, hi) = (xi.saturating_sub(ROUNDING_SLACK), xi.saturating_add(ROUNDING_SLACK));
                let wide = match (keep(Ordering::Less), keep(Ordering::Greater)) {
                    (false, true) => (Bound::Included(lo), Bound::Unbounded),
                    (true, false) => (Bound::Unbounded, Bound::Included(hi)),
                    (false, false) => (Bound::Included(lo), Bound::Included(hi)),
                    (true, true) => (Bound::Unbounded, Bound::Unbounded),
                };
                union(
                    self.ints
                        .range(wide)
                        .filter(|(i, _)| (**i as f64).partial_cmp(&xf).is_some_and(&keep))
                        .map(|(_, b)| b),
                )
            }
        };
        out |= ints;
        out
    }

    fn heap_bytes(&self) -> usize {
        let maps = self
            .strings
            .iter()
            .map(|(k, b)| k.len() + b.serialized_size() + 48)
            .sum::<usize>()
            + self.ints.values().map(|b| b.serialized_size() + 40).sum::<usize>()
            + self.floats.values().map(|b| b.serialized_size() + 40).sum::<usize>();
        maps + [&self.present, &self.nulls, &self.trues, &self.falses]
            .iter()
            .map(|b| b.serialized_size())
            .sum::<usize>()
    }
}

/// The key range whose comparison with `x` passes `keep` (keep describes a contiguous range:
/// =, <, <=, >, >=, or everything).
fn range_bounds<Q: Copy>(x: Q, keep: impl Fn(Ordering) -> bool) -> (Bound<Q>, Bound<Q>) {
    let (lt, eq, gt) = (keep(Ordering::Less), keep(Ordering::Equal), keep(Ordering::Greater));
    let lower = match (lt, eq) {
        (true, _) => Bound::Unbounded,
        (false, true) => Bound::Included(x),
        (false, false) => Bound::Excluded(x),
    };
    let upper = match (gt, eq) {
        (true, _) => Bound::Unbounded,
        (false, true) => Bound::Included(x),
        (false, false) => Bound::Excluded(x),
    };
    (lower, upper)
}

fn union<'a>(bitmaps: impl Iterator<Item = &'a RoaringBitmap>) -> RoaringBitmap {
    let mut out = RoaringBitmap::new();
    for b in bitmaps {
        out |= b;
    }
    out
}

/// The field index of one segment's documents `0..len`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FieldIndex {
    schema: FieldSchema,
    columns: FxHashMap<Box<str>, Column>,
    all: RoaringBitmap,
}

impl FieldIndex {
    pub fn new(schema: FieldSchema) -> Self {
        FieldIndex {
            schema,
            columns: FxHashMap::default(),
            all: RoaringBitmap::new(),
        }
    }

    /// Indexes documents `0..` from their metadata, in order.
    pub fn build<'a>(schema: FieldSchema, metas: impl IntoIterator<Item = Option<&'a Value>>) -> Self {
        let mut index = FieldIndex::new(schema);
        for (doc, meta) in metas.into_iter().enumerate() {
            index.insert(doc as u32, meta);
        }
        index
    }

    pub fn schema(&self) -> &FieldSchema {
        &self.schema
    }

    /// Adds document `doc` (checked by `FieldSchema::check` beforehand).
    pub fn insert(&mut self, doc: u32, meta: Option<&Value>) {
        self.all.insert(doc);
        for (path, v) in self.schema.fields(meta) {
            match self.columns.get_mut(path) {
                Some(c) => c.insert(doc, v),
                None => {
                    let mut c = Column::default();
                    c.insert(doc, v);
                    self.columns.insert(path.into(), c);
                }
            }
        }
    }

    /// The fields `filter` reads that are not indexed (why `select` would scan).
    pub fn uncovered<'f>(&self, filter: &'f MetaFilter, out: &mut Vec<&'f str>) {
        match filter {
            MetaFilter::All(fs) | MetaFilter::Any(fs) => fs.iter().for_each(|f| self.uncovered(f, out)),
            MetaFilter::Not(f) => self.uncovered(f, out),
            MetaFilter::Field { path, .. } => {
                if !self.schema.indexes(path) && !out.contains(&path.as_str()) {
                    out.push(path);
                }
            }
        }
    }

    /// Whether every field `filter` reads is indexed, so `select` answers it.
    pub fn covers(&self, filter: &MetaFilter) -> bool {
        match filter {
            MetaFilter::All(fs) | MetaFilter::Any(fs) => fs.iter().all(|f| self.covers(f)),
            MetaFilter::Not(f) => self.covers(f),
            MetaFilter::Field { path, .. } => self.schema.indexes(path),
        }
    }

    /// The documents `filter` passes, exactly as `MetaFilter::matches` on each document's
    /// metadata; `None` when a field it reads is not indexed (the caller scans).
    pub fn select(&self, filter: &MetaFilter) -> Option<RoaringBitmap> {
        self.covers(filter).then(|| self.eval(filter))
    }

    fn eval(&self, filter: &MetaFilter) -> RoaringBitmap {
        match filter {
            MetaFilter::All(fs) => {
                let mut sets: Vec<RoaringBitmap> = fs.iter().map(|f| self.eval(f)).collect();
                sets.sort_by_key(RoaringBitmap::len);
                let mut it = sets.into_iter();
                let mut out = it.next().unwrap_or_else(|| self.all.clone());
                for s in it {
                    if out.is_empty() {
                        break;
                    }
                    out &= s;
                }
                out
            }
            MetaFilter::Any(fs) => fs.iter().fold(RoaringBitmap::new(), |acc, f| acc | self.eval(f)),
            MetaFilter::Not(f) => &self.all - self.eval(f),
            MetaFilter::Field { path, cond } => {
                let empty = Column::default();
                let c = self.columns.get(path.as_str()).unwrap_or(&empty);
                match cond {
                    Cond::Exists(true) => c.present.clone(),
                    Cond::Exists(false) => &self.all - &c.present,
                    Cond::Eq(x) => c.equal(x),
                    Cond::Ne(x) => &self.all - c.equal(x),
                    Cond::In(xs) => xs.iter().fold(RoaringBitmap::new(), |acc, x| acc | c.equal(x)),
                    Cond::Nin(xs) => &self.all - xs.iter().fold(RoaringBitmap::new(), |acc, x| acc | c.equal(x)),
                    Cond::Range(ord, or_equal, x) => {
                        let (ord, or_equal) = (*ord, *or_equal);
                        c.range(x, move |o| o == ord || (or_equal && o == Ordering::Equal))
                    }
                }
            }
        }
    }

    /// Documents indexed.
    pub fn len(&self) -> u64 {
        self.all.len()
    }

    pub fn is_empty(&self) -> bool {
        self.all.is_empty()
    }

    /// Approximate heap bytes of the indexed fields, by field name.
    pub fn heap_bytes(&self) -> BTreeMap<String, usize> {
        self.columns
            .iter()
            .map(|(k, c)| (k.to_string(), c.heap_bytes()))
            .collect()
    }
}

/// A filter's documents: the bitmap, plus for a broad one the same set as one bit per
/// document (a test is then one load, where a roaring lookup searches its containers).
#[derive(Debug, Clone, PartialEq)]
pub struct DocSet {
    docs: RoaringBitmap,
    words: Option<Box<[u64]>>,
}

/// A selection holding more than one document in this many gets its dense bits.
const DENSE_FROM: u64 = 32;

impl DocSet {
    /// The set of `docs` among documents `0..n`.
    pub fn new(docs: RoaringBitmap, n: u64) -> Self {
        let words = (docs.len() * DENSE_FROM > n).then(|| {
            let mut words = vec![0u64; n.div_ceil(64) as usize];
            for d in &docs {
                words[(d / 64) as usize] |= 1 << (d % 64);
            }
            words.into_boxed_slice()
        });
        DocSet { docs, words }
    }

    #[inline]
    pub fn contains(&self, doc: u32) -> bool {
        match &self.words {
            Some(w) => w.get((doc / 64) as usize).is_some_and(|w| w >> (doc % 64) & 1 == 1),
            None => self.docs.contains(doc),
        }
    }

    pub fn len(&self) -> u64 {
        self.docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    pub fn bitmap(&self) -> &RoaringBitmap {
        &self.docs
    }

    /// One bit per document of `0..n` (document `d` in bit `d % 64` of word `d / 64`), for a broad set.
    pub fn words(&self) -> Option<&[u64]> {
        self.words.as_deref()
    }
}

/// Selections of the most recent filters kept by a `SelectionCache`.
const CACHED_SELECTIONS: usize = 8;

/// The selections of recent filters over one immutable set of documents (a segment's, a
/// chunk's), so a server repeating a filter (a date range, a popular tenant) pays for its
/// bitmap algebra once: a range is the union of many value bitmaps. Never waits: under
/// contention a search computes its selection itself.
#[derive(Debug, Default)]
pub struct SelectionCache(Mutex<Vec<(String, Arc<DocSet>)>>);

impl SelectionCache {
    /// `index.select(filter)`, from the cache when it was asked for lately.
    pub fn select(&self, index: &FieldIndex, filter: &MetaFilter) -> Option<Arc<DocSet>> {
        if !index.covers(filter) {
            return None;
        }
        // The compiled filter's Debug form is canonical: object keys come sorted.
        let key = format!("{filter:?}");
        if let Ok(mut cache) = self.0.try_lock() {
            if let Some(i) = cache.iter().position(|(k, _)| *k == key) {
                // Most recently used last.
                let hit = cache.remove(i);
                let docs = hit.1.clone();
                cache.push(hit);
                return Some(docs);
            }
        }
        let docs = Arc::new(DocSet::new(index.eval(filter), index.len()));
        if let Ok(mut cache) = self.0.try_lock() {
            if !cache.iter().any(|(k, _)| *k == key) {
                if cache.len() == CACHED_SELECTIONS {
                    cache.remove(0);
                }
                cache.push((key, docs.clone()));
            }
        }
        Some(docs)
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};
    use serde_json::json;

    use super::*;

    fn scan(filter: &MetaFilter, metas: &[Option<Value>]) -> RoaringBitmap {
        metas
            .iter()
            .enumerate()
            .filter(|(_, m)| filter.matches(m.as_ref()))
            .map(|(i, _)| i as u32)
            .collect()
    }

    fn compile(f: Value) -> MetaFilter {
        MetaFilter::compile(&f, "filter").unwrap()
    }

    fn random_scalar(rng: &mut StdRng) -> Value {
        match rng.random_range(0..12) {
            0 => Value::Null,
            1 => json!(rng.random_bool(0.5)),
            2 | 3 => json!(["a", "b", "c", "A", "", "é", "2024-01-02", "2024-01-10"][rng.random_range(0..8)]),
            4 | 5 => json!(rng.random_range(-3i64..4)),
            6 => json!([0.5, -0.0, 1.0, 2.5, 1e300, -1e-9][rng.random_range(0..6)]),
            7 => json!([i64::MAX, i64::MIN, i64::MAX - 1][rng.random_range(0..3)]),
            8 => json!(u64::MAX),
            9 => json!(9_223_372_036_854_775_808.0f64),
            10 => json!({ "x": 1 }),
            _ => json!([[1]]),
        }
    }

    fn random_value(rng: &mut StdRng) -> Value {
        if rng.random_bool(0.2) {
            Value::Array((0..rng.random_range(0..4)).map(|_| random_scalar(rng)).collect())
        } else {
            random_scalar(rng)
        }
    }

    fn random_meta(rng: &mut StdRng) -> Option<Value> {
        if rng.random_bool(0.05) {
            return None;
        }
        let mut m = serde_json::Map::new();
        for key in ["t", "n", "d", "x.y"] {
            if rng.random_bool(0.7) {
                m.insert(key.into(), random_value(rng));
            }
        }
        if rng.random_bool(0.5) {
            m.insert("x".into(), json!({ "y": random_scalar(rng) }));
        }
        Some(Value::Object(m))
    }

    fn random_filter(rng: &mut StdRng, depth: usize) -> Value {
        let field = ["t", "n", "d", "x.y", "missing"][rng.random_range(0..5)];
        if depth < 3 && rng.random_bool(0.3) {
            let parts: Vec<Value> = (0..rng.random_range(1..4))
                .map(|_| random_filter(rng, depth + 1))
                .collect();
            return match rng.random_range(0..3) {
                0 => json!({ "$and": parts }),
                1 => json!({ "$or": parts }),
                _ => json!({ "$not": parts[0] }),
            };
        }
        let x = loop {
            let v = random_scalar(rng);
            if !v.is_object() && !v.is_array() {
                break v;
            }
        };
        let op = [
            "$eq", "$ne", "$in", "$nin", "$gt", "$gte", "$lt", "$lte", "$exists", "plain",
        ][rng.random_range(0..10)];
        match op {
            "plain" => json!({ field: x }),
            "$in" | "$nin" => {
                let values: Vec<Value> = [x, random_scalar(rng)]
                    .into_iter()
                    .filter(|v| !v.is_object() && !v.is_array())
                    .collect();
                json!({ field: { op: values } })
            }
            "$gt" | "$gte" | "$lt" | "$lte" if !(x.is_number() || x.is_string()) => json!({ field: { op: 0 } }),
            "$exists" => json!({ field: { "$exists": rng.random_bool(0.5) } }),
            op => json!({ field: { op: x } }),
        }
    }

    #[test]
    fn random_filters_select_what_the_scan_selects() {
        let mut rng = StdRng::seed_from_u64(7);
        let schemas = [
            FieldSchema::dynamic(),
            FieldSchema::new([("x.y".to_string(), Some(FieldType::Keyword))], true),
            FieldSchema::new([("n".to_string(), None)], true),
            FieldSchema::new([("t".to_string(), Some(FieldType::Keyword))], false),
        ];
        for round in 0..200 {
            let metas: Vec<Option<Value>> = (0..rng.random_range(0..80)).map(|_| random_meta(&mut rng)).collect();
            for schema in &schemas {
                let index = FieldIndex::build(schema.clone(), metas.iter().map(Option::as_ref));
                for _ in 0..20 {
                    let f = random_filter(&mut rng, 0);
                    let filter = compile(f.clone());
                    match index.select(&filter) {
                        Some(hits) => assert_eq!(
                            hits,
                            scan(&filter, &metas),
                            "round {round} filter {f} schema {schema:?}"
                        ),
                        None => assert!(!index.covers(&filter)),
                    }
                }
            }
        }
    }

    #[test]
    fn numbers_compare_as_the_scan_does_across_ints_and_floats() {
        let metas: Vec<Option<Value>> = [
            json!(1),
            json!(1.0),
            json!(2.5),
            json!(i64::MAX),
            json!(i64::MAX - 1),
            json!(u64::MAX),
            json!(-0.0),
            json!(0),
        ]
        .into_iter()
        .map(|n| Some(json!({ "n": n })))
        .collect();
        let index = FieldIndex::build(FieldSchema::dynamic(), metas.iter().map(Option::as_ref));
        for f in [
            json!({ "n": 1 }),
            json!({ "n": 1.0 }),
            json!({ "n": 0 }),
            json!({ "n": -0.0 }),
            json!({ "n": i64::MAX }),
            json!({ "n": 9_223_372_036_854_775_808.0f64 }),
            json!({ "n": { "$gt": 1 } }),
            json!({ "n": { "$gte": 1.5 } }),
            json!({ "n": { "$lt": 9_223_372_036_854_775_808.0f64 } }),
            json!({ "n": { "$lte": i64::MAX - 1 } }),
            json!({ "n": { "$gt": u64::MAX } }),
            json!({ "n": { "$gte": -1e300 } }),
        ] {
            let filter = compile(f.clone());
            assert_eq!(index.select(&filter).unwrap(), scan(&filter, &metas), "{f}");
        }
    }

    #[test]
    fn unindexed_fields_are_left_to_the_scan() {
        let metas = [Some(json!({ "a": { "b": 1 }, "c": 2 }))];
        let index = FieldIndex::build(
            FieldSchema::new([("c".to_string(), None)], true),
            metas.iter().map(Option::as_ref),
        );
        assert!(
            index.select(&compile(json!({ "a.b": 1 }))).is_none(),
            "dotted, undeclared"
        );
        assert!(index.select(&compile(json!({ "c": 2 }))).is_none(), "opted out");
        assert!(index
            .select(&compile(json!({ "$or": [{ "a": 1 }, { "c": 2 }] })))
            .is_none());
        assert_eq!(
            index
                .select(&compile(json!({ "a": { "$exists": true } })))
                .unwrap()
                .len(),
            1
        );
        let declared = FieldIndex::build(
            FieldSchema::new([("a.b".to_string(), Some(FieldType::Number))], false),
            metas.iter().map(Option::as_ref),
        );
        assert_eq!(
            declared
                .select(&compile(json!({ "a.b": { "$gte": 1 } })))
                .unwrap()
                .len(),
            1
        );
        assert!(declared.select(&compile(json!({ "c": 2 }))).is_none(), "not dynamic");
    }

    #[test]
    fn declared_types_are_checked_naming_the_field() {
        let schema = FieldSchema::new(
            [
                ("year".to_string(), Some(FieldType::Number)),
                ("tenant".to_string(), Some(FieldType::Keyword)),
                ("at".to_string(), Some(FieldType::Date)),
            ],
            true,
        );
        assert!(schema
            .check(Some(
                &json!({ "year": 2020, "tenant": "a", "at": "2024-03-01T10:00:00Z" })
            ))
            .is_ok());
        assert!(schema
            .check(Some(&json!({ "year": [2020, null], "tenant": [true, "b"] })))
            .is_ok());
        assert!(schema.check(None).is_ok());
        let e = schema.check(Some(&json!({ "year": "2020" }))).unwrap_err();
        assert!(
            e.message.contains("meta.year is declared number but holds \"2020\""),
            "{}",
            e.message
        );
        assert!(schema
            .check(Some(&json!({ "tenant": 7 })))
            .unwrap_err()
            .message
            .contains("meta.tenant"));
        assert!(schema
            .check(Some(&json!({ "at": "March 1" })))
            .unwrap_err()
            .message
            .contains("declared date"));
        assert!(schema.check(Some(&json!({ "year": [1, "x"] }))).is_err());
    }

    #[test]
    fn a_tenant_field_costs_a_few_bytes_a_document() {
        let metas: Vec<Option<Value>> = (0..100_000)
            .map(|i| Some(json!({ "tenant": format!("t{}", i % 1000), "year": 1990 + i % 30 })))
            .collect();
        let index = FieldIndex::build(FieldSchema::dynamic(), metas.iter().map(Option::as_ref));
        let bytes = index.heap_bytes();
        assert!(bytes["tenant"] < 16 * 100_000, "{bytes:?}");
        assert!(bytes["year"] < 16 * 100_000, "{bytes:?}");
        assert_eq!(index.select(&compile(json!({ "tenant": "t7" }))).unwrap().len(), 100);
    }

    #[test]
    fn the_selection_cache_returns_what_select_returns_and_keeps_recent_filters() {
        let metas: Vec<Option<Value>> = (0..1000).map(|i| Some(json!({ "t": i % 10, "y": i % 97 }))).collect();
        let index = FieldIndex::build(FieldSchema::dynamic(), metas.iter().map(Option::as_ref));
        let cache = SelectionCache::default();
        let f = |t: i32| compile(json!({ "t": t, "y": { "$gte": 20 } }));
        let first = cache.select(&index, &f(1)).unwrap();
        assert_eq!(first.bitmap(), &index.select(&f(1)).unwrap());
        assert!(first.words().is_some(), "a tenth of the documents is broad: dense bits");
        assert!((0..1000).all(|d| first.contains(d) == first.bitmap().contains(d)));
        assert!(Arc::ptr_eq(&first, &cache.select(&index, &f(1)).unwrap()));
        for t in 2..2 + CACHED_SELECTIONS as i32 {
            cache.select(&index, &f(t));
        }
        assert!(!Arc::ptr_eq(&first, &cache.select(&index, &f(1)).unwrap()), "evicted");
        assert!(
            cache.select(&index, &compile(json!({ "a.b": 1 }))).is_none(),
            "not indexed"
        );
        let sparse = cache.select(&index, &compile(json!({ "y": 5, "t": 5 }))).unwrap();
        assert!(sparse.words().is_none() && sparse.contains(5) && !sparse.contains(6));
    }
}
