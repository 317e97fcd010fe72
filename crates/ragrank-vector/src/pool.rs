//! Work sharing for one call: the calling thread and the pool's threads claim chunks from a
//! shared counter. The caller starts at once and pool threads join as they wake, so the
//! wake-up latency of a sleeping pool (tens of microseconds in a VM) overlaps with work
//! instead of being waited for, and each participant keeps one state (e.g. its top-k
//! selections) across all the chunks it claims.
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// The pool of synchronous searches, apart from rayon's global pool: a sync call blocks its
/// caller (the JS event loop) for as long as it runs, so it must never queue behind a long
/// batch, merge or index build on the global pool (measured: a 8.9 ms search took 264-413
/// ms behind a BM25 `searchBatch`). Only sync searches use it, one at a time per JS thread,
/// so nothing long occupies it; when the global pool is busy too, the OS shares the cores
/// between both instead of one waiting for the other.
pub fn sync_pool() -> &'static rayon::ThreadPool {
    static POOL: OnceLock<rayon::ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("ragrank-sync-{i}"))
            .build()
            .expect("a thread pool")
    })
}

/// The pool of batch searches (`searchBatch` and the coalesced batches of async searches),
/// apart from the global pool, its threads at nice `RAGRANK_SEARCH_NICE` (0-19, default 5).
/// A batch fills both cores for milliseconds while the event loop still has replies to
/// write: at equal priority the scheduler gave the batch's threads the cores and left the
/// loop runnable but waiting (measured at 64 concurrent vector requests); a lower weight
/// (335 against the loop's 1024) lets the loop in at once and the batch keeps the rest.
pub fn batch_pool() -> &'static rayon::ThreadPool {
    static POOL: OnceLock<rayon::ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let nice = std::env::var("RAGRANK_SEARCH_NICE")
            .ok()
            .and_then(|v| v.trim().parse::<i32>().ok())
            .map_or(SEARCH_NICE, |v| v.clamp(0, 19));
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("ragrank-search-{i}"))
            .start_handler(move |_| ragrank_core::background::lower_current_thread_to(nice, false))
            .build()
            .expect("a thread pool")
    })
}

/// The default nice value of `batch_pool`'s threads: below the loop's weight, well above
/// maintenance's (`ragrank_core::background::NICE`), which a waiting caller must outrun.
pub const SEARCH_NICE: i32 = 5;

/// Rows `0..n` shared out in chunks of about n / (16 x threads) rows, kept within
/// `min_rows..=max_rows` and rounded up to a multiple of `align`: small enough to bound the
/// wait for the last chunk, few enough to keep the counter cold. `work(state, rows)` runs
/// once per chunk; returns the states as `share_chunks` does. With `alternate`, every other
/// call claims the chunks last to first (see `BACKWARDS`).
pub fn share_rows<S: Send>(
    n: usize,
    (min_rows, max_rows, align): (usize, usize, usize),
    alternate: bool,
    new: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, Range<usize>) + Sync,
) -> Vec<S> {
    let threads = rayon::current_num_threads();
    let min_rows = min_rows.max(1);
    let chunk = (n / (16 * threads))
        .clamp(min_rows, max_rows.max(min_rows))
        .next_multiple_of(align);
    let chunks = n.div_ceil(chunk);
    let backwards = alternate && BACKWARDS.fetch_xor(true, Ordering::Relaxed);
    share_chunks(chunks, threads, new, |state, c| {
        let c = if backwards { chunks - 1 - c } else { c };
        work(state, c * chunk..((c + 1) * chunk).min(n))
    })
}

/// Whether the next alternating `share_rows` claims its chunks last to first. Alternating the
/// direction makes a scan of rows larger than the last-level cache start where the previous
/// one ended, on rows still cached; always scanning forward, each chunk is evicted just before
/// the next scan needs it (measured in ABBA runs: 1-8% faster at 100k x 384 and 3-5% at
/// 100k x 768 f32, 150-300 MB). Scans that fit in the cache gain nothing and keep one order.
/// The selections do not depend on the order (ties go by slot).
static BACKWARDS: AtomicBool = AtomicBool::new(false);

