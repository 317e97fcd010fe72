//! The metadata filter language shared by the BM25 and vector indexes (see docs/FILTERS.md).
//!
//! A filter is a JSON object compiled once per call (`MetaFilter::compile`), so a bad one
//! fails before any work, then evaluated per document against its metadata object:
//! - `{ field: value }`: equality; `{ field: [a, b] }`: any of (the original BM25 form);
//! - `{ field: { $eq, $ne, $in, $nin, $gt, $gte, $lt, $lte, $exists } }`: operators, all
//!   of which must hold;
//! - `{ $and: [f, ...] }`, `{ $or: [f, ...] }`, `{ $not: f }`; keys of one object are ANDed.
//!
//! Semantics: numbers compare by value (1 equals 1.0), strings case-sensitively by code
//! point; ranges compare a number with a number or a string with a string, never across
//! types. A field that holds an array matches when any element does (so `$ne`/`$nin`
//! require that no element is equal). A missing field matches only `$ne`, `$nin` and
//! `$exists: false`; `null` is a value (`{ f: null }` matches an explicit null only).
//! `a.b` reads nested objects, unless the object has the key `"a.b"` itself.
use std::cmp::Ordering;

use serde_json::{Map, Value};

use crate::{Error, Result};

/// Deepest nesting of `$and`/`$or`/`$not` accepted (far beyond any real filter; it keeps
/// evaluation off the edge of the stack).
const MAX_DEPTH: usize = 32;

#[derive(Debug, Clone, PartialEq)]
pub enum MetaFilter {
    All(Vec<MetaFilter>),
    Any(Vec<MetaFilter>),
    Not(Box<MetaFilter>),
    Field { path: String, cond: Cond },
}

#[derive(Debug, Clone, PartialEq)]
pub enum Cond {
    Eq(Value),
    Ne(Value),
    In(Vec<Value>),
    Nin(Vec<Value>),
    Range(Ordering, bool, Value),
    Exists(bool),
}

fn invalid(at: &str, why: impl std::fmt::Display) -> Error {
    Error::invalid(format!("{at} {why}"))
}

impl MetaFilter {
    /// Compiles a filter object; `at` names it in errors (e.g. "options.filter.meta").
    pub fn compile(v: &Value, at: &str) -> Result<MetaFilter> {
        compile_object(v, at, 0)
    }

    /// Whether a document's metadata (an object, or none) passes.
    pub fn matches(&self, meta: Option<&Value>) -> bool {
        match self {
            MetaFilter::All(fs) => fs.iter().all(|f| f.matches(meta)),
            MetaFilter::Any(fs) => fs.iter().any(|f| f.matches(meta)),
            MetaFilter::Not(f) => !f.matches(meta),
            MetaFilter::Field { path, cond } => cond.holds(lookup(meta, path)),
        }
    }
}

fn compile_object(v: &Value, at: &str, depth: usize) -> Result<MetaFilter> {
    if depth > MAX_DEPTH {
        return Err(invalid(at, format!("nests $and/$or/$not deeper than {MAX_DEPTH}")));
    }
    let Value::Object(map) = v else {
        return Err(invalid(at, "must be an object such as { tenant: 'a' }"));
    };
    let mut all = Vec::with_capacity(map.len());
    for (key, value) in map {
        let here = format!("{at}.{key}");
        all.push(match key.as_str() {
            "$and" | "$or" => {
                let parts = match value {
                    Value::Array(a) if !a.is_empty() => a,
                    _ => return Err(invalid(&here, "must be a non-empty array of filter objects")),
                };
                let fs = parts
                    .iter()
                    .enumerate()
                    .map(|(i, p)| compile_object(p, &format!("{here}[{i}]"), depth + 1))
                    .collect::<Result<Vec<_>>>()?;
                if key == "$and" {
                    MetaFilter::All(fs)
                } else {
                    MetaFilter::Any(fs)
                }
            }
            "$not" => MetaFilter::Not(Box::new(compile_object(value, &here, depth + 1)?)),
            k if k.starts_with('$') => {
                return Err(invalid(
                    &here,
                    "is not a filter operator (use $and, $or, $not, or a field name)",
                ))
            }
            field => compile_field(field, value, &here)?,
        });
    }
    Ok(if all.len() == 1 {
        all.pop().expect("one")
    } else {
        MetaFilter::All(all)
    })
}

