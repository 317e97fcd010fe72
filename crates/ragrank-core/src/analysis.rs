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
use crate::names::by_name;

/// How text is cut into words before normalisation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", try_from = "String")]
pub enum Segmentation {
    /// Unicode word boundaries (UAX #29), keeping segments with a letter or digit.
    #[default]
    Unicode,
    /// Runs of letters, digits and `_` of two or more characters: the
    /// `(?u)\b\w\w+\b` tokenizer of scikit-learn and bm25s.
    Regex,
}

const SEGMENTATIONS: [(&str, Segmentation); 2] = [("unicode", Segmentation::Unicode), ("regex", Segmentation::Regex)];

crate::try_from_name!(Segmentation, "options.analyzer.segmentation", SEGMENTATIONS);

/// What becomes of runs of CJK characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", try_from = "String")]
pub enum CjkMode {
    /// Leave them as the segmenter cut them.
    None,
    /// Overlapping character bigrams; a run of one character stays a unigram.
    Bigram,
    /// The whole run as one token, plus its bigrams.
    Wordbigram,
}

const CJK_MODES: [(&str, CjkMode); 3] = [
    ("bigram", CjkMode::Bigram),
    ("wordbigram", CjkMode::Wordbigram),
    ("none", CjkMode::None),
];

crate::try_from_name!(CjkMode, "options.analyzer.cjk", CJK_MODES);

/// The analyzer settings. Deserialized from [`AnalyzerOptions`] (any field may be left
/// out) or from a preset name such as `"bm25s"`; serialized in full, so a saved index
/// keeps the settings it was built with even if a default changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "serde_json::Value")]
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
        AnalyzerConfig::for_segmentation(Segmentation::Unicode)
    }
}

/// Longest `minTokenLength` accepted (longer is almost surely a mistake).
pub const MAX_MIN_TOKEN_LENGTH: usize = 1024;

impl AnalyzerConfig {
    /// The defaults for a segmentation: regex words follow scikit-learn and bm25s (two
    /// characters at least, no CJK handling), Unicode words keep every token and make CJK bigrams.
    pub fn for_segmentation(segmentation: Segmentation) -> Self {
        let regex = segmentation == Segmentation::Regex;
        AnalyzerConfig {
            segmentation,
            lowercase: true,
            stopwords: Vec::new(),
            stemmer: None,
            cjk: if regex { CjkMode::None } else { CjkMode::Bigram },
            min_token_length: if regex { 2 } else { 1 },
        }
    }

    /// A named preset: `bm25s` is bm25s's default pipeline (regex words, lowercase,
    /// English stopwords, English stemmer).
    pub fn preset(name: &str) -> Result<Self> {
        match name {
            "bm25s" => Ok(AnalyzerConfig {
                stopwords: english_stopwords(),
                stemmer: Some("english".into()),
                ..AnalyzerConfig::for_segmentation(Segmentation::Regex)
            }),
            _ => Err(Error::invalid(format!(
                "options.analyzer must be an options object or the preset 'bm25s', got {name:?}"
            ))),
        }
    }
}

impl TryFrom<serde_json::Value> for AnalyzerConfig {
    type Error = Error;
    fn try_from(value: serde_json::Value) -> Result<Self> {
        match value {
            serde_json::Value::String(name) => AnalyzerConfig::preset(&name),
            serde_json::Value::Null => Ok(AnalyzerConfig::default()),
            value => serde_json::from_value::<AnalyzerOptions>(value)
                .map_err(|e| Error::invalid(e.to_string()))?
                .resolve(),
        }
    }
}

/// Analyzer settings as a caller gives them: an absent (or null) field takes the default
/// of the chosen segmentation (see [`AnalyzerConfig::for_segmentation`]).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct AnalyzerOptions {
    pub segmentation: Option<Segmentation>,
    pub lowercase: Option<bool>,
    /// `"en"` (the Lucene English list) or a list of words.
    pub stopwords: Option<StopwordsOption>,
    pub stemmer: Option<String>,
    pub cjk: Option<CjkMode>,
    /// Signed so a negative value gets a message naming the option rather than a serde one.
    pub min_token_length: Option<i64>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum StopwordsOption {
    Named(String),
    List(Vec<String>),
}

