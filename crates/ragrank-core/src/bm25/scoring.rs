//! BM25 variants, with the formulas of bm25s (Kamphuis et al. 2020) so scores can be
//! checked against it. `L = 1 - b + b * dl / avgdl`.
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", try_from = "String")]
pub enum Variant {
    /// idf `ln(1 + (N - df + 0.5) / (df + 0.5))`, tf `tf / (k1 L + tf)`.
    #[default]
    Lucene,
    /// idf `ln((N - df + 0.5) / (df + 0.5))` clamped at 0, tf as Lucene.
    Robertson,
    /// idf `ln(N / df)`, tf `tf (k1 + 1) / (tf + k1 L)`.
    Atire,
    /// idf `ln((N + 1) / (df + 0.5))`, tf `(k1 + 1)(c + delta) / (k1 + c + delta)`, `c = tf / L`;
    /// a query term absent from a document still adds `idf * tfc(0)` (bm25s, Haystack <= 2.x).
    Bm25l,
    /// BM25L as Lv & Zhai (2011) and Haystack 3.x: the same idf and tf, but `delta` lifts only
    /// the terms a document contains, so an absent term adds 0.
    #[serde(rename = "bm25l-lvzhai")]
    Bm25lLvZhai,
    /// idf `ln((N + 1) / df)`, tf `(k1 + 1) tf / (k1 L + tf) + delta`.
    #[serde(rename = "bm25+")]
    Bm25plus,
}

/// The `variant` option's names (`bm25plus` is an alias of `bm25+`).
const VARIANTS: [(&str, Variant); 7] = [
    ("lucene", Variant::Lucene),
    ("robertson", Variant::Robertson),
    ("atire", Variant::Atire),
    ("bm25l", Variant::Bm25l),
    ("bm25l-lvzhai", Variant::Bm25lLvZhai),
    ("bm25+", Variant::Bm25plus),
    ("bm25plus", Variant::Bm25plus),
];

crate::try_from_name!(Variant, "options.variant", VARIANTS);

/// The scoring parameters; a field left out of the serialized form takes its default.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Params {
    pub variant: Variant,
    #[serde(deserialize_with = "number")]
    pub k1: f64,
    #[serde(deserialize_with = "number")]
    pub b: f64,
    #[serde(deserialize_with = "number")]
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

/// A number, or `"NaN"`, `"Infinity"`, `"-Infinity"`: JSON has no non-finite numbers, and
/// callers pass them spelled out so `validate` can reject them with the option's name.
fn number<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<f64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Number(f64),
        Spelled(String),
    }
    match Raw::deserialize(d)? {
        Raw::Number(n) => Ok(n),
        Raw::Spelled(s) => s
            .parse::<f64>()
            .map_err(|_| serde::de::Error::custom(format!("expected a number, got {s:?}"))),
    }
}

