import { AbortError } from '../errors.js';
import { abortable, childController } from '../internal/abort.js';
import { mapLimit } from '../internal/concurrency.js';
import { retrievedList, withFilter } from './retriever.js';
/**
 * The fan-out of the composite retrievers (hybrid, multi-query): runs the child retrievals,
 * at most `concurrency` at once, under one child signal of the caller's. The first failure
 * aborts the others and rejects, unless `recover` turns it into a list (the composite then
 * fuses without it). An abort of the caller's signal always rejects with an AbortError.
 */
export async function retrieveAll(calls, concurrency, signal, recover) {
    const { controller, dispose } = childController(signal);
    try {
        return await mapLimit(calls, concurrency, async (c, i) => {
            try {
                const hits = await abortable(c.retriever.retrieve(c.query, { topK: c.depth, signal: controller.signal, ...withFilter(c.filter) }), controller.signal);
                return retrievedList(hits, c.depth, c.who);
            }
            catch (e) {
                if (signal?.aborted)
                    throw new AbortError();
                if (recover)
                    return recover(e, i);
                controller.abort(); // stop the children still running
                throw e;
            }
        });
    }
    finally {
        dispose();
    }
}
