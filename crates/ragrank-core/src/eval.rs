//! Retrieval metrics with trec_eval's conventions:
//! - a document is relevant when its grade is > 0 (trec_eval's relevance level 1);
//!   negative grades count as 0;
//! - a run is read in the order given (the first copy of a repeated id counts);
//! - `map@k` divides by all relevant documents of the query (not `min(R, k)`), as
//!   trec_eval's `map_cut`; `map` has no cut-off;
//! - `ndcg@k` uses gain = grade and discount `log2(rank + 1)`, with the ideal ranking of
//!   all judged documents (trec_eval's `ndcg_cut`);
//! - `p@k` divides by k even when fewer documents were retrieved;
//! - `mrr@k` is the reciprocal rank of the first relevant document within k;
//! - queries evaluated: those of `qrels` with at least one relevant document; a query
//!   missing from the run scores 0 on every metric (trec_eval `-c`).
//!
//! [`Convention::Competition`] computes them as the Korean science QA competition
//! (upstage) scored its runs, where some queries (chit-chat) must retrieve nothing:
//! - `map@k` divides by the relevant documents found in the top k (0 when none is);
//! - every query of `qrels` counts: one with no relevant document scores 1 on every
//!   metric when the run retrieved nothing for it, and 0 otherwise.
use std::collections::{BTreeMap, HashMap};

use rustc_hash::FxHashSet;

use crate::error::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricKind {
    Map,
    Mrr,
    Ndcg,
    Recall,
    Precision,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metric {
    pub kind: MetricKind,
    pub k: Option<usize>,
    /// The name as given, lowercased: the key of the results.
    pub name: String,
}

impl Metric {
    pub fn parse(spec: &str) -> Result<Metric> {
        let name = spec.trim().to_ascii_lowercase();
        let (base, k) = match name.split_once('@') {
            Some((b, k)) => {
                let k: usize = k.parse().ok().filter(|&k| k > 0).ok_or_else(|| {
                    Error::invalid(format!("metric {spec:?}: the cut-off must be a positive integer"))
                })?;
                (b, Some(k))
            }
            None => (name.as_str(), None),
        };
        let kind = match base {
            "map" | "ap" => MetricKind::Map,
            "mrr" | "rr" | "recip_rank" => MetricKind::Mrr,
            "ndcg" => MetricKind::Ndcg,
            "recall" | "r" => MetricKind::Recall,
            "p" | "precision" => MetricKind::Precision,
            _ => {
                return Err(Error::invalid(format!(
                    "unknown metric {spec:?}; expected map, mrr, ndcg, recall or p, optionally with @k"
                )))
            }
        };
        if k.is_none() && matches!(kind, MetricKind::Precision) {
            return Err(Error::invalid(format!("metric {spec:?} needs a cut-off, e.g. p@10")));
        }
        Ok(Metric { kind, k, name })
    }
}

/// How the per-query values are computed and which queries are averaged (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Convention {
    #[default]
    TrecEval,
    Competition,
}

impl Convention {
    pub fn parse(name: &str) -> Result<Convention> {
        match name {
            "trec_eval" => Ok(Convention::TrecEval),
            "competition" => Ok(Convention::Competition),
            _ => Err(Error::invalid(format!(
                "options.convention must be 'trec_eval' or 'competition', got {name:?}"
            ))),
        }
    }
}

pub type Run = HashMap<String, Vec<String>>;
pub type Qrels = HashMap<String, HashMap<String, f64>>;

#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// Metric name -> mean over evaluated queries.
    pub mean: BTreeMap<String, f64>,
    /// Query id -> metric name -> value.
    pub per_query: BTreeMap<String, BTreeMap<String, f64>>,
}

pub fn evaluate(run: &Run, qrels: &Qrels, metrics: &[Metric]) -> Evaluation {
    evaluate_with(run, qrels, metrics, Convention::TrecEval)
}

