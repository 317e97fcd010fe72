/**
 * Runs `parts` native calls one after another so that the event loop's share of one part
 * overlaps the pool's work on another: part i + 1 is prepared while part i runs, and started
 * before part i's result is converted. With one big call the cores sat idle while the event
 * loop built its arguments and converted its results. Results in part order; rejects with
 * the first failure and starts no part after it.
 */
export declare function pipeline<A, R, T>(parts: number, prepare: (part: number) => A, start: (args: A) => Promise<R>, convert: (result: R, out: T[]) => void): Promise<T[]>;
/** How many parts a batch of `n` items is cut into: about `size` items each, at most `max` parts. */
export declare function partCount(n: number, size: number, max: number): number;
