//! Tokenisation with the truncation rules a reranker needs.
use tokenizers::{Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

use ragrank_core::{Error, ErrorKind, Result};

/// Token ids of one input, unpadded.
#[derive(Debug, Clone)]
pub struct Encoded {
    pub ids: Vec<i64>,
    pub type_ids: Vec<i64>,
}

/// One tokenizer per truncation strategy: a pair never has its query cut first
/// ("only second"), unless the query alone is too long ("longest first").
pub struct TextEncoder {
    only_second: Tokenizer,
    longest_first: Tokenizer,
    pub max_length: usize,
    pub pad_id: i64,
}

fn with_strategy(base: &Tokenizer, max_length: usize, strategy: TruncationStrategy) -> Result<Tokenizer> {
    let mut t = base.clone();
    t.with_padding(None);
    t.with_truncation(Some(TruncationParams {
        max_length,
        strategy,
        stride: 0,
        direction: TruncationDirection::Right,
    }))
    .map_err(|e| Error::new(ErrorKind::ModelLoad, format!("tokenizer: {e}")))?;
    Ok(t)
}

fn to_encoded(e: tokenizers::Encoding) -> Encoded {
    Encoded {
        ids: e.get_ids().iter().map(|&i| i as i64).collect(),
        type_ids: e.get_type_ids().iter().map(|&i| i as i64).collect(),
    }
}

impl TextEncoder {
    pub fn new(tokenizer: Tokenizer, max_length: usize) -> Result<Self> {
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
        Ok(TextEncoder {
            only_second: with_strategy(&tokenizer, max_length, TruncationStrategy::OnlySecond)?,
            longest_first: with_strategy(&tokenizer, max_length, TruncationStrategy::LongestFirst)?,
            max_length,
            pad_id,
        })
    }

    pub fn pair(&self, query: &str, doc: &str) -> Result<Encoded> {
        match self.only_second.encode((query, doc), true) {
            Ok(e) => Ok(to_encoded(e)),
            // The query leaves no room for the document: cut both, longest first.
            Err(_) => self
                .longest_first
                .encode((query, doc), true)
                .map(to_encoded)
                .map_err(tokenize_error),
        }
    }

    pub fn single(&self, text: &str) -> Result<Encoded> {
        self.longest_first
            .encode(text, true)
            .map(to_encoded)
            .map_err(tokenize_error)
    }

    /// Largest token id the tokenizer can produce.
    pub fn max_token_id(&self) -> usize {
        self.longest_first.get_vocab_size(true).saturating_sub(1)
    }
}

fn tokenize_error(e: tokenizers::Error) -> Error {
    Error::new(ErrorKind::Inference, format!("tokenization failed: {e}"))
}
