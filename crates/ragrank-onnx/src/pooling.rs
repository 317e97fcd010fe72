//! Pooling of token vectors into one sentence vector: the `1_Pooling/config.json` modes of
//! sentence-transformers, computed over the unpadded tokens of a row only.
use ragrank_core::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    /// Average of the token vectors (`pooling_mode_mean_tokens`).
    Mean,
    /// The first token (`pooling_mode_cls_token`: BERT's [CLS], XLM-R's `<s>`).
    Cls,
    /// Element-wise maximum (`pooling_mode_max_tokens`).
    Max,
    /// Sum divided by the square root of the length (`pooling_mode_mean_sqrt_len_tokens`).
    MeanSqrt,
    /// Average weighted by position 1, 2, ... (`pooling_mode_weightedmean_tokens`, SGPT).
    WeightedMean,
    /// The last token (`pooling_mode_lasttoken`: decoder-only embedders such as Qwen3-Embedding).
    LastToken,
}

impl Pooling {
    /// The names the TypeScript API uses.
    pub const NAMES: [&'static str; 6] = ["mean", "cls", "max", "meansqrt", "weightedmean", "lasttoken"];

    pub fn parse(name: &str) -> Result<Pooling> {
        Ok(match name {
            "mean" => Pooling::Mean,
            "cls" => Pooling::Cls,
            "max" => Pooling::Max,
            "meansqrt" => Pooling::MeanSqrt,
            "weightedmean" => Pooling::WeightedMean,
            "lasttoken" => Pooling::LastToken,
            _ => {
                return Err(Error::invalid(format!(
                    "pooling must be one of {}, got {name:?}",
                    Pooling::NAMES.join(", ")
                )))
            }
        })
    }
}

/// Pools `tokens` (`len` unpadded vectors of width `dim`, in order) into `dst`.
pub fn pool(tokens: &[f32], dim: usize, len: usize, pooling: Pooling, dst: &mut [f32]) {
    let len = len.max(1);
    let token = |t: usize| &tokens[t * dim..(t + 1) * dim];
    match pooling {
        Pooling::Cls => dst.copy_from_slice(token(0)),
        Pooling::LastToken => dst.copy_from_slice(token(len - 1)),
        Pooling::Max => {
            dst.copy_from_slice(token(0));
            for t in 1..len {
                for (d, &v) in dst.iter_mut().zip(token(t)) {
                    *d = d.max(v);
                }
            }
        }
        Pooling::Mean | Pooling::MeanSqrt | Pooling::WeightedMean => {
            dst.iter_mut().for_each(|x| *x = 0.0);
            let weight = |t: usize| {
                if pooling == Pooling::WeightedMean {
                    (t + 1) as f32
                } else {
                    1.0
                }
            };
            for t in 0..len {
                let w = weight(t);
                for (d, &v) in dst.iter_mut().zip(token(t)) {
                    *d += w * v;
                }
            }
            let divisor = match pooling {
                Pooling::Mean => len as f32,
                Pooling::MeanSqrt => (len as f32).sqrt(),
                _ => (len * (len + 1) / 2) as f32,
            };
            dst.iter_mut().for_each(|x| *x /= divisor);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Three tokens of width 2, then a padding row that must never be read.
    const TOKENS: [f32; 8] = [1.0, -4.0, 3.0, 2.0, -2.0, 8.0, 99.0, 99.0];

    fn pooled(p: Pooling) -> Vec<f32> {
        let mut dst = vec![0.0; 2];
        pool(&TOKENS, 2, 3, p, &mut dst);
        dst
    }

    #[test]
    fn every_mode_matches_its_sentence_transformers_formula() {
        assert_eq!(pooled(Pooling::Cls), [1.0, -4.0]);
        assert_eq!(pooled(Pooling::LastToken), [-2.0, 8.0]);
        assert_eq!(pooled(Pooling::Max), [3.0, 8.0]);
        assert_eq!(pooled(Pooling::Mean), [2.0 / 3.0, 2.0]);
        let s3 = 3f32.sqrt();
        assert_eq!(pooled(Pooling::MeanSqrt), [2.0 / s3, 6.0 / s3]);
        // weights 1, 2, 3 over 6
        assert_eq!(
            pooled(Pooling::WeightedMean),
            [(1.0 + 6.0 - 6.0) / 6.0, (-4.0 + 4.0 + 24.0) / 6.0]
        );
    }

    #[test]
    fn names_round_trip_and_unknown_names_are_invalid() {
        for name in Pooling::NAMES {
            assert!(Pooling::parse(name).is_ok(), "{name}");
        }
        let e = Pooling::parse("sum").unwrap_err();
        assert!(e.message.contains("lasttoken"), "{}", e.message);
    }
}
