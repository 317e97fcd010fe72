"""How often the event loop sleeps inside the memory allocator while the index takes writes.

    python3 bench/probes/alloc-sleeps.py [--docs 1000000] [--seconds 20] [--native path/to/ragrank.node] [--keep DIR]

Runs `SCHEDSTAT=1 SLOW=1 node bench/probes/sync-calls.mjs` (with NAPI_RS_NATIVE_LIBRARY_PATH=--native if given, to
A/B builds of the addon), and once its writes start records every switch-out of the event-loop thread with its
stack (`perf record --switch-events --call-graph dwarf -e sched:sched_switch -t <pid>`; `-m 2048` is needed, or
this perf writes no samples with a dwarf call graph). A switch-out in state S or D is a sleep; it lasts until the
thread's next PERF_RECORD_SWITCH IN (exact, no upper bound). A sleep is the allocator's when a user frame of its
stack is one (glibc's malloc/free/_int_free/arena code, mimalloc's mi_*, jemalloc's je_*): glibc's arena lock is a
futex, so those sleeps show `futex_wait` under `__lll_lock_wait` under `_int_free`/`malloc`. Prints, per 20 s of
recording: the loop's allocator sleeps (count, total ms, max ms), the call sites above the allocator, the other
non-idle sleeps, then the probe's own table (p50/p99/max per call, RSS, memoryBytes).

Symbols: glibc's internal functions need libc6-dbg; the addon's need an unstripped build
(`CARGO_PROFILE_RELEASE_STRIP=none cargo build --release`); perf's own threads share the 2 cores, so latencies are
a little worse than without the recording: compare builds in one sitting, alternating.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
# A frame of the allocator itself (glibc, mimalloc, jemalloc). Not memcpy/memmove: those are not allocator locks.
ALLOC = re.compile(
    r"^(__GI_)?(__libc_)?(malloc|free|cfree|realloc|calloc|memalign|posix_memalign|aligned_alloc)(@@.*)?$"
    r"|^_int_(malloc|free|realloc|memalign)|^_int_free_merge_chunk|^malloc_consolidate|^arena_get|^tcache_"
    r"|^sysmalloc|^systrim|^heap_trim|^__lll_lock_wait_private$"
    r"|^_?mi_|^mi_|^_?rjem_|^je_|^(_ZN\w*)?tikv_jemalloc|^__rust_(alloc|dealloc|realloc)|^__rdl_|^__rg_"
)
IDLE = ("do_epoll_wait",)  # the loop waiting for its next tick: not a stall (a futex wait is one)


def record(opts, workdir):
    env = dict(os.environ, SCHEDSTAT="1", SLOW="1", PROBE_MARK="1")
    if opts.native:
        env["NAPI_RS_NATIVE_LIBRARY_PATH"] = os.path.abspath(opts.native)
    log_path = os.path.join(workdir, "probe.log")
    perf_path = os.path.join(workdir, "probe.perf")
    log = open(log_path, "w")
    probe = subprocess.Popen(
        ["node", os.path.join(HERE, "sync-calls.mjs"), "--docs", str(opts.docs), "--seconds", str(opts.seconds)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    for line in probe.stderr:  # the 1M build takes a while; attach when the timed loop begins
        log.write(line)
        if "writes start" in line:
            break
    perf = subprocess.Popen(
        ["perf", "record", "-q", "-k", "CLOCK_MONOTONIC", "-m", "2048", "--switch-events",
         "--call-graph", "dwarf,16384", "-e", "sched:sched_switch", "-t", str(probe.pid), "-o", perf_path,
         "--", "sleep", str(max(1, opts.seconds - 1))],
        stderr=subprocess.DEVNULL,
    )
    for line in probe.stderr:
        log.write(line)
    out = probe.stdout.read()
    probe.wait()
    perf.wait()
    log.close()
    return perf_path, log_path, out


HEAD = re.compile(r"^\s*\S.*?\s+\d+\s+\[\d+\]\s+(\d+\.\d+):\s+(.*)")
FRAME = re.compile(r"^\s+[0-9a-f]+\s+(.*?)(\+0x[0-9a-f]+)?\s+\(([^()]*)\)$")


def sleeps(perf_path):
    """(start s, ms, state, frames) for every sleep of the recorded thread, frames innermost first; the span."""
    text = subprocess.run(["perf", "script", "--no-inline", "-i", perf_path, "--show-switch-events"],
                          capture_output=True, text=True, check=True).stdout
    out, pending, first, last = [], None, None, None
    for line in text.splitlines():
        m = HEAD.match(line)
        if not m:
            f = FRAME.match(line)
            if f and pending:  # kernel frames marked "k:", so that no kernel function passes for the allocator
                pending[2].append(("k:" if f.group(3) == "[kernel.kallsyms]" else "") + f.group(1))
            continue
        t, what = float(m.group(1)), m.group(2)
        first = t if first is None else first
        last = t
        if what.startswith("PERF_RECORD_SWITCH IN"):
            if pending:
                out.append((pending[0], (t - pending[0]) * 1000, pending[1], pending[2]))
            pending = None
        elif what.startswith("sched:sched_switch"):
            state = re.search(r"prev_state=(\S+)", what).group(1)
            pending = (t, state, []) if state[0] in "SD" else None  # R: preempted, not asleep
    return out, (last - first) if first is not None else 0.0


def caller(frames):
    """The two frames above the allocator's (who allocated or freed), Rust hashes dropped."""
    above, seen = [], False
    for f in frames:
        if ALLOC.search(f):
            seen = True
        elif seen and not f.startswith(("k:", "[unknown]", "0x")) and "raw_vec" not in f:
            above.append(re.sub(r"::h[0-9a-f]{16}$", "", f)[-70:])
            if len(above) == 2:
                break
    return " < ".join(above) or "?"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=1_000_000)
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--native", help="an addon build to load instead of the package's")
    ap.add_argument("--keep", help="keep probe.perf and probe.log in this folder")
    ap.add_argument("--analyze", nargs=2, metavar=("PERF", "LOG"), help="only analyze an earlier recording")
    opts = ap.parse_args()
    if opts.analyze:
        perf_path, log_path, out = *opts.analyze, ""
    else:
        workdir = opts.keep or tempfile.mkdtemp(prefix="alloc-sleeps-")
        os.makedirs(workdir, exist_ok=True)
        perf_path, log_path, out = record(opts, workdir)
    all_sleeps, span = sleeps(perf_path)
    per20 = 20 / span if span > 0 else 0
    alloc = [s for s in all_sleeps if any(ALLOC.search(f) for f in s[3])]
    other = [s for s in all_sleeps if s not in alloc and not any(i in f for f in s[3] for i in IDLE)]

    def summary(xs):
        ms = [x[1] for x in xs]
        return (f"{len(xs) * per20:.0f} sleeps, {sum(ms) * per20:.1f} ms in all, max {max(ms, default=0):.2f} ms, "
                f"{sum(m > 1 for m in ms) * per20:.0f} over 1 ms")

    print(f"recorded {span:.1f} s of the event-loop thread: {len(all_sleeps)} sleeps; per 20 s:")
    print(f"  in the allocator: {summary(alloc)}")
    futex = [s for s in alloc if any(f.startswith(("k:futex_wait", "__lll_lock_wait")) for f in s[3])]
    print(f"    of which on a lock (futex): {summary(futex)}")
    print(f"  other non-idle sleeps: {summary(other)}")
    by = defaultdict(list)
    for s in alloc:
        by[caller(s[3])].append(s[1])
    if by:
        print("  allocator sleeps by caller (count, total ms, max ms):")
        for name, ms in sorted(by.items(), key=lambda kv: -sum(kv[1]))[:8]:
            print(f"    {len(ms):4d} {sum(ms):8.2f} {max(ms):7.2f}  {name}")
    leaf = Counter()
    for s in other:
        user = [f for f in s[3] if not f.startswith(("k:", "[unknown]", "0x"))]
        kernel = [f[2:] for f in s[3] if f.startswith("k:") and not f.startswith(("k:__schedule", "k:schedule"))]
        leaf[(kernel[0] if kernel else "?") + " <- " + " < ".join(user[:2])] += s[1]
    if leaf:
        print("  other sleeps by kernel wait <- first user frame (total ms):")
        for name, ms in leaf.most_common(5):
            print(f"    {ms:8.2f}  {name[:120]}")
    # Slow calls the probe logged inside the recording; those that slept in the allocator, with its share.
    slow, names = [], Counter()
    for line in open(log_path):
        m = re.search(r"slow: (.+?) ([\d.]+) ms .*monotonic ([\d.]+) s(.*)", line)
        if m:
            names[m.group(1)] += 1
            t0, ms = float(m.group(3)), float(m.group(2))
            asleep = sum(min(s[1], (t0 + ms / 1000 - s[0]) * 1000) for s in alloc if t0 <= s[0] < t0 + ms / 1000)
            if asleep > 0:
                slow.append(f"  {m.group(1)} {ms:.1f} ms{m.group(4)}; asleep in the allocator {asleep:.1f} ms")
    print(f"slow calls (> 5 ms): {', '.join(f'{n} {k}' for k, n in names.most_common()) or 'none'}")
    print("\n".join(slow))
    sys.stdout.write(out)


if __name__ == "__main__":
    main()