pub fn evaluate_with(run: &Run, qrels: &Qrels, metrics: &[Metric], convention: Convention) -> Evaluation {
    let mut per_query = BTreeMap::new();
    let empty = Vec::new();
    let competition = convention == Convention::Competition;
    for (qid, judged) in qrels {
        let relevant = judged.values().filter(|&&g| g > 0.0).count();
        if relevant == 0 && !competition {
            continue;
        }
        let ranked = dedupe(run.get(qid).unwrap_or(&empty));
        let values = metrics
            .iter()
            .map(|m| {
                let v = if relevant == 0 {
                    // Nothing to find: right only when nothing was retrieved.
                    if ranked.is_empty() {
                        1.0
                    } else {
                        0.0
                    }
                } else {
                    score(m, &ranked, judged, relevant, convention)
                };
                (m.name.clone(), v)
            })
            .collect();
        per_query.insert(qid.clone(), values);
    }
    let mut mean = BTreeMap::new();
    for m in metrics {
        let sum: f64 = per_query.values().map(|v: &BTreeMap<String, f64>| v[&m.name]).sum();
        mean.insert(
            m.name.clone(),
            if per_query.is_empty() {
                0.0
            } else {
                sum / per_query.len() as f64
            },
        );
    }
    Evaluation { mean, per_query }
}

fn dedupe(ids: &[String]) -> Vec<&str> {
    let mut seen = FxHashSet::default();
    ids.iter().map(String::as_str).filter(|id| seen.insert(*id)).collect()
}

fn grade(judged: &HashMap<String, f64>, id: &str) -> f64 {
    judged.get(id).copied().unwrap_or(0.0).max(0.0)
}

