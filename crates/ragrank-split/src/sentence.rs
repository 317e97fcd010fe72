//! Sentences without NLTK: UAX #29 sentence boundaries (which keep the spaces after a
//! sentence attached to it and already handle `3.14`, `U.S.A.` and a lowercase word after
//! a period), then a re-join where a boundary follows a common English abbreviation or an
//! initial. UAX #29 treats `。！？` and their full-width forms as sentence ends, so Chinese,
//! Japanese and Korean text splits without spaces after the mark.
use unicode_segmentation::UnicodeSegmentation;

/// Lowercase, without the final period. Words that often end a sentence (`etc`, `no`) are
/// left out on purpose: a wrong join costs less than a wrong cut only when it is rare.
const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "vs", "e.g", "i.e", "cf", "al", "approx", "inc", "ltd",
    "co", "corp", "dept", "univ", "fig", "figs", "eq", "eqs", "vol", "pp", "ed", "eds", "gen", "gov", "sen", "rep",
    "capt", "col", "lt", "sgt", "rev", "hon", "ave", "rd", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep",
    "sept", "oct", "nov", "dec", "u.s", "u.k", "u.n", "a.m", "p.m", "ph.d", "ca",
];

/// End byte offsets of the sentences of `text` (empty for an empty text).
pub fn ends(text: &str) -> Vec<u32> {
    let mut ends: Vec<u32> = Vec::new();
    let mut join_next = false;
    for (start, sentence) in text.split_sentence_bound_indices() {
        let end = (start + sentence.len()) as u32;
        // UAX #29 ends a sentence at every line break, so a blank line comes out as a
        // sentence of its own: it belongs to the sentence before it, as trailing spaces do.
        let blank = sentence.trim().is_empty();
        match ends.last_mut() {
            Some(last) if join_next || blank => *last = end,
            _ => ends.push(end),
        }
        join_next = (join_next && blank) || ends_with_abbreviation(sentence);
    }
    ends
}

fn ends_with_abbreviation(sentence: &str) -> bool {
    let trimmed = sentence.trim_end();
    let Some(body) = trimmed.strip_suffix('.') else {
        return false;
    };
    let word = body
        .rsplit(|c: char| c.is_whitespace())
        .next()
        .unwrap_or("")
        .trim_start_matches(|c: char| !c.is_alphanumeric());
    let mut chars = word.chars();
    let initial = matches!((chars.next(), chars.next()), (Some(c), None) if c.is_uppercase());
    initial || ABBREVIATIONS.iter().any(|a| a.eq_ignore_ascii_case(word))
}

#[cfg(test)]
mod tests {
    fn sentences(text: &str) -> Vec<&str> {
        let mut start = 0;
        super::ends(text)
            .into_iter()
            .map(|e| {
                let s = &text[start..e as usize];
                start = e as usize;
                s
            })
            .collect()
    }

    #[test]
    fn keeps_spaces_attached_and_covers_the_text() {
        let text = "Hello there.  How are you? Fine!\n\nBye";
        assert_eq!(sentences(text), ["Hello there.  ", "How are you? ", "Fine!\n\n", "Bye"]);
    }

    #[test]
    fn abbreviations_and_initials_do_not_end_sentences() {
        let text = "Dr. Smith met Mr. J. Jones in the U.S. Army. It was 3.5 km away.";
        assert_eq!(
            sentences(text),
            ["Dr. Smith met Mr. J. Jones in the U.S. Army. ", "It was 3.5 km away."]
        );
    }

    #[test]
    fn cjk_and_korean_endings() {
        assert_eq!(sentences("今天很好。明天下雨！"), ["今天很好。", "明天下雨！"]);
        assert_eq!(
            sentences("날씨가 좋다. 내일은 비가 온다.그래요?"),
            ["날씨가 좋다. ", "내일은 비가 온다.", "그래요?"]
        );
        assert_eq!(
            sentences("東京に行きました。楽しかった。"),
            ["東京に行きました。", "楽しかった。"]
        );
    }
}
