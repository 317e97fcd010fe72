/** One hub request's plumbing: its watchdog (abort, stall, deadline), headers, and HTTP statuses as errors. */
import { RagrankError } from '../../errors.js';
import { type Context } from './context.js';
/**
 * Aborts a request when the caller's signal fires, when no progress is made for `ms`, or at the
 * call's deadline (progress does not move that one).
 */
export declare class Watchdog {
    private readonly ctx;
    readonly ms: number;
    readonly controller: AbortController;
    timedOut: boolean;
    pastDeadline: boolean;
    private readonly timer;
    private readonly deadlineTimer;
    private readonly onAbort;
    private readonly signal;
    constructor(ctx: Context, ms: number);
    kick(): void;
    dispose(): void;
    /** The error to report for a failed request `url`. */
    translate(err: unknown, url: string): Error;
}
export declare function requestHeaders(ctx: Context, url: string): Record<string, string>;
/** `"main"`, or `"main" (commit abc…)` when the request was pinned to the commit main resolved to. */
export declare const revisionLabel: (ctx: Context, used: string) => string;
export declare function statusError(ctx: Context, res: Response, name: string, used: string): RagrankError;
