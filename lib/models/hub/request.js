/** One hub request's plumbing: its watchdog (abort, stall, deadline), headers, and HTTP statuses as errors. */
import { AbortError, RagrankError } from '../../errors.js';
import { hubError, transientError } from './context.js';
/**
 * Aborts a request when the caller's signal fires, when no progress is made for `ms`, or at the
 * call's deadline (progress does not move that one).
 */
export class Watchdog {
    ctx;
    ms;
    controller = new AbortController();
    timedOut = false;
    pastDeadline = false;
    timer;
    deadlineTimer;
    onAbort = () => this.controller.abort();
    signal;
    constructor(ctx, ms) {
        this.ctx = ctx;
        this.ms = ms;
        this.signal = ctx.signal;
        this.timer = setTimeout(() => {
            this.timedOut = true;
            this.controller.abort();
        }, ms);
        const left = ctx.deadline.at - Date.now();
        if (left <= 0) {
            this.pastDeadline = true;
            this.controller.abort();
        }
        else if (Number.isFinite(left)) {
            // Past 2^31 - 1 ms setTimeout fires at once; a deadline that far away is no deadline.
            if (left < 2 ** 31 - 1)
                this.deadlineTimer = setTimeout(() => {
                    this.pastDeadline = true;
                    this.controller.abort();
                }, left);
        }
        // A signal aborted before this request started fires no event: abort now, not never.
        if (this.signal?.aborted)
            this.controller.abort();
        else
            this.signal?.addEventListener('abort', this.onAbort, { once: true });
    }
    kick() {
        this.timer.refresh();
    }
    dispose() {
        clearTimeout(this.timer);
        clearTimeout(this.deadlineTimer);
        this.signal?.removeEventListener('abort', this.onAbort);
    }
    /** The error to report for a failed request `url`. */
    translate(err, url) {
        const ctx = this.ctx;
        if (this.signal?.aborted)
            return new AbortError();
        if (err instanceof RagrankError)
            return err;
        if (this.pastDeadline)
            return transientError(`The hub downloads of ${ctx.repoId} did not finish within ${ctx.deadline.ms} ms (options.timeoutMs) ` +
                `waiting for ${url} (hub endpoint ${ctx.endpoint})`);
        if (this.timedOut)
            return transientError(`Timed out after ${this.ms / 1000}s waiting for ${url} (hub endpoint ${ctx.endpoint})`);
        const cause = err?.cause;
        const detail = cause?.code ?? cause?.message ?? err?.message ?? String(err);
        return transientError(`Could not reach the Hugging Face hub at ${ctx.endpoint} (${detail}) fetching ${url}`, {
            cause: err,
        });
    }
}
export function requestHeaders(ctx, url) {
    const headers = {
        'user-agent': `ragrank; node/${process.versions.node}`,
        'accept-encoding': 'identity',
    };
    const token = ctx.token();
    // The token goes to the hub only, never to the CDN it redirects downloads to.
    if (token && new URL(url).origin === new URL(ctx.endpoint).origin)
        headers.authorization = `Bearer ${token}`;
    return headers;
}
/** `"main"`, or `"main" (commit abc…)` when the request was pinned to the commit main resolved to. */
export const revisionLabel = (ctx, used) => used === ctx.revision ? JSON.stringify(ctx.revision) : `${JSON.stringify(ctx.revision)} (commit ${used})`;
export function statusError(ctx, res, name, used) {
    const revision = revisionLabel(ctx, used);
    const status = res.status;
    const hubCode = res.headers.get('x-error-code');
    const hubMessage = res.headers.get('x-error-message');
    const said = hubMessage ? ` The hub said: ${hubMessage}` : '';
    const hadToken = ctx.token() !== undefined;
    if (hubCode === 'RepoNotFound') {
        const hint = hadToken
            ? ' Check the id, and that the token (HF_TOKEN or options.token) can read it.'
            : ' Check the id; if the repo is private or gated, set HF_TOKEN (or pass options.token).';
        const message = `Model repo ${ctx.repoId} was not found on ${ctx.endpoint} (HTTP ${status}).${hint}${said}`;
        return hubError('ERR_MODEL_NOT_FOUND', message, { status });
    }
    if (hubCode === 'RevisionNotFound') {
        const message = `Revision ${revision} of model repo ${ctx.repoId} was not found on ${ctx.endpoint} (HTTP ${status}).${said}`;
        return hubError('ERR_MODEL_NOT_FOUND', message, { status });
    }
    if (status === 401 || status === 403) {
        const what = hubCode === 'GatedRepo'
            ? `Model repo ${ctx.repoId} is gated: accept its terms on the hub, then use a token of that account`
            : `Access to ${name} of model repo ${ctx.repoId} was denied`;
        const hint = hadToken
            ? 'check the token given by HF_TOKEN or options.token'
            : 'set HF_TOKEN (or pass options.token) to a Hugging Face access token';
        return hubError('ERR_UNAUTHORIZED', `${what} (HTTP ${status}): ${hint}.${said}`, { status });
    }
    if (status === 404) {
        const message = `File ${name} was not found in model repo ${ctx.repoId} at revision ${revision} (${ctx.endpoint}).${said}`;
        return hubError('ERR_MODEL_NOT_FOUND', message, { status });
    }
    const message = `Unexpected HTTP ${status} from the Hugging Face hub at ${ctx.endpoint} for ${name} of ${ctx.repoId}.${said}`;
    return status >= 500 || status === 429
        ? transientError(message, { status })
        : hubError('ERR_NETWORK', message, { status });
}
