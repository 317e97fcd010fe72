/**
 * Runs `parts` native calls one after another so that the event loop's share of one part
 * overlaps the pool's work on another: part i + 1 is prepared while part i runs, and started
 * before part i's result is converted. With one big call the cores sat idle while the event
 * loop built its arguments and converted its results. Results in part order; rejects with
 * the first failure and starts no part after it.
 */
export async function pipeline(parts, prepare, start, convert) {
    const out = [];
    if (parts <= 0)
        return out;
    const launch = (args) => {
        const p = start(args);
        // Awaited below; this only keeps a part that fails while an earlier one converts from being reported unhandled.
        p.catch(() => { });
        return p;
    };
    let running = launch(prepare(0));
    for (let i = 0; i < parts; i++) {
        const next = i + 1 < parts ? prepare(i + 1) : undefined;
        const result = await running;
        if (next !== undefined)
            running = launch(next);
        convert(result, out);
    }
    return out;
}
/** How many parts a batch of `n` items is cut into: about `size` items each, at most `max` parts. */
export function partCount(n, size, max) {
    return Math.min(max, Math.max(1, Math.round(n / size)));
}
