//! The hierarchy, with Haystack's rules: block sizes largest first, `level` is depth, a node
//! that yields one chunk at a size is carried down unchanged, a node that yields none stops.
use std::sync::atomic::AtomicBool;

use ragrank_core::{check_cancel, Error, Result};
use rayon::prelude::*;

use crate::offsets::to_utf16;
use crate::units::{load_tokenizer, Unit, DEFAULT_SPLIT_BY};
use crate::window::windows;

#[derive(Clone)]
pub struct SplitConfig {
    /// Distinct, descending, all > overlap.
    block_sizes: Vec<usize>,
    overlap: usize,
    unit: Unit,
}

impl SplitConfig {
    pub fn new(block_sizes: &[u32], overlap: u32, unit: Unit) -> Result<Self> {
        let mut sizes: Vec<usize> = block_sizes.iter().map(|&b| b as usize).collect();
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        sizes.dedup();
        let Some(&smallest) = sizes.last() else {
            return Err(Error::invalid(
                "blockSizes must not be empty; give at least one block size",
            ));
        };
        if smallest == 0 {
            return Err(Error::invalid(
                "options.blockSizes: every block size must be at least 1",
            ));
        }
        if overlap as usize >= smallest {
            return Err(Error::invalid(format!(
                "overlap ({overlap}) must be smaller than the smallest block size ({smallest}); \
                 reduce overlap or raise the smallest block size"
            )));
        }
        Ok(SplitConfig {
            block_sizes: sizes,
            overlap: overlap as usize,
            unit,
        })
    }

    /// Caller options by name (sizes and overlap signed, so a negative one gets a range
    /// message); an absent `overlap` is 0 and an absent `split_by` is `word`.
    pub fn from_options(
        block_sizes: &[i64],
        overlap: Option<i64>,
        split_by: Option<&str>,
        tokenizer: Option<&str>,
    ) -> Result<Self> {
        let sizes = block_sizes
            .iter()
            .enumerate()
            .map(|(i, &b)| {
                u32::try_from(b).ok().filter(|&b| b >= 1).ok_or_else(|| {
                    Error::invalid(format!(
                        "options.blockSizes[{i}] must be at least 1 and at most {}, got {b}",
                        u32::MAX
                    ))
                })
            })
            .collect::<Result<Vec<u32>>>()?;
        let overlap = overlap.unwrap_or(0);
        let overlap = u32::try_from(overlap)
            .map_err(|_| Error::invalid(format!("options.overlap must be >= 0, got {overlap}")))?;
        let split_by = split_by.unwrap_or(DEFAULT_SPLIT_BY);
        let tokenizer = match (split_by, tokenizer) {
            ("token", Some(path)) => Some(load_tokenizer(path)?),
            _ => None,
        };
        SplitConfig::new(&sizes, overlap, Unit::parse(split_by, tokenizer)?)
    }

    pub fn block_sizes(&self) -> &[usize] {
        &self.block_sizes
    }

    pub fn overlap(&self) -> usize {
        self.overlap
    }

    pub fn unit(&self) -> &Unit {
        &self.unit
    }
}

/// One node. Offsets are byte offsets into the document until `to_utf16_offsets`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub start: u32,
    pub end: u32,
    pub level: u32,
    /// 0 for the root.
    pub block_size: u32,
    /// Index of the parent in the same document's node list.
    pub parent: Option<u32>,
}

/// The nodes of one document in Haystack's order: the root, then level by level (by block
/// size), each level in parent order and then chunk order. Offsets are UTF-8 bytes.
pub fn split_document(text: &str, cfg: &SplitConfig, cancel: &AtomicBool) -> Result<Vec<Node>> {
    let mut nodes = vec![Node {
        start: 0,
        end: text.len() as u32,
        level: 0,
        block_size: 0,
        parent: None,
    }];
    let mut current = vec![0u32];
    let boundaries = cfg.unit.boundaries(text)?;
    for &size in &cfg.block_sizes {
        let mut next = Vec::with_capacity(current.len());
        for &idx in &current {
            check_cancel(cancel)?;
            let node = nodes[idx as usize].clone();
            let ends = cfg.unit.ends_within(&boundaries, node.start, node.end);
            let chunks = chunk(&ends, size, cfg.overlap);
            if chunks.len() == 1 {
                next.push(idx);
                continue;
            }
            for (s, e) in chunks {
                next.push(nodes.len() as u32);
                nodes.push(Node {
                    start: node.start + s,
                    end: node.start + e,
                    level: node.level + 1,
                    block_size: size as u32,
                    parent: Some(idx),
                });
            }
        }
        current = next;
    }
    Ok(nodes)
}

