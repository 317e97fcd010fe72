/** What the hub modules share: one call's context, file metadata, the hub's errors and its bounds. */
import { describe, RagrankError, rangeError, typeError } from '../../errors.js';
/** The cap of {@link HubOptions.maxBytes}: a file of unknown size stops past 2 GiB. */
export const DEFAULT_HUB_MAX_BYTES = 2 ** 31;
/** The default of {@link HubOptions.timeoutMs}: one hour for one call, every file included. */
export const DEFAULT_HUB_TIMEOUT_MS = 3_600_000;
export function hubError(code, message, extra = {}) {
    const err = new RagrankError(code, message);
    if (extra.status !== undefined)
        Object.assign(err, { status: extra.status });
    if (extra.cause !== undefined)
        err.cause = extra.cause;
    return err;
}
/** Failures after which a cached copy may be used instead (unreachable, timed out, 5xx). */
export const transient = new WeakSet();
export const transientError = (message, extra = {}) => {
    const err = hubError('ERR_NETWORK', message, extra);
    transient.add(err);
    return err;
};
export function ioError(err, what) {
    if (err instanceof RagrankError)
        return err;
    const e = err;
    return new RagrankError('ERR_IO', `${what}: ${e?.message ?? String(err)}`);
}
export function timeoutOption(v) {
    if (v === undefined)
        return DEFAULT_HUB_TIMEOUT_MS;
    if (typeof v !== 'number')
        throw typeError(`options.timeoutMs must be a number, got ${describe(v)}`);
    if (!(v > 0))
        throw rangeError(`options.timeoutMs must be a positive number of milliseconds, got ${v}`);
    return v;
}
/** The deadline of `options.timeoutMs` from now: one for every `resolveHubFiles` of a model load. */
export function hubDeadline(timeoutMs) {
    const ms = timeoutOption(timeoutMs);
    return { at: Date.now() + ms, ms };
}
export function maxBytesOption(v) {
    if (v === undefined)
        return DEFAULT_HUB_MAX_BYTES;
    if (typeof v !== 'number')
        throw typeError(`options.maxBytes must be a number, got ${describe(v)}`);
    if (!(v === Infinity || (Number.isSafeInteger(v) && v > 0)))
        throw rangeError(`options.maxBytes must be a positive integer (or Infinity), got ${v}`);
    return v;
}
