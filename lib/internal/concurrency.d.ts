/**
 * Maps `items` through `fn` with at most `limit` calls in flight; results keep the input
 * order. Rejects with the first failure, and starts no new call after it.
 */
export declare function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]>;