impl AnalyzerOptions {
    pub fn resolve(self) -> Result<AnalyzerConfig> {
        let base = AnalyzerConfig::for_segmentation(self.segmentation.unwrap_or_default());
        let stopwords = match self.stopwords {
            None => base.stopwords,
            Some(StopwordsOption::List(words)) => words,
            Some(StopwordsOption::Named(name)) if name == "en" => english_stopwords(),
            Some(StopwordsOption::Named(name)) => {
                return Err(Error::invalid(format!(
                    "options.analyzer.stopwords must be 'en' or a list of words, got {name:?}"
                )))
            }
        };
        let min_token_length = match self.min_token_length {
            None => base.min_token_length,
            Some(n) => usize::try_from(n).map_err(|_| min_token_length_error(n))?,
        };
        Ok(AnalyzerConfig {
            lowercase: self.lowercase.unwrap_or(base.lowercase),
            stopwords,
            stemmer: self.stemmer.or(base.stemmer),
            cjk: self.cjk.unwrap_or(base.cjk),
            min_token_length,
            ..base
        })
    }
}

fn min_token_length_error(n: impl std::fmt::Display) -> Error {
    Error::invalid(format!(
        "options.analyzer.minTokenLength must be in [0, {MAX_MIN_TOKEN_LENGTH}], got {n}"
    ))
}

/// The English stopwords of Lucene's `EnglishAnalyzer` (also bm25s's `"en"` list).
pub const ENGLISH_STOPWORDS: [&str; 33] = [
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not", "of",
    "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was", "will", "with",
];

fn english_stopwords() -> Vec<String> {
    ENGLISH_STOPWORDS.iter().map(|w| w.to_string()).collect()
}

/// The Snowball languages `AnalyzerConfig::stemmer` accepts (`porter2` is English).
pub const STEMMERS: [(&str, Algorithm); 19] = [
    ("arabic", Algorithm::Arabic),
    ("danish", Algorithm::Danish),
    ("dutch", Algorithm::Dutch),
    ("english", Algorithm::English),
    ("porter2", Algorithm::English),
    ("finnish", Algorithm::Finnish),
    ("french", Algorithm::French),
    ("german", Algorithm::German),
    ("greek", Algorithm::Greek),
    ("hungarian", Algorithm::Hungarian),
    ("italian", Algorithm::Italian),
    ("norwegian", Algorithm::Norwegian),
    ("portuguese", Algorithm::Portuguese),
    ("romanian", Algorithm::Romanian),
    ("russian", Algorithm::Russian),
    ("spanish", Algorithm::Spanish),
    ("swedish", Algorithm::Swedish),
    ("tamil", Algorithm::Tamil),
    ("turkish", Algorithm::Turkish),
];

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF | 0x3130..=0x318F | 0xA960..=0xA97F | 0xAC00..=0xD7AF | 0xD7B0..=0xD7FF // Hangul
        | 0x3040..=0x309F | 0x30A0..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F // kana
        | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x3134F // Han
    )
}

/// Hangul syllables and the unified Han block: no case mapping, and all alphabetic. The bulk
/// of Korean and Chinese text, so the Unicode tables are skipped for them.
fn is_caseless_letter(c: char) -> bool {
    matches!(c as u32, 0xAC00..=0xD7A3 | 0x4E00..=0x9FFF)
}