/// Runs `work(state, c)` once for every chunk `c` in `0..chunks`, each on some participant's
/// state; returns the states, the caller's first. At most `participants` states are made.
pub fn share_chunks<S: Send>(
    chunks: usize,
    participants: usize,
    new: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, usize) + Sync,
) -> Vec<S> {
    let (next, done, exited) = (AtomicUsize::new(0), AtomicUsize::new(0), AtomicUsize::new(0));
    let claim = |state: &mut S| loop {
        let c = next.fetch_add(1, Ordering::Relaxed);
        if c >= chunks {
            break;
        }
        let _done = Count(&done); // counted even if `work` panics, so the spin below ends
        work(state, c);
    };
    let mut states: Vec<S> = (0..participants.clamp(1, chunks.max(1))).map(|_| new()).collect();
    let (mine, theirs) = states.split_first_mut().expect("at least one participant");
    rayon::in_place_scope(|s| {
        for state in theirs.iter_mut() {
            s.spawn(|_| {
                let _exited = Count(&exited);
                claim(state);
            });
        }
        claim(mine);
        // Every chunk is claimed: the ones still running finish within one chunk's time.
        // Spinning for them (and for their threads to leave) keeps the caller from going to
        // sleep on the scope's latch, whose wake-up costs tens of microseconds in a VM. A
        // participant that has not started yet is waited for by the scope (it has no work).
        while done.load(Ordering::Acquire) < chunks {
            std::hint::spin_loop();
        }
        // Each participant past its last claim added one failed claim past `chunks` (the
        // caller's is the first); those still have to return.
        while exited.load(Ordering::Acquire) < next.load(Ordering::Relaxed).saturating_sub(chunks + 1) {
            std::hint::spin_loop();
        }
    });
    states
}

/// Adds one to a counter when dropped, unwinding included.
struct Count<'a>(&'a AtomicUsize);

impl Drop for Count<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn batch_pool_threads_run_below_the_callers_priority_and_share_rows() {
        let before = ragrank_core::background::current_nice();
        let (nice, name, rows) = batch_pool().install(|| {
            let states = share_rows(10_000, (64, 1024, 64), false, || 0usize, |n, r| *n += r.len());
            (
                ragrank_core::background::current_nice(),
                std::thread::current().name().map(str::to_owned),
                states.into_iter().sum::<usize>(),
            )
        });
        assert!(nice >= SEARCH_NICE.min(19) && nice >= before, "batch pool nice {nice}");
        assert!(name.is_some_and(|n| n.starts_with("ragrank-search-")));
        assert_eq!(rows, 10_000);
        assert_eq!(ragrank_core::background::current_nice(), before);
    }

    #[test]
    fn every_chunk_runs_exactly_once() {
        for (chunks, participants) in [(0, 2), (1, 4), (7, 2), (1000, 3), (5, 1)] {
            let states = share_chunks(chunks, participants, Vec::new, |seen: &mut Vec<usize>, c| seen.push(c));
            assert!(states.len() <= participants.max(1));
            let mut all: Vec<usize> = states.into_iter().flatten().collect();
            all.sort_unstable();
            assert_eq!(
                all,
                (0..chunks).collect::<Vec<_>>(),
                "{chunks} chunks, {participants} participants"
            );
        }
    }

    #[test]
    fn alternating_calls_cover_every_row_once_in_both_directions() {
        let mut backwards = Vec::new();
        for _ in 0..4 {
            let states = share_rows(1024, (64, 64, 64), true, Vec::new, |starts: &mut Vec<usize>, r| {
                starts.push(r.start)
            });
            // Each participant claims in the call's direction, so any two of its chunks show it.
            let two = states
                .iter()
                .find(|s| s.len() >= 2)
                .expect("16 chunks, at most 2 participants");
            backwards.push(two[0] > two[1]);
            let mut all: Vec<usize> = states.into_iter().flatten().collect();
            all.sort_unstable();
            assert_eq!(all, (0..1024).step_by(64).collect::<Vec<_>>());
        }
        // Only this test alternates, so its calls flip the direction one after the other.
        assert!(backwards.windows(2).all(|w| w[0] != w[1]), "{backwards:?}");
    }

    #[test]
    fn a_panic_in_any_participant_reaches_the_caller_instead_of_hanging() {
        for bad in [0, 1, 50, 99] {
            let result = std::panic::catch_unwind(|| {
                share_chunks(
                    100,
                    2,
                    || (),
                    |_, c| {
                        std::thread::sleep(std::time::Duration::from_micros(50));
                        assert!(c != bad, "chunk {bad} fails");
                    },
                )
            });
            assert!(result.is_err(), "chunk {bad}");
        }
    }
}
