//! Text analysis: text in, index terms out.
//!
//! The default pipeline: Unicode word segmentation (UAX #29), Unicode lowercasing,
//! optional stopwords, optional Snowball stemming, and dictionary-free CJK handling where
//! runs of Hangul, Han, Hiragana and Katakana become overlapping character bigrams
//! (Korean particles stay attached to words, so whole-word tokens miss most matches).
use rust_stemmers::{Algorithm, Stemmer};
use rustc_hash::FxHashSet;
use serde::{Deserialize, Serialize};
use unicode_segmentation::UnicodeSegmentation;

use crate::error::{Error, Result};

/// How text is cut into words before normalisation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Segmentation {
    /// Unicode word boundaries (UAX #29), keeping segments with a letter or digit.
    Unicode,
    /// Runs of letters, digits and `_` of two or more characters: the
    /// `(?u)\b\w\w+\b` tokenizer of scikit-learn and bm25s.
    Regex,
}

/// What becomes of runs of CJK characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CjkMode {
    /// Leave them as the segmenter cut them.
    None,
    /// Overlapping character bigrams; a run of one character stays a unigram.
    Bigram,
    /// The whole run as one token, plus its bigrams.
    Wordbigram,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AnalyzerConfig {
    pub segmentation: Segmentation,
    pub lowercase: bool,
    /// Words dropped after lowercasing, before stemming.
    pub stopwords: Vec<String>,
    /// A Snowball language name (`english`, `german`, ...), or none.
    pub stemmer: Option<String>,
    pub cjk: CjkMode,
    /// Tokens shorter than this many characters are dropped (CJK unigrams excepted).
    pub min_token_length: usize,
}

impl Default for AnalyzerConfig {
    fn default() -> Self {
        AnalyzerConfig {
            segmentation: Segmentation::Unicode,
            lowercase: true,
            stopwords: Vec::new(),
            stemmer: None,
            cjk: CjkMode::Bigram,
            min_token_length: 1,
        }
    }
}

/// The English stopwords of Lucene's `EnglishAnalyzer` (also bm25s's `"en"` list).
pub const ENGLISH_STOPWORDS: [&str; 33] = [
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not", "of",
    "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was", "will", "with",
];

fn stemmer_algorithm(name: &str) -> Option<Algorithm> {
    Some(match name {
        "arabic" => Algorithm::Arabic,
        "danish" => Algorithm::Danish,
        "dutch" => Algorithm::Dutch,
        "english" | "porter2" => Algorithm::English,
        "finnish" => Algorithm::Finnish,
        "french" => Algorithm::French,
        "german" => Algorithm::German,
        "greek" => Algorithm::Greek,
        "hungarian" => Algorithm::Hungarian,
        "italian" => Algorithm::Italian,
        "norwegian" => Algorithm::Norwegian,
        "portuguese" => Algorithm::Portuguese,
        "romanian" => Algorithm::Romanian,
        "russian" => Algorithm::Russian,
        "spanish" => Algorithm::Spanish,
        "swedish" => Algorithm::Swedish,
        "tamil" => Algorithm::Tamil,
        "turkish" => Algorithm::Turkish,
        _ => return None,
    })
}

/// The Snowball languages `AnalyzerConfig::stemmer` accepts.
pub const STEMMER_LANGUAGES: [&str; 18] = [
    "arabic",
    "danish",
    "dutch",
    "english",
    "finnish",
    "french",
    "german",
    "greek",
    "hungarian",
    "italian",
    "norwegian",
    "portuguese",
    "romanian",
    "russian",
    "spanish",
    "swedish",
    "tamil",
    "turkish",
];

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF | 0x3130..=0x318F | 0xA960..=0xA97F | 0xAC00..=0xD7AF | 0xD7B0..=0xD7FF // Hangul
        | 0x3040..=0x309F | 0x30A0..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F // kana
        | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x3134F // Han
    )
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// A compiled analyzer. Cheap to share between threads.
pub struct Analyzer {
    config: AnalyzerConfig,
    stopwords: FxHashSet<String>,
    stemmer: Option<Stemmer>,
}

impl std::fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Analyzer").field("config", &self.config).finish()
    }
}

impl Analyzer {
    pub fn new(config: AnalyzerConfig) -> Result<Self> {
        let stemmer = match &config.stemmer {
            None => None,
            Some(name) => Some(Stemmer::create(stemmer_algorithm(name).ok_or_else(|| {
                Error::invalid(format!(
                    "unknown stemmer language {name:?}; expected one of {}",
                    STEMMER_LANGUAGES.join(", ")
                ))
            })?)),
        };
        if config.min_token_length > 1024 {
            return Err(Error::invalid("minTokenLength must be at most 1024"));
        }
        let stopwords = config
            .stopwords
            .iter()
            .map(|w| if config.lowercase { w.to_lowercase() } else { w.clone() })
            .collect();
        Ok(Analyzer {
            config,
            stopwords,
            stemmer,
        })
    }

    pub fn config(&self) -> &AnalyzerConfig {
        &self.config
    }