/// Byte ranges (relative to the node) of the non-empty windows of `size` units. With an
/// overlap, a window after the first chunk whose units beyond those already covered add no
/// text (only overlap, or the empty unit a trailing separator leaves) is skipped, as in
/// Haystack 3.x: it would be a chunk contained in the previous one.
fn chunk(ends: &[u32], size: usize, overlap: usize) -> Vec<(u32, u32)> {
    let start_of = |u: usize| if u == 0 { 0 } else { ends[u - 1] };
    let mut out = Vec::new();
    let mut covered = 0;
    for (a, b) in windows(ends.len(), size, overlap) {
        let fresh = a.max(covered);
        if overlap > 0 && !out.is_empty() && (fresh >= b || start_of(fresh) >= ends[b - 1]) {
            continue;
        }
        covered = covered.max(b);
        let (s, e) = (start_of(a), ends[b - 1]);
        if e > s {
            out.push((s, e));
        }
    }
    out
}

/// Rewrites the offsets of one document's nodes from UTF-8 bytes to UTF-16 code units.
pub fn to_utf16_offsets(text: &str, nodes: &mut [Node]) {
    let mut offs: Vec<u32> = nodes.iter().flat_map(|n| [n.start, n.end]).collect();
    to_utf16(text, &mut offs);
    for (n, pair) in nodes.iter_mut().zip(offs.chunks_exact(2)) {
        n.start = pair[0];
        n.end = pair[1];
    }
}

