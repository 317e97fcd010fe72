/**
 * Reading HTTP bodies with a bound: a server that sends more than asked for (a 600 MB reply, an
 * endless error page) costs at most the bound in memory, and the rest is never read.
 */
/** The body as text, or `undefined` when it has more than `max` bytes (then it is cancelled unread). */
export async function readCapped(res, max) {
    const announced = Number(res.headers.get('content-length') ?? Number.NaN);
    if (Number.isFinite(announced) && announced > max) {
        await res.body?.cancel().catch(() => { });
        return undefined;
    }
    const { text, more } = await readExcerpt(res, max);
    return more ? undefined : text;
}
/** At most `max` bytes of the body as text (for an error message), and whether more was left unread. */
export async function readExcerpt(res, max) {
    if (!res.body)
        return { text: '', more: false };
    const reader = res.body.getReader();
    const chunks = [];
    let bytes = 0;
    let more = false;
    try {
        for (;;) {
            const { done, value } = await reader.read();
            if (done)
                break;
            if (bytes + value.byteLength > max) {
                chunks.push(value.subarray(0, max - bytes));
                more = true;
                break;
            }
            chunks.push(value);
            bytes += value.byteLength;
        }
    }
    finally {
        reader.cancel().catch(() => { });
    }
    // fatal: false: an excerpt cut inside a character ends in U+FFFD instead of failing.
    return { text: new TextDecoder().decode(Buffer.concat(chunks)), more };
}
