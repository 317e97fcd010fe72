//! Length-aware batching: sort inputs by length, cut batches by a token budget, pad each
//! batch only to its own longest input (not to the longest of the call).
use crate::text::Encoded;

#[derive(Debug, Clone, PartialEq)]
pub struct Batch {
    /// Input positions, longest first.
    pub items: Vec<usize>,
    /// Padded sequence length of the batch.
    pub len: usize,
}

/// Batches of at most `max_batch` inputs and about `token_budget` padded tokens each
/// (a single input longer than the budget still gets a batch of its own).
pub fn plan(lengths: &[usize], max_batch: usize, token_budget: usize) -> Vec<Batch> {
    let mut order: Vec<usize> = (0..lengths.len()).collect();
    order.sort_by(|&a, &b| lengths[b].cmp(&lengths[a]).then(a.cmp(&b)));
    let mut batches: Vec<Batch> = Vec::new();
    for i in order {
        match batches.last_mut() {
            Some(b) if b.items.len() < max_batch && (b.items.len() + 1) * b.len <= token_budget => b.items.push(i),
            _ => batches.push(Batch {
                items: vec![i],
                len: lengths[i].max(1),
            }),
        }
    }
    batches
}

/// Halves the costliest batches (padded tokens) until there are `at_least` of them or every
/// batch holds one input, so that a call planned as fewer batches than there are sessions
/// still keeps every session busy. The order of the batches (longest first) is kept.
pub fn spread(batches: &mut Vec<Batch>, lengths: &[usize], at_least: usize) {
    while batches.len() < at_least {
        let Some((at, _)) = batches
            .iter()
            .enumerate()
            .filter(|(_, b)| b.items.len() > 1)
            .max_by_key(|(i, b)| (b.items.len() * b.len, std::cmp::Reverse(*i)))
        else {
            return;
        };
        let batch = &mut batches[at];
        let tail = batch.items.split_off(batch.items.len().div_ceil(2));
        let len = lengths[tail[0]].max(1);
        batches.insert(at + 1, Batch { items: tail, len });
    }
}

/// Makes the number of batches a multiple of `sessions` (and at least `sessions`). The sessions
/// take a call's batches from one queue, so the last round is where they idle: a rerank of 20
/// pairs truncated to 128 tokens plans 5 batches of 4, which 2 sessions run in 3 rounds with one
/// session idle in the last. Inputs all of one length (cut at the max length) are dealt out again as evenly as they go (4 + 4 + 3 + 3 + 3 + 3: 10 pairs per session), which
/// never exceeds the budget (no batch gets more inputs than the plan's biggest); others have their
/// costliest batches halved (`spread`).
pub fn balance(batches: &mut Vec<Batch>, lengths: &[usize], sessions: usize) {
    let sessions = sessions.max(1);
    let target = batches.len().max(sessions).next_multiple_of(sessions);
    if batches.is_empty() || target == batches.len() {
        return;
    }
    let len = batches[0].len;
    if batches.iter().flat_map(|b| &b.items).all(|&i| lengths[i].max(1) == len) {
        let items: Vec<usize> = batches.drain(..).flat_map(|b| b.items).collect();
        let target = target.min(items.len());
        let (size, bigger) = (items.len() / target, items.len() % target);
        let mut rest = items.as_slice();
        for k in 0..target {
            let (head, tail) = rest.split_at(size + usize::from(k < bigger));
            batches.push(Batch {
                items: head.to_vec(),
                len,
            });
            rest = tail;
        }
    } else {
        spread(batches, lengths, target);
    }
}

/// Which end of a row the padding goes to. Encoders are right-padded; decoder-only models
/// (Qwen3-Embedding) are trained left-padded, so that the last token of every row is at the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PaddingSide {
    #[default]
    Right,
    Left,
}

