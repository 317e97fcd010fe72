//! Units: the things a block size counts. Each mode cuts a text into contiguous units that
//! cover it exactly, with separators attached to the end of the unit they close.
use std::sync::Arc;

use ragrank_core::model_file::{read_model_file, TOKENIZER_MAX_BYTES};
use ragrank_core::{Error, Result};
use tokenizers::Tokenizer;
use unicode_segmentation::UnicodeSegmentation;

use crate::sentence;

#[derive(Clone)]
pub enum Unit {
    /// Haystack's character modes: Python `str.split(sep)` with the separator re-attached.
    Separator(&'static str),
    /// UAX #29 sentences with English abbreviations and CJK/Korean endings (see `sentence`).
    Sentence,
    /// Extended grapheme clusters, so a chunk never cuts an emoji or a Hangul syllable block.
    Char,
    /// Tokens of a Hugging Face tokenizer (without special tokens).
    Token(Arc<Tokenizer>),
}

/// Haystack's character modes: the `splitBy` name and the separator it cuts after.
const SEPARATORS: [(&str, &str); 5] = [
    ("word", " "),
    ("passage", "\n\n"),
    ("line", "\n"),
    ("page", "\u{c}"),
    ("period", "."),
];

/// The `splitBy` a splitter uses when none is given.
pub const DEFAULT_SPLIT_BY: &str = "word";

impl Unit {
    /// `word`, `passage`, `line`, `page`, `period`, `sentence`, `char`; `token` needs a tokenizer.
    pub fn parse(name: &str, tokenizer: Option<Arc<Tokenizer>>) -> Result<Unit> {
        if let Some(&(_, sep)) = SEPARATORS.iter().find(|(n, _)| *n == name) {
            return Ok(Unit::Separator(sep));
        }
        Ok(match name {
            "sentence" => Unit::Sentence,
            "char" => Unit::Char,
            "token" => Unit::Token(
                tokenizer.ok_or_else(|| {
                    Error::invalid("options.splitBy \"token\" needs a tokenizer (a tokenizer.json path)")
                })?,
            ),
            other => {
                return Err(Error::invalid(format!(
                    "options.splitBy must be one of word, sentence, passage, page, line, period, token, char; got {other:?}"
                )))
            }
        })
    }

    /// The `splitBy` name `parse` takes for this unit.
    pub fn name(&self) -> &'static str {
        match self {
            Unit::Separator(sep) => SEPARATORS.iter().find(|(_, s)| s == sep).map_or("word", |(n, _)| n),
            Unit::Sentence => "sentence",
            Unit::Char => "char",
            Unit::Token(_) => "token",
        }
    }

    /// End byte offsets (relative to `text`) of the units of `text`, in order.
    /// The separator modes always give at least one unit, possibly empty, as Python does.
    pub fn ends(&self, text: &str) -> Result<Vec<u32>> {
        let bounds = self.boundaries(text)?;
        Ok(self.ends_within(&bounds, 0, text.len() as u32))
    }

    /// The unit boundaries of a whole document, computed once: the separator modes give the
    /// end of every separator match, the other modes the end of every unit.
    pub fn boundaries(&self, text: &str) -> Result<Vec<u32>> {
        Ok(match self {
            Unit::Separator(sep) => separator_ends(text.as_bytes(), sep.as_bytes()),
            Unit::Sentence => sentence::ends(text),
            Unit::Char => text.grapheme_indices(true).map(|(i, g)| (i + g.len()) as u32).collect(),
            Unit::Token(tokenizer) => token_ends(tokenizer, text)?,
        })
    }

    /// The unit ends of the range `[start, end)` of a document whose `boundaries` are given,
    /// relative to `start`. Ranges always start and end on unit boundaries (the root, or a
    /// run of units), so this equals splitting the range's own text: for the separator modes
    /// Python's `str.split` restarts right after a match, so its matches inside the range are
    /// the document's; a range that ends just after a separator has an empty last unit.
    pub fn ends_within(&self, boundaries: &[u32], start: u32, end: u32) -> Vec<u32> {
        let separator = matches!(self, Unit::Separator(_));
        if start == end && !separator {
            return Vec::new();
        }
        let from = boundaries.partition_point(|&b| b <= start);
        let to = if separator {
            boundaries.partition_point(|&b| b <= end)
        } else {
            boundaries.partition_point(|&b| b < end)
        };
        let mut ends: Vec<u32> = boundaries[from..to.max(from)].iter().map(|&b| b - start).collect();
        ends.push(end - start);
        ends
    }
}

/// Ends of the non-overlapping, leftmost matches of an ASCII separator (what Python's
/// `str.split` cuts at). A plain byte scan: ASCII bytes never occur inside a multi-byte
/// UTF-8 character, and words are short, so a per-match searcher costs more than it saves.
fn separator_ends(text: &[u8], sep: &[u8]) -> Vec<u32> {
    let mut ends = Vec::with_capacity(text.len() / 8);
    let (first, rest) = (sep[0], &sep[1..]);
    let mut i = 0;
    while i < text.len() {
        if text[i] == first && text[i + 1..].starts_with(rest) {
            i += sep.len();
            ends.push(i as u32);
        } else {
            i += 1;
        }
    }
    ends
}

