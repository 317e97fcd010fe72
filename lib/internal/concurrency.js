/**
 * Maps `items` through `fn` with at most `limit` calls in flight; results keep the input
 * order. Rejects with the first failure, and starts no new call after it.
 */
export async function mapLimit(items, limit, fn) {
    const results = new Array(items.length);
    let next = 0;
    let failed = false;
    const worker = async () => {
        while (!failed && next < items.length) {
            const i = next++;
            try {
                results[i] = await fn(items[i], i);
            }
            catch (e) {
                failed = true;
                throw e;
            }
        }
    };
    await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
    return results;
}
