import type { NativeEncoder } from '../../index.js';
import type { EncoderRuntime } from './encoder.js';
import type { ModelFiles } from './model-files.js';
/** What `CrossEncoder` and `Embedder` share: a loaded native encoder, where it came from, and its disposal. */
export declare abstract class EncoderModel {
    #private;
    /** The files the model was loaded from. */
    readonly files: ModelFiles;
    /** Sessions, threads per session and batching defaults chosen at load. */
    readonly runtime: EncoderRuntime;
    protected readonly encoder: NativeEncoder;
    protected constructor(encoder: NativeEncoder, files: ModelFiles, runtime: EncoderRuntime);
    /**
     * Frees the ONNX Runtime sessions and the memory they keep (a session holds on to the
     * buffers of its largest batch). Calls already running finish first; later calls reject
     * with `ERR_DISPOSED`. Calling it again does nothing.
     */
    dispose(): void;
    /** Work accepted but maybe not yet started (a coalescing queue): dispose frees the sessions after it. */
    protected acceptedWork(): Promise<void> | undefined;
    /** Tokens per input (a text, or a query-document pair) at most. */
    get maxLength(): number;
    /** Throws `ERR_DISPOSED` once `dispose` was called: the first step of every model call. */
    protected checkOpen(): void;
}
