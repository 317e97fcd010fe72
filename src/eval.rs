use std::collections::HashMap;

use napi_derive::napi;
use ragrank_core::eval::{self, Metric};

use crate::errors::{guard, OrNapi};

#[napi(object)]
pub struct NativeEvaluation {
    pub mean: HashMap<String, f64>,
    pub per_query: HashMap<String, HashMap<String, f64>>,
}

/// `run`: query id -> ranked document ids; `qrels`: query id -> document id -> grade.
#[napi]
pub fn native_evaluate(
    run: HashMap<String, Vec<String>>,
    qrels: HashMap<String, HashMap<String, f64>>,
    metrics: Vec<String>,
) -> napi::Result<NativeEvaluation> {
    guard(|| {
        let metrics: Vec<Metric> = metrics
            .iter()
            .map(|m| Metric::parse(m))
            .collect::<Result<_, _>>()
            .or_napi()?;
        let e = eval::evaluate(&run, &qrels, &metrics);
        Ok(NativeEvaluation {
            mean: e.mean.into_iter().collect(),
            per_query: e
                .per_query
                .into_iter()
                .map(|(q, v)| (q, v.into_iter().collect()))
                .collect(),
        })
    })
}