    /// The terms of `text`, in order.
    pub fn analyze(&self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        self.analyze_into(text, &mut |t| out.push(t.to_owned()));
        out
    }

    /// Calls `emit` with each term of `text`, in order, without allocating per term
    /// where it can.
    pub fn analyze_into(&self, text: &str, emit: &mut dyn FnMut(&str)) {
        let mut buf = String::new();
        let mut cjk = CjkRun::default();
        let word = |w: &str, buf: &mut String, emit: &mut dyn FnMut(&str)| {
            self.finish_word(w, buf, emit);
        };
        match self.config.segmentation {
            Segmentation::Regex => {
                for w in text.split(|c: char| !is_word_char(c)).filter(|w| !w.is_empty()) {
                    word(w, &mut buf, emit);
                }
            }
            Segmentation::Unicode if text.is_ascii() => {
                for w in AsciiWords::new(text) {
                    word(w, &mut buf, emit);
                }
            }
            Segmentation::Unicode => {
                for (start, seg) in text.split_word_bound_indices() {
                    if !seg.chars().any(char::is_alphanumeric) {
                        cjk.flush(self, &mut buf, emit);
                        continue;
                    }
                    if self.config.cjk == CjkMode::None || seg.is_ascii() {
                        cjk.flush(self, &mut buf, emit);
                        word(seg, &mut buf, emit);
                        continue;
                    }
                    // Split the segment into script runs: CJK runs join the pending CJK run
                    // when they touch it, everything else is a word of its own.
                    let mut run_start = 0;
                    let mut run_cjk = None;
                    for (i, c) in seg.char_indices().chain(std::iter::once((seg.len(), ' '))) {
                        let c_cjk = if i == seg.len() { None } else { Some(is_cjk(c)) };
                        if c_cjk != run_cjk {
                            if let Some(was_cjk) = run_cjk {
                                let piece = &seg[run_start..i];
                                if was_cjk {
                                    cjk.push(start + run_start, piece, self, &mut buf, emit);
                                } else {
                                    cjk.flush(self, &mut buf, emit);
                                    word(piece, &mut buf, emit);
                                }
                            }
                            run_start = i;
                            run_cjk = c_cjk;
                        }
                    }
                }
                cjk.flush(self, &mut buf, emit);
            }
        }
    }

    /// Lowercase, filter, stem and emit one word.
    fn finish_word(&self, w: &str, buf: &mut String, emit: &mut dyn FnMut(&str)) {
        buf.clear();
        if !self.config.lowercase {
            buf.push_str(w);
        } else if w.is_ascii() {
            buf.push_str(w);
            buf.make_ascii_lowercase();
        } else {
            buf.extend(w.chars().flat_map(char::to_lowercase));
        }
        let too_short = self.config.min_token_length > 1 && buf.chars().count() < self.config.min_token_length;
        if too_short || (!self.stopwords.is_empty() && self.stopwords.contains(buf.as_str())) {
            return;
        }
        match &self.stemmer {
            Some(s) => emit(&s.stem(buf)),
            None => emit(buf),
        }
    }

    fn emit_cjk(&self, term: &str, emit: &mut dyn FnMut(&str)) {
        if !self.stopwords.contains(term) {
            emit(term);
        }
    }
}

/// UAX #29 words of ASCII text, several times faster than the general segmenter and
/// equal to it on ASCII (a property test checks this). In ASCII the rules reduce to:
/// runs of letters, digits and `_` (WB5, WB8-10, WB13a/b), joined across one `'`, `.`
/// or `:` between two letters (WB6/7) and across one `'`, `.`, `,` or `;` between two
/// digits (WB11/12).
struct AsciiWords<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> AsciiWords<'a> {
    fn new(text: &'a str) -> Self {
        AsciiWords { text, pos: 0 }
    }
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl<'a> Iterator for AsciiWords<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let t = self.text.as_bytes();
        loop {
            while self.pos < t.len() && !is_word_byte(t[self.pos]) {
                self.pos += 1;
            }
            if self.pos >= t.len() {
                return None;
            }
            let start = self.pos;
            let mut i = start;
            loop {
                while i < t.len() && is_word_byte(t[i]) {
                    i += 1;
                }
                // At a non-word byte (or the end): may it join the next run?
                if i + 1 < t.len() {
                    let (prev, mid, next) = (t[i - 1], t[i], t[i + 1]);
                    let letters =
                        prev.is_ascii_alphabetic() && next.is_ascii_alphabetic() && matches!(mid, b'\'' | b'.' | b':');
                    let digits =
                        prev.is_ascii_digit() && next.is_ascii_digit() && matches!(mid, b'\'' | b'.' | b',' | b';');
                    if letters || digits {
                        i += 1;
                        continue;
                    }
                }
                break;
            }
            self.pos = i;
            // A run of `_` alone is no word.
            if t[start..i].iter().any(u8::is_ascii_alphanumeric) {
                return self.text.get(start..i);
            }
        }
    }
}