impl Params {
    pub fn validate(&self) -> Result<()> {
        if !(self.k1.is_finite() && self.k1 >= 0.0) {
            return Err(Error::invalid(format!(
                "options.k1 must be a finite number >= 0, got {}",
                self.k1
            )));
        }
        if !(self.b.is_finite() && (0.0..=1.0).contains(&self.b)) {
            return Err(Error::invalid(format!(
                "options.b must be a number in [0, 1], got {}",
                self.b
            )));
        }
        if !(self.delta.is_finite() && self.delta >= 0.0) {
            return Err(Error::invalid(format!(
                "options.delta must be a finite number >= 0, got {}",
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
            Variant::Bm25l | Variant::Bm25lLvZhai => ((n + 1.0) / (df + 0.5)).ln(),
            Variant::Bm25plus => ((n + 1.0) / df).ln(),
        }
    }

    /// The term-frequency component for a document whose length norm is `l`.
    pub fn tfc(&self, tf: f64, l: f64) -> f64 {
        let k1 = self.k1;
        match self.variant {
            Variant::Lucene | Variant::Robertson => tf / (k1 * l + tf),
            Variant::Atire => tf * (k1 + 1.0) / (tf + k1 * l),
            Variant::Bm25l | Variant::Bm25lLvZhai => {
                let c = tf / l;
                (k1 + 1.0) * (c + self.delta) / (k1 + c + self.delta)
            }
            Variant::Bm25plus => (k1 + 1.0) * tf / (k1 * l + tf) + self.delta,
        }
    }

    /// Whether a document without the term still scores `idf * tfc(0)` (BM25L, BM25+).
    /// Postings then score `tfc(tf) - tfc(0)` and the constant is added per query.
    pub fn shifts(&self) -> bool {
        matches!(self.variant, Variant::Bm25l | Variant::Bm25plus)
    }

    /// Whether every posting's contribution is > 0 (idf > 0 and a term-frequency part increasing in
    /// tf). Robertson clamps idf at 0 and ATIRE's idf is 0 for a term in every document.
    pub fn positive_impacts(&self) -> bool {
        matches!(
            self.variant,
            Variant::Lucene | Variant::Bm25l | Variant::Bm25lLvZhai | Variant::Bm25plus
        )
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

/// The term-frequency part of a posting, `tfc(tf, L) - tfc(0)`, at query time. Its
/// constants are fixed per snapshot (they hold the average length), so a posting costs
/// one small formula with no `match`; search code is generic over it.
pub trait TfPart: Copy + Send + Sync {
    fn eval(&self, tf: f32, dl: f32) -> f32;
}

/// `scale * tf / (tf + a + b * dl)`: Lucene and Robertson (scale 1), ATIRE and BM25+
/// (scale `k1 + 1`; BM25+'s `delta` is its `tfc(0)`), with `a = k1 (1 - b)`, `b = k1 b / avgdl`.
#[derive(Debug, Clone, Copy)]
pub struct Saturation {
    scale: f32,
    a: f32,
    b: f32,
}

impl TfPart for Saturation {
    #[inline(always)]
    fn eval(&self, tf: f32, dl: f32) -> f32 {
        self.scale * tf / (tf + self.a + self.b * dl)
    }
}

/// BM25L minus its `tfc(0)`: `(k1+1)(c+d)/(k1+c+d) - (k1+1)d/(k1+d)` simplifies to
/// `scale * c / (kd + c)` with `c = tf / (p + q dl)`, `scale = (k1+1) k1 / (k1+d)`,
/// `kd = k1 + d`: no cancellation of two close numbers in f32. Lv & Zhai's BM25L adds no
/// constant for absent terms, so its postings carry the whole `tfc`: `offset` is `tfc(0)`
/// there and 0 for the shifted BM25L.
#[derive(Debug, Clone, Copy)]
pub struct LengthScaled {
    offset: f32,
    scale: f32,
    kd: f32,
    p: f32,
    q: f32,
}

impl TfPart for LengthScaled {
    #[inline(always)]
    fn eval(&self, tf: f32, dl: f32) -> f32 {
        let c = tf / (self.p + self.q * dl);
        self.offset + self.scale * c / (self.kd + c)
    }
}

/// A variant's `TfPart` for one average length.
#[derive(Debug, Clone, Copy)]
pub enum TfForm {
    Saturation(Saturation),
    LengthScaled(LengthScaled),
}

impl Params {
    /// `tfc(0)`: what a document without the term scores per unit of idf (0 but for
    /// BM25L and BM25+).
    pub fn tfc0(&self) -> f64 {
        let (k1, d) = (self.k1, self.delta);
        match self.variant {
            Variant::Lucene | Variant::Robertson | Variant::Atire | Variant::Bm25lLvZhai => 0.0,
            Variant::Bm25l if k1 + d > 0.0 => (k1 + 1.0) * d / (k1 + d),
            Variant::Bm25l => 0.0,
            Variant::Bm25plus => d,
        }
    }

    /// The query-time form of `tfc(tf, L) - tfc0()` for this average length.
    pub fn tf_form(&self, avgdl: f64) -> TfForm {
        let k1 = self.k1;
        // L = p + q * dl; an empty collection (avgdl 0) has L = 1.
        let (p, q) = if avgdl > 0.0 {
            (1.0 - self.b, self.b / avgdl)
        } else {
            (1.0, 0.0)
        };
        let saturation = |scale: f64| {
            TfForm::Saturation(Saturation {
                scale: scale as f32,
                a: (k1 * p) as f32,
                b: (k1 * q) as f32,
            })
        };
        match self.variant {
            Variant::Lucene | Variant::Robertson => saturation(1.0),
            Variant::Atire | Variant::Bm25plus => saturation(k1 + 1.0),
            Variant::Bm25l | Variant::Bm25lLvZhai => {
                let kd = k1 + self.delta;
                // k1 = delta = 0: tfc is 1 for any tf > 0 (c / c).
                let scale = if kd > 0.0 { (k1 + 1.0) * k1 / kd } else { 1.0 };
                // The shifted BM25L's tfc(0), which Lv & Zhai's keeps in every posting.
                let tfc0 = if kd > 0.0 { (k1 + 1.0) * self.delta / kd } else { 0.0 };
                let offset = if self.variant == Variant::Bm25lLvZhai {
                    tfc0
                } else {
                    0.0
                };
                TfForm::LengthScaled(LengthScaled {
                    offset: offset as f32,
                    scale: scale as f32,
                    kd: kd as f32,
                    p: p as f32,
                    q: q as f32,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from_json(json: &str) -> std::result::Result<Params, serde_json::Error> {
        serde_json::from_value(serde_json::from_str(json).unwrap())
    }

    #[test]
    fn absent_fields_take_the_defaults() {
        assert_eq!(from_json("{}").unwrap(), Params::default());
        let p = from_json(r#"{"k1":1.2,"variant":"bm25+"}"#).unwrap();
        assert_eq!((p.variant, p.k1, p.b, p.delta), (Variant::Bm25plus, 1.2, 0.75, 0.5));
    }

    #[test]
    fn the_two_bm25l_differ_only_in_the_absent_term() {
        let old = from_json(r#"{"variant":"bm25l"}"#).unwrap();
        let lz = from_json(r#"{"variant":"bm25l-lvzhai"}"#).unwrap();
        assert_eq!(lz.variant, Variant::Bm25lLvZhai);
        assert_eq!(
            (old.idf(10.0, 3.0), old.tfc(2.0, 1.2)),
            (lz.idf(10.0, 3.0), lz.tfc(2.0, 1.2))
        );
        assert!(old.shifts() && !lz.shifts() && lz.positive_impacts());
        assert!(serde_json::to_string(&lz).unwrap().contains("\"bm25l-lvzhai\""));
    }

    #[test]
    fn bad_values_name_the_option() {
        let e = from_json(r#"{"variant":"bm26"}"#).unwrap_err().to_string();
        assert!(e.starts_with("options.variant must be one of"), "{e}");
        for (json, option) in [
            (r#"{"k1":-1}"#, "options.k1"),
            (r#"{"k1":"NaN"}"#, "options.k1"),
            (r#"{"k1":"Infinity"}"#, "options.k1"),
            (r#"{"b":2}"#, "options.b"),
            (r#"{"delta":"-Infinity"}"#, "options.delta"),
        ] {
            let e = from_json(json).unwrap().validate().unwrap_err();
            assert!(e.message.starts_with(option), "{json}: {}", e.message);
        }
        assert!(from_json(r#"{"k1":"1e"}"#).is_err());
    }

    #[test]
    fn query_time_forms_equal_the_formulas() {
        for variant in [
            Variant::Lucene,
            Variant::Robertson,
            Variant::Atire,
            Variant::Bm25l,
            Variant::Bm25lLvZhai,
            Variant::Bm25plus,
        ] {
            for (k1, b, delta) in [
                (1.5, 0.75, 0.5),
                (0.0, 0.75, 0.5),
                (1.2, 0.0, 0.0),
                (0.9, 1.0, 1.0),
                (0.0, 0.3, 0.0),
            ] {
                let p = Params { variant, k1, b, delta };
                for avgdl in [0.0, 3.7, 120.0] {
                    for (tf, dl) in [(1.0, 1.0), (3.0, 7.0), (2.0, 500.0), (40.0, 41.0)] {
                        let want = p.tfc(tf, p.length_norm(dl, avgdl)) - p.tfc0();
                        let got = match p.tf_form(avgdl) {
                            TfForm::Saturation(s) => s.eval(tf as f32, dl as f32),
                            TfForm::LengthScaled(s) => s.eval(tf as f32, dl as f32),
                        } as f64;
                        let tol = 1e-6 * want.abs().max(1e-3);
                        assert!(
                            (got - want).abs() <= tol,
                            "{p:?} avgdl {avgdl} tf {tf} dl {dl}: {got} vs {want}"
                        );
                    }
                }
            }
        }
    }
}