/// Splits many documents in parallel; offsets in UTF-16 code units.
pub fn split_documents<S: AsRef<str> + Sync>(
    texts: &[S],
    cfg: &SplitConfig,
    cancel: &AtomicBool,
) -> Result<Vec<Vec<Node>>> {
    texts
        .par_iter()
        .map(|t| {
            let text = t.as_ref();
            let mut nodes = split_document(text, cfg, cancel)?;
            to_utf16_offsets(text, &mut nodes);
            Ok(nodes)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use ragrank_core::ErrorKind;

    use super::*;

    fn run(text: &str, sizes: &[u32], overlap: u32, unit: &str) -> Vec<(String, u32, u32, Option<u32>)> {
        let cfg = SplitConfig::new(sizes, overlap, Unit::parse(unit, None).unwrap()).unwrap();
        split_document(text, &cfg, &AtomicBool::new(false))
            .unwrap()
            .into_iter()
            .map(|n| {
                (
                    text[n.start as usize..n.end as usize].to_string(),
                    n.level,
                    n.block_size,
                    n.parent,
                )
            })
            .collect()
    }

    #[test]
    fn the_monarch_example() {
        let text = "The monarch of the wild blue yonder rises from the eastern side of the horizon.";
        let nodes = run(text, &[10, 3], 0, "word");
        let texts: Vec<&str> = nodes.iter().map(|n| n.0.as_str()).collect();
        assert_eq!(
            texts,
            [
                text,
                "The monarch of the wild blue yonder rises from the ",
                "eastern side of the horizon.",
                "The monarch of ",
                "the wild blue ",
                "yonder rises from ",
                "the ",
                "eastern side of ",
                "the horizon."
            ]
        );
        let shape: Vec<(u32, u32, Option<u32>)> = nodes.iter().map(|n| (n.1, n.2, n.3)).collect();
        assert_eq!(
            shape,
            [
                (0, 0, None),
                (1, 10, Some(0)),
                (1, 10, Some(0)),
                (2, 3, Some(1)),
                (2, 3, Some(1)),
                (2, 3, Some(1)),
                (2, 3, Some(1)),
                (2, 3, Some(2)),
                (2, 3, Some(2))
            ]
        );
    }

    #[test]
    fn single_chunk_nodes_are_carried_down_and_level_is_depth() {
        let nodes = run(
            "one two three four five six seven eight nine ten",
            &[10, 5, 2],
            0,
            "word",
        );
        assert_eq!(nodes.len(), 9);
        assert_eq!((nodes[1].1, nodes[1].2, nodes[1].3), (1, 5, Some(0)));
        assert_eq!((nodes[3].1, nodes[3].2, nodes[3].3), (2, 2, Some(1)));
    }

    #[test]
    fn no_overlap_only_leaf_from_a_trailing_empty_unit() {
        // Haystack 2.x also made "d " (the overlap "d " plus the empty unit after the last space).
        let nodes = run("a b c d e f g", &[4, 2], 1, "word");
        let leaves: Vec<&str> = nodes.iter().filter(|n| n.3 == Some(1)).map(|n| n.0.as_str()).collect();
        assert_eq!(leaves, ["a b ", "b c ", "c d "]);
        let nodes = run("a b c ", &[2], 1, "word");
        let chunks: Vec<&str> = nodes[1..].iter().map(|n| n.0.as_str()).collect();
        assert_eq!(chunks, ["a b ", "b c "]);
        // Without overlap the window of the empty unit is empty, and dropped as before.
        let nodes = run("a b c ", &[2], 0, "word");
        let chunks: Vec<&str> = nodes[1..].iter().map(|n| n.0.as_str()).collect();
        assert_eq!(chunks, ["a b ", "c "]);
    }

    #[test]
    fn empty_text_is_a_lone_root() {
        assert_eq!(run("", &[3], 0, "word"), [(String::new(), 0, 0, None)]);
        assert_eq!(run("", &[3], 0, "sentence").len(), 1);
    }

    #[test]
    fn bad_configs_are_errors() {
        let word = || Unit::parse("word", None).unwrap();
        assert!(SplitConfig::new(&[], 0, word()).is_err());
        assert!(SplitConfig::new(&[3, 0], 0, word()).is_err());
        assert!(SplitConfig::new(&[5, 3], 3, word()).is_err());
        assert_eq!(SplitConfig::new(&[3, 5, 3], 2, word()).unwrap().block_sizes(), &[5, 3]);
    }

    #[test]
    fn options_take_defaults_and_name_bad_values() {
        let cfg = SplitConfig::from_options(&[3, 10, 3], None, None, None).unwrap();
        assert_eq!(
            (cfg.block_sizes(), cfg.overlap(), cfg.unit().name()),
            (&[10, 3][..], 0, "word")
        );
        let cfg = SplitConfig::from_options(&[4], Some(1), Some("sentence"), None).unwrap();
        assert_eq!((cfg.overlap(), cfg.unit().name()), (1, "sentence"));
        for (sizes, overlap, split_by, option) in [
            (&[3, 0][..], None, None, "options.blockSizes[1]"),
            (&[-2][..], None, None, "options.blockSizes[0]"),
            (&[1 << 33][..], None, None, "options.blockSizes[0]"),
            (&[][..], None, None, "blockSizes must not be empty"),
            (&[3][..], Some(-1), None, "options.overlap"),
            (&[5, 3][..], Some(3), None, "overlap (3) must be smaller"),
            (&[3][..], None, Some("function"), "options.splitBy"),
            (
                &[3][..],
                None,
                Some("token"),
                "options.splitBy \"token\" needs a tokenizer",
            ),
        ] {
            let e = SplitConfig::from_options(sizes, overlap, split_by, None).err().unwrap();
            assert_eq!(e.kind, ErrorKind::InvalidArg);
            assert!(e.message.starts_with(option), "{}", e.message);
        }
    }

    /// Python `str.split(sep)` with the separator re-attached to all pieces but the last.
    fn python_split_ends(text: &str, sep: &str) -> Vec<u32> {
        let pieces: Vec<&str> = text.split(sep).collect();
        let mut end = 0;
        pieces
            .iter()
            .enumerate()
            .map(|(i, p)| {
                end += p.len() + if i + 1 < pieces.len() { sep.len() } else { 0 };
                end as u32
            })
            .collect()
    }

    #[test]
    fn document_boundaries_give_the_units_of_every_node_text() {
        let text = "p1\n\n\n\np2.  a  b \n\n\nc. d\u{c}\u{c}e.\n\n f g h . . ";
        for (mode, sep) in [
            ("word", " "),
            ("passage", "\n\n"),
            ("line", "\n"),
            ("page", "\u{c}"),
            ("period", "."),
        ] {
            for overlap in [0, 1] {
                let unit = Unit::parse(mode, None).unwrap();
                let cfg = SplitConfig::new(&[4, 3, 2], overlap, unit.clone()).unwrap();
                let bounds = unit.boundaries(text).unwrap();
                for n in split_document(text, &cfg, &AtomicBool::new(false)).unwrap() {
                    let own = &text[n.start as usize..n.end as usize];
                    let want = python_split_ends(own, sep);
                    assert_eq!(
                        unit.ends_within(&bounds, n.start, n.end),
                        want,
                        "{mode} o{overlap} {own:?}"
                    );
                    assert_eq!(unit.ends(own).unwrap(), want);
                }
            }
        }
    }

    #[test]
    fn offsets_are_utf16() {
        let text = "😀 a b";
        let cfg = SplitConfig::new(&[1], 0, Unit::parse("word", None).unwrap()).unwrap();
        let docs = split_documents(&[text], &cfg, &AtomicBool::new(false)).unwrap();
        let spans: Vec<(u32, u32)> = docs[0].iter().map(|n| (n.start, n.end)).collect();
        assert_eq!(spans, [(0, 6), (0, 3), (3, 5), (5, 6)]);
    }
}