fn compile_field(field: &str, v: &Value, at: &str) -> Result<MetaFilter> {
    let conds = match v {
        Value::Array(a) => vec![Cond::In(scalars(a, at)?)],
        Value::Object(ops) => compile_ops(ops, at)?,
        v => vec![Cond::Eq(v.clone())],
    };
    let mut fs: Vec<MetaFilter> = conds
        .into_iter()
        .map(|cond| MetaFilter::Field {
            path: field.to_owned(),
            cond,
        })
        .collect();
    Ok(if fs.len() == 1 {
        fs.pop().expect("one")
    } else {
        MetaFilter::All(fs)
    })
}

fn compile_ops(ops: &Map<String, Value>, at: &str) -> Result<Vec<Cond>> {
    if ops.is_empty() {
        return Err(invalid(
            at,
            "is an empty object; give an operator such as { $eq: value }",
        ));
    }
    ops.iter()
        .map(|(op, v)| {
            let here = format!("{at}.{op}");
            Ok(match op.as_str() {
                "$eq" => Cond::Eq(scalar(v, &here)?),
                "$ne" => Cond::Ne(scalar(v, &here)?),
                "$in" | "$nin" => {
                    let Value::Array(a) = v else {
                        return Err(invalid(&here, "must be an array of values"));
                    };
                    let values = scalars(a, &here)?;
                    if op == "$in" {
                        Cond::In(values)
                    } else {
                        Cond::Nin(values)
                    }
                }
                "$gt" | "$gte" | "$lt" | "$lte" => {
                    if !(v.is_number() || v.is_string()) {
                        return Err(invalid(&here, "must be a number or a string"));
                    }
                    let (ord, or_equal) = match op.as_str() {
                        "$gt" => (Ordering::Greater, false),
                        "$gte" => (Ordering::Greater, true),
                        "$lt" => (Ordering::Less, false),
                        _ => (Ordering::Less, true),
                    };
                    Cond::Range(ord, or_equal, v.clone())
                }
                "$exists" => match v {
                    Value::Bool(b) => Cond::Exists(*b),
                    _ => return Err(invalid(&here, "must be true or false")),
                },
                _ if op.starts_with('$') => {
                    return Err(invalid(
                        &here,
                        "is not a field operator (one of $eq, $ne, $in, $nin, $gt, $gte, $lt, $lte, $exists)",
                    ))
                }
                _ => {
                    return Err(invalid(
                        at,
                        "mixes a field name with operators; an object value must hold operators only",
                    ))
                }
            })
        })
        .collect()
}

/// Values compared by equality: scalars (null, booleans, numbers, strings) only.
fn scalar(v: &Value, at: &str) -> Result<Value> {
    match v {
        Value::Array(_) | Value::Object(_) => Err(invalid(at, "must be a string, number, boolean or null")),
        v => Ok(v.clone()),
    }
}

fn scalars(a: &[Value], at: &str) -> Result<Vec<Value>> {
    a.iter()
        .enumerate()
        .map(|(i, v)| scalar(v, &format!("{at}[{i}]")))
        .collect()
}

/// The value at `path`: the key itself, else dot-separated nested keys.
pub(crate) fn lookup<'a>(meta: Option<&'a Value>, path: &str) -> Option<&'a Value> {
    let obj = meta?.as_object()?;
    if let Some(v) = obj.get(path) {
        return Some(v);
    }
    if !path.contains('.') {
        return None;
    }
    let mut cur = meta?;
    for key in path.split('.') {
        cur = cur.as_object()?.get(key)?;
    }
    Some(cur)
}

impl Cond {
    fn holds(&self, v: Option<&Value>) -> bool {
        match self {
            Cond::Exists(want) => v.is_some() == *want,
            Cond::Ne(x) => !v.is_some_and(|v| any(v, |e| equal(e, x))),
            Cond::Nin(xs) => !v.is_some_and(|v| any(v, |e| xs.iter().any(|x| equal(e, x)))),
            Cond::Eq(x) => v.is_some_and(|v| any(v, |e| equal(e, x))),
            Cond::In(xs) => v.is_some_and(|v| any(v, |e| xs.iter().any(|x| equal(e, x)))),
            Cond::Range(ord, or_equal, x) => v.is_some_and(|v| {
                any(v, |e| {
                    compare(e, x).is_some_and(|o| o == *ord || (*or_equal && o == Ordering::Equal))
                })
            }),
        }
    }
}

/// `test` on a value, or on any element of an array value.
fn any(v: &Value, test: impl Fn(&Value) -> bool) -> bool {
    match v {
        Value::Array(a) => a.iter().any(test),
        v => test(v),
    }
}