fn score(m: &Metric, ranked: &[&str], judged: &HashMap<String, f64>, relevant: usize, convention: Convention) -> f64 {
    let cut = m.k.unwrap_or(usize::MAX).min(ranked.len());
    let top = &ranked[..cut];
    let is_rel = |id: &&str| grade(judged, id) > 0.0;
    match m.kind {
        MetricKind::Map => {
            let mut hits = 0usize;
            let mut sum = 0.0;
            for (i, id) in top.iter().enumerate() {
                if is_rel(id) {
                    hits += 1;
                    sum += hits as f64 / (i + 1) as f64;
                }
            }
            match convention {
                Convention::TrecEval => sum / relevant as f64,
                Convention::Competition if hits == 0 => 0.0,
                Convention::Competition => sum / hits as f64,
            }
        }
        MetricKind::Mrr => top.iter().position(is_rel).map_or(0.0, |i| 1.0 / (i + 1) as f64),
        MetricKind::Recall => top.iter().filter(|id| is_rel(id)).count() as f64 / relevant as f64,
        MetricKind::Precision => top.iter().filter(|id| is_rel(id)).count() as f64 / m.k.expect("validated") as f64,
        MetricKind::Ndcg => {
            let dcg: f64 = top
                .iter()
                .enumerate()
                .map(|(i, id)| grade(judged, id) / ((i + 2) as f64).log2())
                .sum();
            let mut ideal: Vec<f64> = judged.values().map(|&g| g.max(0.0)).filter(|&g| g > 0.0).collect();
            ideal.sort_by(|a, b| b.total_cmp(a));
            let idcg: f64 = ideal
                .iter()
                .take(m.k.unwrap_or(usize::MAX))
                .enumerate()
                .map(|(i, g)| g / ((i + 2) as f64).log2())
                .sum();
            if idcg > 0.0 {
                dcg / idcg
            } else {
                0.0
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(pairs: &[(&str, f64)]) -> HashMap<String, f64> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn hand_computed_values() {
        let run: Run = [("q".to_string(), ["a", "x", "b", "y"].map(String::from).to_vec())].into();
        let qrels: Qrels = [("q".to_string(), q(&[("a", 2.0), ("b", 1.0), ("c", 1.0), ("x", -1.0)]))].into();
        let metrics: Vec<Metric> = ["map@3", "mrr@10", "recall@2", "p@2", "ndcg@3"]
            .iter()
            .map(|s| Metric::parse(s).unwrap())
            .collect();
        let e = evaluate(&run, &qrels, &metrics);
        let v = &e.per_query["q"];
        assert!((v["map@3"] - (1.0 + 2.0 / 3.0) / 3.0).abs() < 1e-12);
        assert_eq!(v["mrr@10"], 1.0);
        assert!((v["recall@2"] - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(v["p@2"], 0.5);
        let dcg = 2.0 + 1.0 / 4f64.log2();
        let idcg = 2.0 + 1.0 / 3f64.log2() + 1.0 / 4f64.log2();
        assert!((v["ndcg@3"] - dcg / idcg).abs() < 1e-12);
    }

    #[test]
    fn missing_run_scores_zero_and_unjudged_queries_are_skipped() {
        let run: Run = HashMap::new();
        let qrels: Qrels = [
            ("q1".to_string(), q(&[("a", 1.0)])),
            ("q2".to_string(), q(&[("a", 0.0)])),
        ]
        .into();
        let e = evaluate(&run, &qrels, &[Metric::parse("ndcg@10").unwrap()]);
        assert_eq!(e.per_query.len(), 1);
        assert_eq!(e.mean["ndcg@10"], 0.0);
    }

    #[test]
    fn competition_convention_by_hand() {
        let run: Run = [
            ("q1", &["a", "x", "b"][..]),
            ("q2", &["x", "y", "c"][..]),
            ("q3", &[][..]),
            ("q4", &["z"][..]),
        ]
        .into_iter()
        .map(|(q, ids)| (q.to_string(), ids.iter().map(|s| s.to_string()).collect()))
        .collect();
        let qrels: Qrels = [
            ("q1".to_string(), q(&[("a", 1.0), ("b", 1.0), ("c", 1.0)])),
            ("q2".to_string(), q(&[("c", 1.0)])),
            ("q3".to_string(), HashMap::new()),
            ("q4".to_string(), q(&[("z", 0.0)])),
        ]
        .into();
        let metrics = [Metric::parse("map@3").unwrap(), Metric::parse("mrr@3").unwrap()];
        let c = evaluate_with(&run, &qrels, &metrics, Convention::Competition);
        // q1: (1 + 2/3) / 2 hits; q2: (1/3) / 1 hit; q3: nothing to find, nothing retrieved: 1; q4: retrieved: 0.
        let want = [(1.0 + 2.0 / 3.0) / 2.0, 1.0 / 3.0, 1.0, 0.0];
        for (qid, w) in ["q1", "q2", "q3", "q4"].iter().zip(want) {
            assert!((c.per_query[*qid]["map@3"] - w).abs() < 1e-12, "{qid}");
        }
        assert!((c.mean["map@3"] - want.iter().sum::<f64>() / 4.0).abs() < 1e-12);
        assert!((c.mean["mrr@3"] - (1.0 + 1.0 / 3.0 + 1.0 + 0.0) / 4.0).abs() < 1e-12);
        let t = evaluate(&run, &qrels, &metrics);
        assert_eq!(
            t.per_query.len(),
            2,
            "trec_eval leaves out queries without a relevant document"
        );
        assert!((t.per_query["q1"]["map@3"] - (1.0 + 2.0 / 3.0) / 3.0).abs() < 1e-12);
        assert!(Convention::parse("trec").is_err());
        assert_eq!(Convention::parse("competition").unwrap(), Convention::Competition);
    }

    #[test]
    fn bad_metric_names() {
        assert!(Metric::parse("foo@3").is_err());
        assert!(Metric::parse("map@0").is_err());
        assert!(Metric::parse("p").is_err());
        assert_eq!(Metric::parse(" NDCG@10 ").unwrap().name, "ndcg@10");
    }
}
