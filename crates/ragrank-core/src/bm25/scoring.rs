//! BM25 variants, with the formulas of bm25s (Kamphuis et al. 2020) so scores can be
//! checked against it. `L = 1 - b + b * dl / avgdl`.
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// idf `ln(1 + (N - df + 0.5) / (df + 0.5))`, tf `tf / (k1 L + tf)`.
    Lucene,
    /// idf `ln((N - df + 0.5) / (df + 0.5))` clamped at 0, tf as Lucene.
    Robertson,
    /// idf `ln(N / df)`, tf `tf (k1 + 1) / (tf + k1 L)`.
    Atire,
    /// idf `ln((N + 1) / (df + 0.5))`, tf `(k1 + 1)(c + delta) / (k1 + c + delta)`, `c = tf / L`.
    Bm25l,
    /// idf `ln((N + 1) / df)`, tf `(k1 + 1) tf / (k1 L + tf) + delta`.
    #[serde(rename = "bm25+")]
    Bm25plus,
}

impl Variant {
    pub fn parse(name: &str) -> Result<Self> {
        Ok(match name {
            "lucene" => Variant::Lucene,
            "robertson" => Variant::Robertson,
            "atire" => Variant::Atire,
            "bm25l" => Variant::Bm25l,
            "bm25+" | "bm25plus" => Variant::Bm25plus,
            other => {
                return Err(Error::invalid(format!(
                    "unknown BM25 variant {other:?}; expected lucene, robertson, atire, bm25l or bm25+"
                )))
            }
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Params {
    pub variant: Variant,
    pub k1: f64,
    pub b: f64,
    pub delta: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            variant: Variant::Lucene,
            k1: 1.5,
            b: 0.75,
            delta: 0.5,
        }
    }
}

impl Params {
    pub fn validate(&self) -> Result<()> {
        if !(self.k1.is_finite() && self.k1 >= 0.0) {
            return Err(Error::invalid(format!(
                "k1 must be a finite number >= 0, got {}",
                self.k1
            )));
        }
        if !(self.b.is_finite() && (0.0..=1.0).contains(&self.b)) {
            return Err(Error::invalid(format!("b must be a number in [0, 1], got {}", self.b)));
        }
        if !(self.delta.is_finite() && self.delta >= 0.0) {
            return Err(Error::invalid(format!(
                "delta must be a finite number >= 0, got {}",
                self.delta
            )));
        }
        Ok(())
    }

    pub fn idf(&self, n: f64, df: f64) -> f64 {
        match self.variant {
            Variant::Lucene => (1.0 + (n - df + 0.5) / (df + 0.5)).ln(),
            Variant::Robertson => ((n - df + 0.5) / (df + 0.5)).max(1.0).ln(),
            Variant::Atire => (n / df).ln(),
            Variant::Bm25l => ((n + 1.0) / (df + 0.5)).ln(),
            Variant::Bm25plus => ((n + 1.0) / df).ln(),
        }
    }

    /// The term-frequency component for a document whose length norm is `l`.
    pub fn tfc(&self, tf: f64, l: f64) -> f64 {
        let k1 = self.k1;
        match self.variant {
            Variant::Lucene | Variant::Robertson => tf / (k1 * l + tf),
            Variant::Atire => tf * (k1 + 1.0) / (tf + k1 * l),
            Variant::Bm25l => {
                let c = tf / l;
                (k1 + 1.0) * (c + self.delta) / (k1 + c + self.delta)
            }
            Variant::Bm25plus => (k1 + 1.0) * tf / (k1 * l + tf) + self.delta,
        }
    }

    /// Whether a document without the term still scores `idf * tfc(0)` (BM25L, BM25+).
    /// Those variants store `tfc(tf) - tfc(0)` per posting and add the constant per query.
    pub fn shifts(&self) -> bool {
        matches!(self.variant, Variant::Bm25l | Variant::Bm25plus)
    }

    /// Whether every stored impact is > 0 (idf > 0 and a term-frequency part increasing in
    /// tf). Robertson clamps idf at 0 and ATIRE's idf is 0 for a term in every document.
    pub fn positive_impacts(&self) -> bool {
        matches!(self.variant, Variant::Lucene | Variant::Bm25l | Variant::Bm25plus)
    }

    /// `L` for a document of length `dl`.
    pub fn length_norm(&self, dl: f64, avgdl: f64) -> f64 {
        if avgdl > 0.0 {
            1.0 - self.b + self.b * dl / avgdl
        } else {
            1.0
        }
    }
}