/// Scalar equality with numbers by value (1 == 1.0).
fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => i == j,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(_) | Value::Object(_), _) => false,
        _ => a == b,
    }
}

/// Order of two numbers or two strings; none across types (or for NaN, which JSON lacks).
fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => Some(i.cmp(&j)),
            _ => x.as_f64()?.partial_cmp(&y.as_f64()?),
        },
        (Value::String(x), Value::String(y)) => Some(x.as_str().cmp(y.as_str())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::ErrorKind;

    fn passes(filter: Value, meta: Value) -> bool {
        MetaFilter::compile(&filter, "filter").unwrap().matches(Some(&meta))
    }

    fn error(filter: Value) -> String {
        let e = MetaFilter::compile(&filter, "filter").unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidArg);
        e.message
    }

    #[test]
    fn equality_numbers_by_value_strings_case_sensitive() {
        assert!(passes(json!({ "n": 1 }), json!({ "n": 1.0 })));
        assert!(passes(json!({ "n": { "$eq": 2.0 } }), json!({ "n": 2 })));
        assert!(!passes(json!({ "n": 1 }), json!({ "n": "1" })));
        assert!(passes(json!({ "t": "a" }), json!({ "t": "a" })));
        assert!(!passes(json!({ "t": "a" }), json!({ "t": "A" })));
        assert!(passes(json!({ "b": true }), json!({ "b": true })));
        assert!(passes(json!({ "z": null }), json!({ "z": null })));
        assert!(!passes(json!({ "z": null }), json!({})));
        assert!(passes(json!({ "big": u64::MAX }), json!({ "big": u64::MAX })));
        assert!(!passes(json!({ "big": i64::MAX }), json!({ "big": i64::MAX - 1 })));
    }

    #[test]
    fn an_array_value_is_any_of_and_an_array_field_matches_any_element() {
        assert!(passes(json!({ "k": ["x", "pet"] }), json!({ "k": "pet" })));
        assert!(!passes(json!({ "k": ["x", "y"] }), json!({ "k": "pet" })));
        assert!(passes(json!({ "tags": "b" }), json!({ "tags": ["a", "b"] })));
        assert!(passes(
            json!({ "tags": { "$in": ["c", "a"] } }),
            json!({ "tags": ["a", "b"] })
        ));
        assert!(!passes(
            json!({ "tags": { "$ne": "a" } }),
            json!({ "tags": ["a", "b"] })
        ));
        assert!(passes(json!({ "ys": { "$gt": 5 } }), json!({ "ys": [1, 9] })));
    }

    #[test]
    fn ne_and_nin_match_a_missing_field_other_operators_do_not() {
        let empty = json!({});
        assert!(passes(json!({ "f": { "$ne": 1 } }), empty.clone()));
        assert!(passes(json!({ "f": { "$nin": [1] } }), empty.clone()));
        assert!(passes(json!({ "f": { "$exists": false } }), empty.clone()));
        for f in [
            json!({ "f": 1 }),
            json!({ "f": { "$in": [1] } }),
            json!({ "f": { "$gte": 0 } }),
            json!({ "f": { "$exists": true } }),
        ] {
            assert!(!passes(f.clone(), empty.clone()), "{f}");
            assert!(!MetaFilter::compile(&f, "f").unwrap().matches(None), "{f} without meta");
        }
        assert!(MetaFilter::compile(&json!({ "f": { "$ne": 1 } }), "f")
            .unwrap()
            .matches(None));
    }

    #[test]
    fn ne_nin_exists() {
        assert!(passes(json!({ "f": { "$ne": 1 } }), json!({ "f": 2 })));
        assert!(!passes(json!({ "f": { "$ne": 1 } }), json!({ "f": 1.0 })));
        assert!(passes(json!({ "f": { "$nin": ["a", "b"] } }), json!({ "f": "c" })));
        assert!(!passes(json!({ "f": { "$nin": ["a", "b"] } }), json!({ "f": "b" })));
        assert!(passes(json!({ "f": { "$exists": true } }), json!({ "f": null })));
        assert!(!passes(json!({ "f": { "$exists": false } }), json!({ "f": 0 })));
    }

    #[test]
    fn ranges_on_numbers_and_strings_never_across_types() {
        let year = |y: Value| json!({ "year": y });
        assert!(passes(json!({ "year": { "$gte": 2020 } }), year(json!(2020))));
        assert!(!passes(json!({ "year": { "$gt": 2020 } }), year(json!(2020))));
        assert!(passes(json!({ "year": { "$gt": 2020 } }), year(json!(2020.5))));
        assert!(passes(json!({ "year": { "$lt": 2020 } }), year(json!(-3))));
        assert!(passes(json!({ "year": { "$lte": 2020 } }), year(json!(2020.0))));
        assert!(!passes(json!({ "year": { "$lt": 2020 } }), year(json!("1999"))));
        assert!(passes(
            json!({ "year": { "$gte": 2000, "$lt": 2010 } }),
            year(json!(2005))
        ));
        assert!(!passes(
            json!({ "year": { "$gte": 2000, "$lt": 2010 } }),
            year(json!(2010))
        ));
        assert!(passes(
            json!({ "d": { "$gte": "2024-01" } }),
            json!({ "d": "2024-03-01" })
        ));
        assert!(!passes(json!({ "d": { "$gte": "b" } }), json!({ "d": "B" })));
        assert!(!passes(json!({ "d": { "$gte": 0 } }), json!({ "d": true })));
    }

    #[test]
    fn and_or_not_and_implicit_and() {
        let m = json!({ "tenant": "a", "year": 2021 });
        assert!(passes(json!({ "tenant": "a", "year": 2021 }), m.clone()));
        assert!(!passes(json!({ "tenant": "a", "year": 2022 }), m.clone()));
        assert!(passes(
            json!({ "$and": [{ "tenant": "a" }, { "year": { "$gt": 2000 } }] }),
            m.clone()
        ));
        assert!(!passes(
            json!({ "$and": [{ "tenant": "a" }, { "year": { "$gt": 2030 } }] }),
            m.clone()
        ));
        assert!(passes(
            json!({ "$or": [{ "tenant": "b" }, { "year": 2021 }] }),
            m.clone()
        ));
        assert!(!passes(json!({ "$or": [{ "tenant": "b" }, { "year": 1 }] }), m.clone()));
        assert!(passes(json!({ "$not": { "tenant": "b" } }), m.clone()));
        assert!(!passes(json!({ "$not": { "tenant": "a" } }), m.clone()));
        assert!(passes(
            json!({ "tenant": "a", "$or": [{ "year": 1 }, { "year": 2021 }] }),
            m.clone()
        ));
        assert!(passes(json!({}), m));
    }

    #[test]
    fn dotted_paths_read_nested_objects_unless_the_key_exists() {
        let m = json!({ "a": { "b": { "c": 3 } }, "x.y": 1, "x": { "y": 2 } });
        assert!(passes(json!({ "a.b.c": 3 }), m.clone()));
        assert!(passes(json!({ "a.b": { "$exists": true } }), m.clone()));
        assert!(!passes(json!({ "a.q": { "$exists": true } }), m.clone()));
        assert!(passes(json!({ "x.y": 1 }), m.clone()));
        assert!(!passes(json!({ "a.b.c.d": 3 }), m));
    }

    #[test]
    fn bad_filters_are_errors_that_name_the_place() {
        assert!(error(json!({ "f": { "$gt": {} } })).contains("filter.f.$gt"));
        assert!(error(json!({ "f": { "$gt": true } })).contains("number or a string"));
        assert!(error(json!({ "f": { "$in": 1 } })).contains("filter.f.$in must be an array"));
        assert!(error(json!({ "f": { "$nin": [[1]] } })).contains("filter.f.$nin[0]"));
        assert!(error(json!({ "f": { "$regex": "a" } })).contains("filter.f.$regex is not a field operator"));
        assert!(error(json!({ "f": { "$exists": 1 } })).contains("true or false"));
        assert!(error(json!({ "f": { "$eq": { "a": 1 } } })).contains("filter.f.$eq"));
        assert!(error(json!({ "f": { "a": 1 } })).contains("mixes a field name"));
        assert!(error(json!({ "f": {} })).contains("empty object"));
        assert!(error(json!({ "$nor": [] })).contains("filter.$nor is not a filter operator"));
        assert!(error(json!({ "$or": [] })).contains("non-empty array"));
        assert!(error(json!({ "$and": [1] })).contains("filter.$and[0] must be an object"));
        assert!(error(json!([1])).contains("filter must be an object"));
        assert!(error(json!({ "f": [{ "a": 1 }] })).contains("filter.f[0]"));
        let mut deep = json!({ "f": 1 });
        for _ in 0..40 {
            deep = json!({ "$not": deep });
        }
        assert!(error(deep).contains("deeper than"));
    }
}
