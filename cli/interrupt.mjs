// Ctrl-C aborts the running work; saves are atomic, so no half-written file stays behind. bin/ragrank.mjs imports
// this module first, so the handler is in place before the native addon and the rest load (that takes a moment, and
// a Ctrl-C in it would otherwise be lost when the shell started ragrank with SIGINT ignored).
export const interrupt = new AbortController()
process.once('SIGINT', () => interrupt.abort())
