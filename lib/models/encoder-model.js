import { RagrankError } from '../errors.js';
/** What `CrossEncoder` and `Embedder` share: a loaded native encoder, where it came from, and its disposal. */
export class EncoderModel {
    /** The files the model was loaded from. */
    files;
    /** Sessions, threads per session and batching defaults chosen at load. */
    runtime;
    encoder;
    #disposed = false;
    constructor(encoder, files, runtime) {
        this.encoder = encoder;
        this.files = files;
        this.runtime = runtime;
    }
    /**
     * Frees the ONNX Runtime sessions and the memory they keep (a session holds on to the
     * buffers of its largest batch). Calls already running finish first; later calls reject
     * with `ERR_DISPOSED`. Calling it again does nothing.
     */
    dispose() {
        if (this.#disposed)
            return;
        this.#disposed = true;
        // Calls accepted before dispose but still waiting in a coalescing queue count as running.
        const accepted = this.acceptedWork();
        if (accepted)
            void accepted.then(() => this.encoder.dispose());
        else
            this.encoder.dispose();
    }
    /** Work accepted but maybe not yet started (a coalescing queue): dispose frees the sessions after it. */
    acceptedWork() {
        return undefined;
    }
    /** Tokens per input (a text, or a query-document pair) at most. */
    get maxLength() {
        return this.encoder.maxLength;
    }
    /** Throws `ERR_DISPOSED` once `dispose` was called: the first step of every model call. */
    checkOpen() {
        if (this.#disposed)
            throw new RagrankError('ERR_DISPOSED', `this ${this.constructor.name} was disposed`);
    }
}
