"""Why each slow sync call of bench/probes/sync-calls.mjs was slow: on the CPU, preempted, or blocked.

    PROBE_MARK=1 SLOW=1 node bench/probes/sync-calls.mjs ... 2> probe.log &
    # once probe.log says "writes start":
    perf record -k CLOCK_MONOTONIC --call-graph dwarf,12288 -m 2048 -e cpu-clock/freq=500/ -e sched:sched_switch \
        -t <pid> -o probe.perf -- sleep 8

The sample rate goes on cpu-clock alone: `-F` applies to every event, and a frequency-sampled sched_switch keeps only
some of the switches (perf evlist -v shows `freq: 1` on it), so a preempted call looked as if it ran on the CPU.
(SCHEDSTAT=1 on the probe tells preempted from on-CPU without perf.)
    python3 bench/probes/offcpu.py probe.perf probe.log

For every slow call the probe logged inside the recording (its "monotonic" start, the clock perf was told to
use), the time the event-loop thread spent switched out, by the state it left in: R = runnable but preempted
(the machine is oversubscribed), S/D = sleeping (a lock, a futex, I/O). A call with no switch-out ran on the CPU.
The off-CPU span runs from a switch-out to the thread's next event (perf -p sees no switch-in from another process),
so it is an upper bound within one sample.
"""
import re
import subprocess
import sys
from collections import Counter


def perf_script(*args):
    return subprocess.run(["perf", "script", *args], capture_output=True, text=True, check=True).stdout


def main(perf, log):
    threads = Counter(l.split()[1] for l in perf_script("-i", perf, "-F", "comm,tid").splitlines()
                      if l.strip().startswith("node "))
    loop = threads.most_common(1)[0][0]  # the event loop has the most events
    events = []
    for line in perf_script("-i", perf, "--tid", loop).splitlines():
        m = re.match(r"\s*\S+\s+\d+\s+(?:\[\d+\]\s+)?(\d+\.\d+):\s+(\S+)", line)
        if m:
            state = re.search(r"prev_state=(\S+)", line) if "sched_switch" in m.group(2) else None
            events.append((float(m.group(1)), state and state.group(1)))
    offs = [(t, s, events[i + 1][0]) for i, (t, s) in enumerate(events[:-1]) if s]
    first = events[0][0]
    slow = []
    for line in open(log):
        m = re.search(r"slow: (.+?) ([\d.]+) ms .*monotonic ([\d.]+) s", line)
        if m and float(m.group(3)) >= first:
            slow.append((m.group(1), float(m.group(2)), float(m.group(3))))
    print(f"event loop thread {loop}: {len(slow)} slow calls inside the recording")
    print("| call | ms | off-CPU ms by state |\n| --- | ---: | --- |")
    for name, ms, t0 in sorted(slow, key=lambda c: -c[1]):
        by = Counter()
        for a, state, b in offs:
            # A switch-out before t0 ended before it: the thread was running the call at t0.
            overlap = min(b, t0 + ms / 1000) - a
            if a >= t0 and overlap > 0:
                by[state] += overlap * 1000
        states = ", ".join(f"{s} {v:.1f}" for s, v in by.items() if v >= 0.05) or "none (on the CPU)"
        print(f"| {name} | {ms:.1f} | {states} |")


if __name__ == "__main__":
    main(*sys.argv[1:3])