/// A pending run of adjacent CJK characters (UAX #29 cuts Han and kana into single
/// characters, so runs are rebuilt from touching segments).
#[derive(Default)]
struct CjkRun {
    chars: Vec<char>,
    end: usize,
}

impl CjkRun {
    fn push(&mut self, at: usize, piece: &str, a: &Analyzer, buf: &mut String, emit: &mut dyn FnMut(&str)) {
        if !self.chars.is_empty() && self.end != at {
            self.flush(a, buf, emit);
        }
        self.chars.extend(piece.chars());
        self.end = at + piece.len();
    }

    fn flush(&mut self, a: &Analyzer, buf: &mut String, emit: &mut dyn FnMut(&str)) {
        if self.chars.is_empty() {
            return;
        }
        if a.config.lowercase {
            // Fullwidth and other cased characters can occur in kana blocks; Hangul and Han have no case.
            for c in self.chars.iter_mut() {
                *c = c.to_lowercase().next().unwrap_or(*c);
            }
        }
        let chars = std::mem::take(&mut self.chars);
        if chars.len() == 1 {
            buf.clear();
            buf.push(chars[0]);
            a.emit_cjk(buf, emit);
            return;
        }
        if a.config.cjk == CjkMode::Wordbigram {
            buf.clear();
            buf.extend(chars.iter());
            a.emit_cjk(buf, emit);
        }
        for pair in chars.windows(2) {
            buf.clear();
            buf.push(pair[0]);
            buf.push(pair[1]);
            a.emit_cjk(buf, emit);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analyze(config: AnalyzerConfig, text: &str) -> Vec<String> {
        Analyzer::new(config).unwrap().analyze(text)
    }

    #[test]
    fn unicode_words_lowercased() {
        let t = analyze(AnalyzerConfig::default(), "The Quick, brown fox's 2nd jump — ÉTÉ!");
        assert_eq!(t, ["the", "quick", "brown", "fox's", "2nd", "jump", "été"]);
    }

    #[test]
    fn hangul_becomes_bigrams_and_lone_char_unigram() {
        let t = analyze(AnalyzerConfig::default(), "학교에 갔다 집");
        assert_eq!(t, ["학교", "교에", "갔다", "집"]);
    }

    #[test]
    fn han_and_kana_runs_are_rebuilt_across_segments() {
        let t = analyze(AnalyzerConfig::default(), "東京タワー, 東 x");
        assert_eq!(t, ["東京", "京タ", "タワ", "ワー", "東", "x"]);
    }

    #[test]
    fn mixed_script_word_splits_by_script() {
        let t = analyze(AnalyzerConfig::default(), "GPT한테 물어봐");
        assert_eq!(t, ["gpt", "한테", "물어", "어봐"]);
    }

    #[test]
    fn word_bigram_mode_keeps_the_run() {
        let cfg = AnalyzerConfig {
            cjk: CjkMode::Wordbigram,
            ..Default::default()
        };
        assert_eq!(analyze(cfg, "학교에"), ["학교에", "학교", "교에"]);
    }

    #[test]
    fn regex_mode_matches_sklearn_pattern() {
        let cfg = AnalyzerConfig {
            segmentation: Segmentation::Regex,
            min_token_length: 2,
            ..Default::default()
        };
        assert_eq!(
            analyze(cfg, "I don't like a_b x-ray 42"),
            ["don", "like", "a_b", "ray", "42"]
        );
    }

    #[test]
    fn stopwords_then_stemming() {
        let cfg = AnalyzerConfig {
            stopwords: ENGLISH_STOPWORDS.iter().map(|s| s.to_string()).collect(),
            stemmer: Some("english".into()),
            ..Default::default()
        };
        assert_eq!(analyze(cfg, "The running of the Flows"), ["run", "flow"]);
    }

    #[test]
    fn unknown_stemmer_is_an_error() {
        let cfg = AnalyzerConfig {
            stemmer: Some("klingon".into()),
            ..Default::default()
        };
        assert!(Analyzer::new(cfg).is_err());
    }

    #[test]
    fn ascii_fast_path_equals_uax29() {
        // Deterministic pseudo-random ASCII strings, dense in the characters the rules treat specially.
        let alphabet = b"ab Z09_'.:,;-!? \t\nx1";
        let mut state = 0x2545F4914F6CDD1Du64;
        for _ in 0..20_000 {
            let len = (state % 24) as usize;
            let s: String = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    alphabet[(state % alphabet.len() as u64) as usize] as char
                })
                .collect();
            let fast: Vec<&str> = AsciiWords::new(&s).collect();
            let reference: Vec<&str> = s
                .split_word_bounds()
                .filter(|w| w.chars().any(char::is_alphanumeric))
                .collect();
            assert_eq!(fast, reference, "{s:?}");
        }
    }

    #[test]
    fn empty_and_separator_only_text() {
        assert!(analyze(AnalyzerConfig::default(), "").is_empty());
        assert!(analyze(AnalyzerConfig::default(), "  \t\n ,.;! ").is_empty());
        assert_eq!(analyze(AnalyzerConfig::default(), "a\u{FFFD}b"), ["a", "b"]);
    }
}
