//! Tokenisation with the truncation rules a reranker needs.
use std::sync::Arc;

use tokenizers::utils::truncation::truncate_encodings;
use tokenizers::{Encoding, PostProcessor, Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

use ragrank_core::{Error, ErrorKind, Result};

/// Token ids of one input, unpadded.
#[derive(Debug, Clone)]
pub struct Encoded {
    pub ids: Vec<i64>,
    pub type_ids: Vec<i64>,
}

/// One tokenizer, shared by every maximum length: truncation is applied per call rather than stored in
/// the tokenizer, so a call with its own `maxLength` costs no copy of the vocabulary. A pair never has its
/// query cut first ("only second"), unless the query alone is too long ("longest first").
#[derive(Clone)]
pub struct TextEncoder {
    tokenizer: Arc<Tokenizer>,
    pub max_length: usize,
    pub pad_id: i64,
}

fn to_encoded(e: Encoding) -> Encoded {
    Encoded {
        ids: e.get_ids().iter().map(|&i| i as i64).collect(),
        type_ids: e.get_type_ids().iter().map(|&i| i as i64).collect(),
    }
}

impl TextEncoder {
    pub fn new(mut tokenizer: Tokenizer, max_length: usize) -> Result<Self> {
        let pad_id = tokenizer
            .get_padding()
            .map(|p| p.pad_id as i64)
            .or_else(|| {
                tokenizer
                    .token_to_id("[PAD]")
                    .or_else(|| tokenizer.token_to_id("<pad>"))
                    .map(i64::from)
            })
            .unwrap_or(0);
        // Batching pads, and `encode` truncates: the tokenizer file's own settings would do either twice.
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(None)
            .map_err(|e| Error::new(ErrorKind::ModelLoad, format!("tokenizer: {e}")))?;
        Ok(TextEncoder {
            tokenizer: Arc::new(tokenizer),
            max_length,
            pad_id,
        })
    }

    /// The same tokenizer with a tighter cap.
    pub fn with_max_length(&self, max_length: usize) -> TextEncoder {
        TextEncoder {
            max_length,
            ..self.clone()
        }
    }

    /// What `Tokenizer::encode` does with truncation set to `strategy` at `max_length`: each text
    /// tokenized alone, cut to leave room for the special tokens, then the post-processor adds them.
    fn encode(&self, first: &str, second: Option<&str>, strategy: TruncationStrategy) -> tokenizers::Result<Encoding> {
        let first = self.tokenizer.encode_fast(first, false)?;
        let second = second.map(|s| self.tokenizer.encode_fast(s, false)).transpose()?;
        let processor = self.tokenizer.get_post_processor();
        let specials = processor.map_or(0, |p| p.added_tokens(second.is_some()));
        let params = TruncationParams {
            max_length: self.max_length.saturating_sub(specials),
            strategy,
            stride: 0,
            direction: TruncationDirection::Right,
        };
        let (first, second) = truncate_encodings(first, second, &params)?;
        match processor {
            Some(p) => p.process(first, second, true),
            None => {
                let mut merged = first;
                if let Some(mut second) = second {
                    second.set_type_ids(vec![1; second.len()]);
                    merged.merge_with(second, false);
                }
                Ok(merged)
            }
        }
    }

    pub fn pair(&self, query: &str, doc: &str) -> Result<Encoded> {
        match self.encode(query, Some(doc), TruncationStrategy::OnlySecond) {
            Ok(e) => Ok(to_encoded(e)),
            // The query leaves no room for the document: cut both, longest first.
            Err(_) => self
                .encode(query, Some(doc), TruncationStrategy::LongestFirst)
                .map(to_encoded)
                .map_err(tokenize_error),
        }
    }

    pub fn single(&self, text: &str) -> Result<Encoded> {
        self.encode(text, None, TruncationStrategy::LongestFirst)
            .map(to_encoded)
            .map_err(tokenize_error)
    }

    /// Largest token id the tokenizer can produce.
    pub fn max_token_id(&self) -> usize {
        self.tokenizer.get_vocab_size(true).saturating_sub(1)
    }
}

fn tokenize_error(e: tokenizers::Error) -> Error {
    Error::new(ErrorKind::Inference, format!("tokenization failed: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokenizers::processors::bert::BertProcessing;
    use tokenizers::processors::roberta::RobertaProcessing;

    /// The tokenizers of the committed test models: WordPiece, Unigram (XLM-R, DeBERTa) and BPE (ModernBERT, Qwen3).
    fn fixture_tokenizers() -> Vec<(String, Tokenizer)> {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/models");
        [
            "tiny-cross-encoder",
            "arch/xlmr-reranker-v2-m3",
            "arch/deberta-v2-reranker",
            "arch/modernbert-reranker",
            "arch/qwen3-embedder",
        ]
        .iter()
        .map(|name| {
            (
                name.to_string(),
                Tokenizer::from_file(format!("{root}/{name}/tokenizer.json")).unwrap(),
            )
        })
        .collect()
    }

    /// What the tokenizer itself gives with its truncation set to `strategy` at `max_length`.
    fn reference(
        tok: &Tokenizer,
        max_length: usize,
        strategy: TruncationStrategy,
        a: &str,
        b: Option<&str>,
    ) -> Option<Encoded> {
        let mut t = tok.clone();
        t.with_padding(None);
        t.with_truncation(Some(TruncationParams {
            max_length,
            strategy,
            stride: 0,
            direction: TruncationDirection::Right,
        }))
        .unwrap();
        let e = match b {
            Some(b) => t.encode((a, b), true),
            None => t.encode(a, true),
        };
        e.ok().map(to_encoded)
    }

    fn assert_same(what: &str, got: Option<Encoded>, want: Option<Encoded>) {
        match (got, want) {
            (Some(g), Some(w)) => {
                assert_eq!(g.ids, w.ids, "{what}: ids");
                assert_eq!(g.type_ids, w.type_ids, "{what}: type ids");
            }
            (None, None) => {}
            (g, w) => panic!("{what}: got {g:?}, the tokenizer gives {w:?}"),
        }
    }

    #[test]
    fn truncation_per_call_equals_the_tokenizers_own_at_every_length() {
        let long = "the capital of france is paris and berlin is the capital of germany ".repeat(8);
        let texts = [
            ("capital", "paris is the capital of france"),
            ("what is the capital city", long.as_str()),
            (long.as_str(), "paris"),
        ];
        let mut tokenizers = fixture_tokenizers();
        // The other post-processors of the field, and none at all.
        let bert = tokenizers[0].1.clone();
        let (cls, sep) = (bert.token_to_id("[CLS]").unwrap(), bert.token_to_id("[SEP]").unwrap());
        let mut with = |name: &str, pp: Option<tokenizers::PostProcessorWrapper>| {
            let mut t = bert.clone();
            t.with_post_processor(pp);
            tokenizers.push((name.to_string(), t));
        };
        with(
            "bert processing",
            Some(BertProcessing::new(("[SEP]".into(), sep), ("[CLS]".into(), cls)).into()),
        );
        with(
            "roberta processing",
            Some(RobertaProcessing::new(("[SEP]".into(), sep), ("[CLS]".into(), cls)).into()),
        );
        with("no post-processor", None);

        for (name, tok) in &tokenizers {
            let base = TextEncoder::new(tok.clone(), 512).unwrap();
            // At or above the special tokens' count: below it the tokenizer's own subtraction wraps around.
            for max_length in [4, 5, 8, 16, 64, 512] {
                let text = base.with_max_length(max_length);
                for (q, d) in texts {
                    let what = format!("{name}, max {max_length}, ({:.12}, {:.12})", q, d);
                    // `pair`: only-second, and longest-first when the query alone does not fit.
                    let want = reference(tok, max_length, TruncationStrategy::OnlySecond, q, Some(d))
                        .or_else(|| reference(tok, max_length, TruncationStrategy::LongestFirst, q, Some(d)));
                    assert_same(&format!("pair {what}"), text.pair(q, d).ok(), want);
                    let want = reference(tok, max_length, TruncationStrategy::LongestFirst, d, None);
                    assert_same(&format!("single {what}"), text.single(d).ok(), want);
                }
            }
        }
    }

    #[test]
    fn one_tokenizer_for_every_length_and_its_files_own_padding_and_truncation_are_ignored() {
        let (_, mut tok) = fixture_tokenizers().remove(0);
        tok.with_truncation(Some(TruncationParams {
            max_length: 4,
            ..Default::default()
        }))
        .unwrap();
        tok.with_padding(Some(Default::default()));
        let text = TextEncoder::new(tok, 512).unwrap();
        let e = text.single("paris is the capital of france").unwrap();
        assert!(e.ids.len() > 4, "{:?}", e.ids);
        assert_eq!(
            text.with_max_length(4)
                .single("paris is the capital of france")
                .unwrap()
                .ids
                .len(),
            4
        );
    }
}