impl PaddingSide {
    pub fn parse(name: &str) -> ragrank_core::Result<PaddingSide> {
        match name {
            "right" => Ok(PaddingSide::Right),
            "left" => Ok(PaddingSide::Left),
            _ => Err(ragrank_core::Error::invalid(format!(
                "paddingSide must be 'right' or 'left', got {name:?}"
            ))),
        }
    }

    /// Where the `len` real tokens of a row padded to `padded` start.
    pub fn start(self, len: usize, padded: usize) -> usize {
        match self {
            PaddingSide::Right => 0,
            PaddingSide::Left => padded - len,
        }
    }
}

/// Row-major `[batch, len]` tensors of one padded batch.
pub struct Padded {
    pub ids: Vec<i64>,
    pub mask: Vec<i64>,
    pub type_ids: Vec<i64>,
    /// 0, 1, ... over the real tokens and 1 on padding, as transformers computes `position_ids`
    /// from the attention mask for decoder models, so a left-padded row sees the positions of an
    /// unpadded one.
    pub positions: Vec<i64>,
}

pub fn pad(encoded: &[Encoded], batch: &Batch, pad_id: i64, side: PaddingSide) -> Padded {
    let n = batch.items.len() * batch.len;
    let mut p = Padded {
        ids: vec![pad_id; n],
        mask: vec![0; n],
        type_ids: vec![0; n],
        positions: vec![1; n],
    };
    for (row, &i) in batch.items.iter().enumerate() {
        let e = &encoded[i];
        let at = row * batch.len + side.start(e.ids.len(), batch.len);
        let span = at..at + e.ids.len();
        p.ids[span.clone()].copy_from_slice(&e.ids);
        p.mask[span.clone()].iter_mut().for_each(|m| *m = 1);
        p.type_ids[at..at + e.type_ids.len()].copy_from_slice(&e.type_ids);
        p.positions[span].iter_mut().zip(0..).for_each(|(x, k)| *x = k);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_respect_size_and_budget_and_cover_everything_once() {
        let lengths = [5, 50, 7, 50, 3, 100, 1];
        let batches = plan(&lengths, 3, 120);
        let mut seen: Vec<usize> = batches.iter().flat_map(|b| b.items.clone()).collect();
        seen.sort();
        assert_eq!(seen, (0..lengths.len()).collect::<Vec<_>>());
        for b in &batches {
            assert!(b.items.len() <= 3);
            assert!(b.items.len() == 1 || b.items.len() * b.len <= 120);
            assert!(b.items.iter().all(|&i| lengths[i] <= b.len));
        }
        assert_eq!(batches[0].items, vec![5]);
        assert_eq!(batches[1].items, vec![1, 3]);
    }

    #[test]
    fn spread_halves_the_largest_batches_until_every_session_has_one() {
        let lengths = [9, 4, 7, 3, 8];
        let mut batches = plan(&lengths, 32, 512);
        assert_eq!(batches.len(), 1);
        spread(&mut batches, &lengths, 2);
        assert_eq!(
            batches[0],
            Batch {
                items: vec![0, 4, 2],
                len: 9
            }
        );
        assert_eq!(
            batches[1],
            Batch {
                items: vec![1, 3],
                len: 4
            }
        );
        spread(&mut batches, &lengths, 4);
        assert_eq!(batches.len(), 4);
        assert_eq!(batches.iter().map(|b| b.items.len()).sum::<usize>(), lengths.len());
        for b in &batches {
            assert!(b.items.iter().all(|&i| lengths[i] <= b.len));
            assert_eq!(b.len, lengths[b.items[0]], "padded to its own longest");
        }
        let mut one = plan(&[5], 32, 512);
        spread(&mut one, &[5], 2);
        assert_eq!(
            one,
            vec![Batch { items: vec![0], len: 5 }],
            "a single input stays whole"
        );
        let mut enough = plan(&lengths, 2, 512);
        let before = enough.clone();
        spread(&mut enough, &lengths, 2);
        assert_eq!(enough, before, "enough batches are left alone");
    }

    #[test]
    fn balance_rounds_the_batches_up_to_a_multiple_of_the_sessions() {
        // 20 pairs truncated to 128 tokens: 5 batches of 4 under a 512-token budget.
        let lengths = [128; 20];
        let mut batches = plan(&lengths, 32, 512);
        assert_eq!(batches.len(), 5);
        balance(&mut batches, &lengths, 2);
        let sizes: Vec<usize> = batches.iter().map(|b| b.items.len()).collect();
        assert_eq!(sizes, [4, 4, 3, 3, 3, 3]);
        assert!(batches.iter().all(|b| b.len == 128));
        // Taken in turn from one queue, each of the 2 sessions gets 10 pairs.
        let per_session = |k: usize| sizes.iter().skip(k).step_by(2).sum::<usize>();
        assert_eq!((per_session(0), per_session(1)), (10, 10));
        let mut seen: Vec<usize> = batches.iter().flat_map(|b| b.items.clone()).collect();
        seen.sort();
        assert_eq!(seen, (0..20).collect::<Vec<_>>());
        // Already a multiple, or one session: unchanged.
        let mut four = plan(&[128; 16], 32, 512);
        let before = four.clone();
        balance(&mut four, &[128; 16], 2);
        assert_eq!(four, before);
        let mut alone = plan(&lengths, 32, 512);
        balance(&mut alone, &lengths, 1);
        assert_eq!(alone.len(), 5);
        // One batch of mixed lengths: halved, each half padded to its own longest.
        let mut one = plan(&[9, 4, 7, 3, 8], 32, 512);
        balance(&mut one, &[9, 4, 7, 3, 8], 2);
        assert_eq!(one.iter().map(|b| b.len).collect::<Vec<_>>(), [9, 4]);
        let mut none = plan(&[], 32, 512);
        balance(&mut none, &[], 2);
        assert!(none.is_empty());
        // Fewer inputs than sessions: one batch each.
        let mut few = plan(&[128; 3], 32, 512);
        balance(&mut few, &[128; 3], 4);
        assert_eq!(few.iter().map(|b| b.items.len()).collect::<Vec<_>>(), [1, 1, 1]);
        // Mixed lengths: the costliest batch is the one split (the long pairs' batch, not the
        // short pairs' bigger one).
        let mixed = [100, 100, 100, 10, 10, 10, 10, 10, 10];
        let mut b = plan(&mixed, 32, 300);
        assert_eq!(b.iter().map(|b| b.items.len()).collect::<Vec<_>>(), [3, 6]);
        balance(&mut b, &mixed, 3);
        assert_eq!(b.iter().map(|b| b.items.len()).collect::<Vec<_>>(), [2, 1, 6]);
    }

    #[test]
    fn pads_to_the_batch_longest() {
        let enc = vec![
            Encoded {
                ids: vec![2, 9, 3],
                type_ids: vec![0, 0, 0],
            },
            Encoded {
                ids: vec![2, 3],
                type_ids: vec![0, 1],
            },
        ];
        let b = Batch {
            items: vec![0, 1],
            len: 3,
        };
        let p = pad(&enc, &b, 0, PaddingSide::Right);
        assert_eq!(p.ids, [2, 9, 3, 2, 3, 0]);
        assert_eq!(p.mask, [1, 1, 1, 1, 1, 0]);
        assert_eq!(p.type_ids, [0, 0, 0, 0, 1, 0]);
        assert_eq!(p.positions, [0, 1, 2, 0, 1, 1]);
        let p = pad(&enc, &b, 0, PaddingSide::Left);
        assert_eq!(p.ids, [2, 9, 3, 0, 2, 3]);
        assert_eq!(p.mask, [1, 1, 1, 0, 1, 1]);
        assert_eq!(p.type_ids, [0, 0, 0, 0, 0, 1]);
        assert_eq!(p.positions, [0, 1, 2, 1, 0, 1]);
        assert!(PaddingSide::parse("middle").is_err());
    }
}
