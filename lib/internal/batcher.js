import { AbortError, rangeError, typeError } from '../errors.js';
import { isPlainObject, optionKeys, checkKeys, readValue } from './validate.js';
/** Longest wait accepted: a coalescing wait is meant to be short. */
const MAX_WAIT_MS = 1000;
const COALESCE_KEYS = optionKeys('maxBatch', 'maxWaitMs');
/** Callers resolved per loop turn when a batch completes (see #resolveInSlices). */
const SETTLE_SLICE = 8;
/** `coalesce` as an owner's option: false (off), or `{ maxBatch?, maxWaitMs? }` over the defaults. */
export function coalesceOption(v, name, defaults) {
    if (v === undefined || v === true)
        return defaults;
    if (v === false)
        return false;
    if (!isPlainObject(v))
        throw typeError(`${name} must be false or an object { maxBatch?, maxWaitMs? }`);
    checkKeys(v, COALESCE_KEYS, name);
    const maxBatch = readValue(() => v.maxBatch) ?? defaults.maxBatch;
    const maxWaitMs = readValue(() => v.maxWaitMs) ?? defaults.maxWaitMs;
    if (typeof maxBatch !== 'number' || !Number.isInteger(maxBatch)) {
        throw typeError(`${name}.maxBatch must be an integer`);
    }
    if (maxBatch < 1 || maxBatch > 65536)
        throw rangeError(`${name}.maxBatch must be in [1, 65536], got ${maxBatch}`);
    if (typeof maxWaitMs !== 'number' || Number.isNaN(maxWaitMs))
        throw typeError(`${name}.maxWaitMs must be a number`);
    if (maxWaitMs < 0 || maxWaitMs > MAX_WAIT_MS) {
        throw rangeError(`${name}.maxWaitMs must be in [0, ${MAX_WAIT_MS}], got ${maxWaitMs}`);
    }
    return { maxBatch, maxWaitMs };
}
export class Batcher {
    #run;
    #maxBatch;
    #maxWaitMs;
    #queues = new Map();
    #seq = 0;
    #running = false;
    #scheduled = false;
    #timer;
    #drained = [];
    /** Completed batches whose callers are still being resolved, slice by slice. */
    #settling = 0;
    constructor(run, options) {
        this.#run = run;
        this.#maxBatch = options.maxBatch;
        this.#maxWaitMs = options.maxWaitMs;
    }
    /** The result of `input` from the batch it joins (only with calls of the same `key`). */
    submit(key, input, signal) {
        if (signal?.aborted)
            return Promise.reject(new AbortError());
        return new Promise((resolve, reject) => {
            const entry = { input, seq: this.#seq++, resolve, reject, settled: false, signal };
            if (signal) {
                entry.onAbort = () => this.#abort(entry);
                signal.addEventListener('abort', entry.onAbort, { once: true });
            }
            const queue = this.#queues.get(key);
            if (queue)
                queue.push(entry);
            else
                this.#queues.set(key, [entry]);
            this.#kick(queue?.length ?? 1);
        });
    }
    /** Resolves once no call is queued or running (at once when idle): e.g. before freeing what batches use. */
    idle() {
        if (this.#isIdle())
            return Promise.resolve();
        return new Promise((resolve) => this.#drained.push(resolve));
    }
    /** Calls waiting for a batch. */
    get queued() {
        let n = 0;
        for (const q of this.#queues.values())
            n += q.length;
        return n;
    }
    #kick(queueLength) {
        if (this.#running)
            return; // the running batch's completion dispatches the next
        if (this.#maxWaitMs === 0 || queueLength >= this.#maxBatch) {
            if (this.#timer !== undefined) {
                clearTimeout(this.#timer);
                this.#timer = undefined;
            }
            if (!this.#scheduled) {
                this.#scheduled = true;
                queueMicrotask(() => {
                    this.#scheduled = false;
                    this.#dispatch();
                });
            }
        }
        else if (this.#timer === undefined) {
            this.#timer = setTimeout(() => {
                this.#timer = undefined;
                this.#dispatch();
            }, this.#maxWaitMs);
        }
    }
    /** Sends the queue whose first call has waited longest, up to `maxBatch` calls. */
    #dispatch() {
        if (this.#running)
            return;
        let key;
        let oldest = Infinity;
        for (const [k, q] of this.#queues) {
            if (q[0].seq < oldest) {
                oldest = q[0].seq;
                key = k;
            }
        }
        if (key === undefined)
            return;
        const queue = this.#queues.get(key);
        const entries = queue.splice(0, this.#maxBatch);
        if (queue.length === 0)
            this.#queues.delete(key);
        this.#running = true;
        // `then`, not `finally`: #execute never rejects, and `finally` costs a species lookup and two more promises.
        this.#execute(entries).then(this.#done);
    }
    #done = () => {
        this.#running = false;
        // What queued meanwhile goes at once: waiting longer would only add latency.
        if (this.#queues.size > 0)
            this.#dispatch();
        else
            this.#notifyIdle();
    };
    #isIdle() {
        return !this.#running && this.#queues.size === 0 && this.#settling === 0;
    }
    #notifyIdle() {
        if (this.#isIdle())
            for (const resolve of this.#drained.splice(0))
                resolve();
    }
    async #execute(entries) {
        const batch = { live: entries.length };
        for (const e of entries)
            e.batch = batch;
        try {
            const out = await this.#run(entries.map((e) => e.input), batchSignal(entries, batch));
            if (out.length !== entries.length)
                throw new Error(`a batch of ${entries.length} gave ${out.length} results`);
            this.#resolveInSlices(entries, out, 0, false);
        }
        catch (error) {
            const left = entries.filter((e) => !e.settled);
            if (left.length === 1 || entries.length === 1) {
                for (const e of left)
                    this.#settle(e, () => e.reject(error));
                return;
            }
            // One bad call fails the whole batch: run each alone, so each gets its own outcome.
            await Promise.all(left.map(async (e) => {
                e.batch = { live: 1 };
                try {
                    const [o] = await this.#run([e.input], e.signal);
                    this.#settle(e, () => e.resolve(o));
                }
                catch (err) {
                    this.#settle(e, () => e.reject(err));
                }
            }));
        }
    }
    /**
     * Resolves `SETTLE_SLICE` callers now and the rest on later loop turns. Each resolved caller's
     * continuation (in a server: serializing and writing its reply) runs in the same macrotask as
     * its resolve, so settling 64 at once held the event loop for the replies of all 64; between
     * slices, timers and other sockets get their turn. The next batch does not wait for the slices.
     */
    #resolveInSlices(entries, out, from, deferred) {
        const end = Math.min(from + SETTLE_SLICE, entries.length);
        for (let i = from; i < end; i++) {
            const e = entries[i];
            this.#settle(e, () => e.resolve(out[i]));
        }
        if (end < entries.length) {
            if (!deferred)
                this.#settling++;
            setImmediate(() => this.#resolveInSlices(entries, out, end, true));
        }
        else if (deferred) {
            this.#settling--;
            this.#notifyIdle();
        }
    }
    #settle(e, done) {
        if (e.settled)
            return;
        e.settled = true;
        if (e.onAbort)
            e.signal?.removeEventListener('abort', e.onAbort);
        done();
    }
    #abort(e) {
        if (e.settled)
            return;
        if (e.batch === undefined) {
            // Still queued: leave the queue.
            for (const [k, q] of this.#queues) {
                const i = q.indexOf(e);
                if (i >= 0) {
                    q.splice(i, 1);
                    if (q.length === 0)
                        this.#queues.delete(k);
                    break;
                }
            }
        }
        else if (--e.batch.live === 0) {
            e.batch.controller?.abort();
        }
        this.#settle(e, () => e.reject(new AbortError()));
    }
}
/**
 * The signal a batch runs under: the caller's own for a batch of one (it aborts exactly when
 * that caller does), none when some caller has no signal (the batch can never be abandoned by
 * all), else one that `#abort` fires when the last caller leaves. An AbortController and a
 * listener per batch were a measurable share of a one-query BM25 search.
 */
function batchSignal(entries, batch) {
    if (entries.length === 1)
        return entries[0].signal;
    if (entries.some((e) => e.signal === undefined))
        return undefined;
    batch.controller = new AbortController();
    return batch.controller.signal;
}
