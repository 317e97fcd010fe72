//! Maintenance work (index builds from `addAsync`, merges, saves, precomputes, frees) runs
//! at a lower CPU priority than the caller's threads, so it yields the cores to the JS
//! event loop instead of sharing them with it.
//!
//! On 2 cores, a merge thread, a save and the event loop are three runnable threads: the
//! scheduler then preempts the loop for a time slice of several milliseconds, in the middle
//! of a sync call that needs well under one (measured: single-document adds of 5.6 and 9.6
//! ms, 5.4-5.5 ms of them preempted, while merges and a save ran). A niced thread loses
//! every such contest and still runs at full speed on an otherwise idle core.
//!
//! Niced is not enough on its own: a sync write on the event loop used to wake the BM25
//! worker and the reaper (a futex wake each), and the scheduler often switched the loop out
//! for the woken thread on the way back from that syscall (an enqueue on the loop's CPU
//! after the loop's slice ran out reschedules it); the loop then waited for the next tick
//! (4 ms at HZ=250) while the worker merged. So writes no longer wake those threads while
//! they are active (`bm25::live`), and background threads take the `SCHED_BATCH` policy:
//! the same nice weight (their share of a contended core is unchanged), but a waking batch
//! thread never preempts a running normal one on its own account.
//!
//! Only threads ragrank owns are lowered: a pool shared by the process (libuv's, rayon's
//! global one) serves other work too, and an unprivileged thread cannot raise its priority
//! back once it has lowered it.
use std::sync::OnceLock;

/// The default nice value of background threads: a nice-0 thread outweighs a nice-10 one
/// about 9 to 1 (the kernel's weights 1024 and 110), so contended work still progresses.
pub const NICE: i32 = 10;

/// The nice value background threads take: `RAGRANK_BACKGROUND_NICE` (0-19; 0 leaves
/// them at the process's priority and policy), else `NICE`.
pub fn nice() -> i32 {
    static VALUE: OnceLock<i32> = OnceLock::new();
    *VALUE.get_or_init(|| {
        std::env::var("RAGRANK_BACKGROUND_NICE")
            .ok()
            .and_then(|v| v.trim().parse::<i32>().ok())
            .map_or(NICE, |v| v.clamp(0, 19))
    })
}

/// Lowers the calling thread's CPU priority to `nice()` (never raises it: a process started
/// under `nice 15` keeps 15) and, unless `nice()` is 0, moves a `SCHED_OTHER` thread to
/// `SCHED_BATCH` (see the module comment); for threads ragrank starts for its own
/// maintenance. Best effort: a system that refuses leaves the thread as it was.
pub fn lower_current_thread() {
    lower_current_thread_to(nice(), true);
}

/// Lowers the calling thread's nice value to `want` (never raises it; 0 does nothing) and,
/// with `batch_policy`, moves a `SCHED_OTHER` thread to `SCHED_BATCH`. For pools whose work
/// a caller waits for but that should still yield to the event loop (`lower_current_thread`
/// is the maintenance case). Best effort, as there.
pub fn lower_current_thread_to(want: i32, batch_policy: bool) {
    #[cfg(not(target_os = "linux"))]
    let _ = (want, batch_policy);
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority and sched_setscheduler only set the calling thread's scheduling
    // attributes; on Linux a thread id given as the pid applies to that thread alone, and
    // sched_setscheduler keeps the nice value of a SCHED_OTHER/SCHED_BATCH thread.
    unsafe {
        let now = current_nice();
        if want <= 0 {
            return;
        }
        let tid = libc::gettid();
        if want > now {
            let _ = libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, want.min(19));
        }
        if batch_policy && libc::sched_getscheduler(tid) == libc::SCHED_OTHER {
            let param = libc::sched_param { sched_priority: 0 };
            let _ = libc::sched_setscheduler(tid, libc::SCHED_BATCH, &param);
        }
    }
}

/// The calling thread's nice value (Linux), for tests and diagnostics.
#[cfg(target_os = "linux")]
pub fn current_nice() -> i32 {
    // SAFETY: as above; errno is cleared first because -1 is also a valid priority.
    unsafe {
        *libc::__errno_location() = 0;
        libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t)
    }
}

/// Runs `work` on the background pool (niced threads, one per core) and returns its result;
/// the caller sleeps meanwhile. Parallel iterators inside `work` share the same pool, so an
/// `addAsync`'s analysis is niced too.
pub fn run<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    pool().install(work)
}

fn pool() -> &'static rayon::ThreadPool {
    static POOL: OnceLock<rayon::ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("ragrank-bg-{i}"))
            .start_handler(|_| lower_current_thread())
            .build()
            .expect("a thread pool")
    })
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn current_policy() -> i32 {
        // SAFETY: reads the calling thread's policy.
        unsafe { libc::sched_getscheduler(libc::gettid()) }
    }

    #[test]
    fn background_work_runs_niced_as_batch_and_returns_its_result() {
        let (before, policy_before) = (current_nice(), current_policy());
        let (nice, policy, sum) = run(|| {
            use rayon::prelude::*;
            let sum: u64 = (0..1000u64).into_par_iter().sum();
            (current_nice(), current_policy(), sum)
        });
        assert!(
            nice >= NICE && nice >= before,
            "background nice {nice}, caller {before}"
        );
        assert_eq!(policy, libc::SCHED_BATCH);
        assert_eq!(sum, 499_500);
        // The caller keeps its own priority and policy.
        assert_eq!(current_nice(), before);
        assert_eq!(current_policy(), policy_before);
    }
}
