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

/// Row-major `[batch, len]` tensors: ids, attention mask and token types, right-padded.
pub fn pad(encoded: &[Encoded], batch: &Batch, pad_id: i64) -> (Vec<i64>, Vec<i64>, Vec<i64>) {
    let n = batch.items.len() * batch.len;
    let (mut ids, mut mask, mut types) = (vec![pad_id; n], vec![0i64; n], vec![0i64; n]);
    for (row, &i) in batch.items.iter().enumerate() {
        let e = &encoded[i];
        let at = row * batch.len;
        ids[at..at + e.ids.len()].copy_from_slice(&e.ids);
        mask[at..at + e.ids.len()].iter_mut().for_each(|m| *m = 1);
        types[at..at + e.type_ids.len()].copy_from_slice(&e.type_ids);
    }
    (ids, mask, types)
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
        let (ids, mask, types) = pad(&enc, &b, 0);
        assert_eq!(ids, [2, 9, 3, 2, 3, 0]);
        assert_eq!(mask, [1, 1, 1, 1, 1, 0]);
        assert_eq!(types, [0, 0, 0, 0, 1, 0]);
    }
}