/// `char::is_alphanumeric` with the common scripts first.
fn is_alphanumeric(c: char) -> bool {
    c.is_ascii_alphanumeric() || is_caseless_letter(c) || (!c.is_ascii() && c.is_alphanumeric())
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
            Some(name) => Some(Stemmer::create(by_name("options.analyzer.stemmer", name, &STEMMERS)?)),
        };
        if config.min_token_length > MAX_MIN_TOKEN_LENGTH {
            return Err(min_token_length_error(config.min_token_length));
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
                    if !seg.chars().any(is_alphanumeric) {
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
        if self.stopwords.is_empty() || !self.stopwords.contains(term) {
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
            for c in self.chars.iter_mut().filter(|c| !is_caseless_letter(**c)) {
                *c = c.to_lowercase().next().unwrap_or(*c);
            }
        }
        // Emitted from the run in place and then cleared, so its buffer is reused.
        let chars = &self.chars;
        if chars.len() == 1 {
            buf.clear();
            buf.push(chars[0]);
            a.emit_cjk(buf, emit);
        } else {
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
        self.chars.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analyze(config: AnalyzerConfig, text: &str) -> Vec<String> {
        Analyzer::new(config).unwrap().analyze(text)
    }

    /// Each text with the terms the default analyzer makes of it.
    #[test]
    fn default_analyzer_terms() {
        let cases: [(&str, &[&str]); 4] = [
            (
                "The Quick, brown fox's 2nd jump — ÉTÉ!",
                &["the", "quick", "brown", "fox's", "2nd", "jump", "été"],
            ),
            // Hangul becomes bigrams; a lone character stays a unigram.
            ("학교에 갔다 집", &["학교", "교에", "갔다", "집"]),
            // Han and kana runs are rebuilt across segments.
            ("東京タワー, 東 x", &["東京", "京タ", "タワ", "ワー", "東", "x"]),
            // A mixed-script word splits by script.
            ("GPT한테 물어봐", &["gpt", "한테", "물어", "어봐"]),
        ];
        for (text, terms) in cases {
            assert_eq!(analyze(AnalyzerConfig::default(), text), terms, "{text:?}");
        }
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
            stopwords: english_stopwords(),
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

    fn from_json(json: &str) -> Result<AnalyzerConfig> {
        serde_json::from_str::<serde_json::Value>(json)
            .map_err(|e| Error::invalid(e.to_string()))
            .and_then(AnalyzerConfig::try_from)
    }

    #[test]
    fn absent_fields_take_the_defaults_of_the_segmentation() {
        assert_eq!(from_json("{}").unwrap(), AnalyzerConfig::default());
        assert_eq!(from_json("null").unwrap(), AnalyzerConfig::default());
        let regex = from_json(r#"{"segmentation":"regex"}"#).unwrap();
        assert_eq!((regex.cjk, regex.min_token_length), (CjkMode::None, 2));
        let unicode = AnalyzerConfig::default();
        assert_eq!(
            (unicode.cjk, unicode.min_token_length, unicode.lowercase),
            (CjkMode::Bigram, 1, true)
        );
        let given = from_json(r#"{"segmentation":"regex","cjk":"bigram","minTokenLength":3,"stemmer":null}"#).unwrap();
        assert_eq!(
            (given.cjk, given.min_token_length, given.stemmer),
            (CjkMode::Bigram, 3, None)
        );
    }

    #[test]
    fn named_stopwords_and_the_bm25s_preset() {
        assert_eq!(
            from_json(r#"{"stopwords":"en"}"#).unwrap().stopwords.len(),
            ENGLISH_STOPWORDS.len()
        );
        assert_eq!(from_json(r#"{"stopwords":["x"]}"#).unwrap().stopwords, ["x"]);
        let bm25s = from_json(r#""bm25s""#).unwrap();
        assert_eq!(bm25s.segmentation, Segmentation::Regex);
        assert_eq!((bm25s.min_token_length, bm25s.cjk), (2, CjkMode::None));
        assert_eq!(bm25s.stemmer.as_deref(), Some("english"));
        assert_eq!(bm25s.stopwords, english_stopwords());
    }

    #[test]
    fn a_full_config_round_trips() {
        let cfg = AnalyzerConfig::preset("bm25s").unwrap();
        let json = serde_json::to_string(&cfg).unwrap();
        assert_eq!(serde_json::from_str::<AnalyzerConfig>(&json).unwrap(), cfg);
    }

    #[test]
    fn bad_values_name_the_option() {
        for (json, option) in [
            (r#"{"segmentation":"words"}"#, "options.analyzer.segmentation"),
            (r#"{"cjk":"trigram"}"#, "options.analyzer.cjk"),
            (r#"{"stopwords":"fr"}"#, "options.analyzer.stopwords"),
            (r#"{"minTokenLength":-1}"#, "options.analyzer.minTokenLength"),
            (r#""lucene""#, "options.analyzer"),
        ] {
            let e = from_json(json).unwrap_err();
            assert_eq!(e.kind, crate::error::ErrorKind::InvalidArg, "{json}");
            assert!(e.message.starts_with(option), "{json}: {}", e.message);
        }
        let long = from_json(r#"{"minTokenLength":2000}"#).unwrap();
        assert!(Analyzer::new(long)
            .unwrap_err()
            .message
            .starts_with("options.analyzer.minTokenLength"));
        let klingon = from_json(r#"{"stemmer":"klingon"}"#).unwrap();
        assert!(Analyzer::new(klingon)
            .unwrap_err()
            .message
            .starts_with("options.analyzer.stemmer"));
    }
}
