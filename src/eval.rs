use std::collections::HashMap;

use napi_derive::napi;
use ragrank_core::eval::{self, Convention, Metric};

use crate::errors::{guard, internal, OrNapi};

#[napi(object)]
pub struct NativeEvaluation {
    pub mean: HashMap<String, f64>,
    /// Query id -> metric -> value, as JSON text: `JSON.parse` keeps any query id (even
    /// `"__proto__"`) an own property, which napi's object building does not.
    pub per_query_json: String,
}

/// `run`: query id -> ranked document ids; `qrels`: query id -> document id -> grade;
/// `convention`: `trec_eval` (default) or `competition`.
#[napi]
pub fn native_evaluate(
    run: HashMap<String, Vec<String>>,
    qrels: HashMap<String, HashMap<String, f64>>,
    metrics: Vec<String>,
    convention: Option<String>,
) -> napi::Result<NativeEvaluation> {
    guard(|| {
        let convention = match convention {
            Some(name) => Convention::parse(&name).or_napi()?,
            None => Convention::TrecEval,
        };
        let metrics: Vec<Metric> = metrics
            .iter()
            .map(|m| Metric::parse(m))
            .collect::<Result<_, _>>()
            .or_napi()?;
        let e = eval::evaluate_with(&run, &qrels, &metrics, convention);
        Ok(NativeEvaluation {
            mean: e.mean.into_iter().collect(),
            per_query_json: serde_json::to_string(&e.per_query).map_err(|e| internal(&e.to_string()))?,
        })
    })
}
