// The external-data walk of one ONNX graph on a worker thread (see `walkExternalData`): its result, or its
// error as plain fields, since a RagrankError does not survive the structured clone as one.
import { parentPort, workerData } from 'node:worker_threads';
import { RagrankError } from '../errors.js';
import { externalDataOf } from './onnx-external-data.js';
try {
    parentPort?.postMessage({ refs: externalDataOf(workerData) });
}
catch (e) {
    const code = e instanceof RagrankError ? e.code : undefined;
    parentPort?.postMessage({ error: { code, message: e instanceof Error ? e.message : String(e) } });
}