/// Loads a Hugging Face `tokenizer.json` for the token mode.
pub fn load_tokenizer(path: &str) -> Result<Arc<Tokenizer>> {
    let bytes = read_model_file(std::path::Path::new(path), "tokenizer", TOKENIZER_MAX_BYTES)?;
    let load_error = |e: tokenizers::Error| {
        Error::new(
            ragrank_core::ErrorKind::ModelLoad,
            format!("cannot load tokenizer {path}: {e}"),
        )
    };
    let mut tokenizer = Tokenizer::from_bytes(&bytes).map_err(load_error)?;
    // A tokenizer.json often carries the model's truncation (e.g. 512 tokens): counting must
    // see the whole document, or everything after the limit would become one unit.
    tokenizer.with_truncation(None).map_err(load_error)?;
    tokenizer.with_padding(None);
    Ok(Arc::new(tokenizer))
}

/// A token unit runs from its token's start to the next token's start, so whitespace between
/// tokens stays attached and units cover the text. Tokens that share a start (several
/// byte-level pieces of one character) form one unit.
fn token_ends(tokenizer: &Tokenizer, text: &str) -> Result<Vec<u32>> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let encoding = tokenizer
        .encode(text, false)
        .map_err(|e| Error::invalid(format!("tokenizer failed on a text: {e}")))?;
    let mut ends = Vec::with_capacity(encoding.len());
    let mut last = 0usize;
    for &(start, _) in encoding.get_offsets() {
        if start > last && start < text.len() && text.is_char_boundary(start) {
            ends.push(start as u32);
            last = start;
        }
    }
    ends.push(text.len() as u32);
    Ok(ends)
}

#[cfg(test)]
mod tests {
    use super::Unit;

    fn pieces(unit: &Unit, text: &str) -> Vec<String> {
        let ends = unit.ends(text).unwrap();
        let mut start = 0;
        ends.iter()
            .map(|&e| {
                let s = text[start..e as usize].to_string();
                start = e as usize;
                s
            })
            .collect()
    }

    #[test]
    fn separator_units_follow_python_split() {
        let word = Unit::parse("word", None).unwrap();
        assert_eq!(pieces(&word, "a  b   c"), ["a ", " ", "b ", " ", " ", "c"]);
        assert_eq!(pieces(&word, "a b "), ["a ", "b ", ""]);
        assert_eq!(pieces(&word, ""), [""]);
        let passage = Unit::parse("passage", None).unwrap();
        assert_eq!(pieces(&passage, "p1\n\np2\n\n\np3"), ["p1\n\n", "p2\n\n", "\np3"]);
        let period = Unit::parse("period", None).unwrap();
        assert_eq!(pieces(&period, "One. Two. Three."), ["One.", " Two.", " Three.", ""]);
    }

    #[test]
    fn chars_are_grapheme_clusters() {
        let char = Unit::parse("char", None).unwrap();
        assert_eq!(pieces(&char, "a👍🏽한\r\n"), ["a", "👍🏽", "한", "\r\n"]);
        assert!(pieces(&char, "").is_empty());
    }

    #[test]
    fn token_units_ignore_the_tokenizers_truncation() {
        let fixture = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/models/tiny-cross-encoder/tokenizer.json"
        );
        let json = std::fs::read_to_string(fixture).unwrap().replacen(
            "\"truncation\": null",
            "\"truncation\": {\"direction\": \"Right\", \"max_length\": 3, \"strategy\": \"LongestFirst\", \"stride\": 0}",
            1,
        );
        assert!(
            json.contains("\"max_length\": 3"),
            "the fixture's truncation field changed"
        );
        let path = std::env::temp_dir().join(format!("ragrank-split-trunc-{}.json", std::process::id()));
        std::fs::write(&path, json).unwrap();
        let tokenizer = super::load_tokenizer(path.to_str().unwrap()).unwrap();
        std::fs::remove_file(&path).ok();
        let token = Unit::Token(tokenizer);
        assert_eq!(
            pieces(&token, "Paris is the capital of France."),
            ["Paris ", "is ", "the ", "capital ", "of ", "France", "."]
        );
        assert!(super::load_tokenizer("/no/such/tokenizer.json").is_err());
    }

    #[test]
    fn unknown_modes_and_missing_tokenizers_are_errors() {
        let e = Unit::parse("function", None).err().unwrap();
        assert!(e.message.starts_with("options.splitBy must be one of"), "{}", e.message);
        for name in ["word", "passage", "line", "page", "period", "sentence", "char"] {
            assert_eq!(Unit::parse(name, None).unwrap().name(), name);
        }
        assert!(Unit::parse("token", None).is_err());
    }
}
