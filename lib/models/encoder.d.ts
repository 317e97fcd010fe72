import type { NativeEncoder } from '../../index.js';
import { native } from '../internal/native.js';
import { type ModelFiles, type ModelSourceOptions, type ResolveWhat } from './model-files.js';
import { type PaddingSide, type Pooling } from './sentence-transformers.js';
/** Options shared by `CrossEncoder.load` and `Embedder.load`. */
export interface LoadOptions extends ModelSourceOptions {
    /**
     * Tokens per input. Default: sentence-transformers' `max_seq_length` (embedders), else the
     * tokenizer's `model_max_length`, else 512. Either way, and when given, it is clamped to what the
     * model's position table holds (`max_position_embeddings`, less `pad_token_id + 1` for
     * RoBERTa / XLM-R-style models): the `maxLength` getter shows the value in use.
     */
    maxLength?: number;
    /** Which side batches are padded on. Default: `tokenizer_config.json`'s `padding_side`, else `'right'`. */
    paddingSide?: PaddingSide;
    /** Intra-op threads per session (default: all cores divided by `sessions`). */
    threads?: number;
    /**
     * ONNX Runtime sessions that run batches in parallel. Default: 2 on machines with 2 or more cores
     * when `threads` is not set and the model's files are at most 512 MiB (each session holds its own
     * copy of the weights), else 1. With 2 or more, a call that plans fewer batches than sessions (a
     * few short texts fit one batch) has its batches split so that every session gets one; results are
     * the same (only the padding changes).
     */
    sessions?: number;
    /** Absolute path of the ONNX Runtime library (else ORT_DYLIB_PATH, onnxruntime-node, the system). */
    ortLibrary?: string;
    /** Inputs per batch at most (default 32). */
    batchSize?: number;
    /**
     * Padded tokens per batch at most (default 512): batches of long inputs get fewer rows. Small
     * batches keep a run's activations, and its S x S attention scores, in the CPU caches.
     */
    tokenBudget?: number;
    /** Cancels the load (a download or the session creation); the promise rejects with an `AbortError`. */
    signal?: AbortSignal;
}
/** How a loaded model runs: the defaults resolved at load time. */
export interface EncoderRuntime {
    /** ONNX Runtime sessions running batches in parallel. */
    readonly sessions: number;
    /** Intra-op threads per session. */
    readonly threads: number;
    /** Inputs per batch at most. */
    readonly batchSize: number;
    /** Padded tokens per batch at most. */
    readonly tokenBudget: number;
    /** Which end of a batch row gets the padding (from the options or `tokenizer_config.json`). */
    readonly paddingSide: PaddingSide;
}
/** Per-call options of the model methods (`rerank`, `embed`, ...). */
export interface BatchCallOptions {
    /** Inputs per batch at most, for this call (default: the model's). */
    batchSize?: number;
    /** A tighter token cap than the model's for this call. */
    maxLength?: number;
    /** Cancels the call between batches; the promise rejects with an `AbortError`. */
    signal?: AbortSignal;
}
/** The keys of `LoadOptions`, for the model classes' own key sets. */
export declare const LOAD_KEYS: string[];
/**
 * What the native encoder of this build implements: a model that asks for anything else fails at
 * load instead of pooling or padding the wrong way.
 */
export declare const NATIVE_POOLINGS: readonly Pooling[];
export declare const NATIVE_PADDING_SIDES: readonly PaddingSide[];
/** The keys of `BatchCallOptions`. */
export declare const BATCH_CALL_KEYS: string[];
/**
 * Validates load options (whose keys the caller checked) and loads the model's files into a native
 * encoder, with the sentence-transformers settings of the folder when `what` asks for them.
 */
export declare function loadEncoder(model: string, o: LoadOptions, what?: ResolveWhat): Promise<{
    encoder: NativeEncoder;
    files: ModelFiles;
    runtime: EncoderRuntime;
    settings: import("./sentence-transformers.js").SentenceTransformersSettings;
}>;
export declare function batchOptions(defaults: EncoderRuntime, o: BatchCallOptions): {
    batchSize: number;
    tokenBudget: number;
    maxLength: number | undefined;
    paddingSide: PaddingSide;
};
export declare function run<T>(signal: unknown, start: (token: InstanceType<typeof native.CancelToken> | undefined) => Promise<T>): Promise<T>;
/** `run`, or `empty` for no input; an aborted signal rejects either way (a call never resolves once aborted). */
export declare function runUnlessEmpty<T>(count: number, empty: () => T, signal: unknown, start: (token: InstanceType<typeof native.CancelToken> | undefined) => Promise<T>): Promise<T>;
export declare function checkString(v: unknown, name: string): string;
