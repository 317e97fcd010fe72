/**
 * Coalescing of concurrent single calls into batches (e.g. vector searches, rerank calls),
 * so a server doing `await index.searchAsync(q)` per request gets batch throughput.
 *
 * Adaptive: a call that finds nothing running is dispatched at once (on a microtask, so
 * the calls of one synchronous burst share a batch; no timer, no added latency). While a
 * batch runs, calls queue; when it completes, the queued calls (up to `maxBatch`) go as the
 * next batch. With `maxWaitMs` > 0, a call that finds nothing running also waits up to that
 * long for others (or until `maxBatch` are queued). Calls only share a batch with calls of
 * the same key (options that the batch cannot vary per call).
 *
 * Each caller keeps its own AbortSignal: an aborted caller rejects at once and leaves its
 * batch (or the queue); the batch itself is cancelled only when all its callers aborted. A
 * batch that fails is retried call by call, so an error reaches only the call that caused it.
 */
export interface CoalesceOptions {
    /** Calls per batch at most (default given by the owner, e.g. 64 queries). */
    maxBatch?: number;
    /** How long a call that finds nothing running waits for others, in ms (default 0: adaptive only). */
    maxWaitMs?: number;
}
/**
 * Runs one batch: one output per input, in order. `signal` fires when every caller aborted;
 * it is undefined when that cannot happen (a caller without a signal), so a batch of calls
 * that cannot be cancelled costs no AbortController and no listener.
 */
export type RunBatch<I, O> = (inputs: I[], signal: AbortSignal | undefined) => Promise<readonly O[]>;
/** `coalesce` as an owner's option: false (off), or `{ maxBatch?, maxWaitMs? }` over the defaults. */
export declare function coalesceOption(v: unknown, name: string, defaults: Required<CoalesceOptions>): Required<CoalesceOptions> | false;
export declare class Batcher<I, O> {
    #private;
    constructor(run: RunBatch<I, O>, options: Required<CoalesceOptions>);
    /** The result of `input` from the batch it joins (only with calls of the same `key`). */
    submit(key: string, input: I, signal?: AbortSignal): Promise<O>;
    /** Resolves once no call is queued or running (at once when idle): e.g. before freeing what batches use. */
    idle(): Promise<void>;
    /** Calls waiting for a batch. */
    get queued(): number;
}
