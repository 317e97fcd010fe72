/**
 * Reading HTTP bodies with a bound: a server that sends more than asked for (a 600 MB reply, an
 * endless error page) costs at most the bound in memory, and the rest is never read.
 */
/** The body as text, or `undefined` when it has more than `max` bytes (then it is cancelled unread). */
export declare function readCapped(res: Response, max: number): Promise<string | undefined>;
/** At most `max` bytes of the body as text (for an error message), and whether more was left unread. */
export declare function readExcerpt(res: Response, max: number): Promise<{
    text: string;
    more: boolean;
}>;
