import { type HubOptions } from './hub.js';
import { type SentenceTransformersFiles } from './sentence-transformers.js';
/** transformers.js' `dtype` names: which ONNX file of `onnx/` to load. */
export declare const DTYPES: readonly ["fp32", "fp16", "q8", "int8", "uint8", "q4", "q4f16", "bnb4"];
/** One of `'fp32'`, `'fp16'`, `'q8'`, `'int8'`, `'uint8'`, `'q4'`, `'q4f16'`, `'bnb4'` (see `ModelSourceOptions.dtype`). */
export type Dtype = (typeof DTYPES)[number];
/** Where a model comes from and which ONNX file to use. */
export interface ModelSourceOptions extends Omit<HubOptions, 'signal'> {
    /** The ONNX file inside the folder, e.g. `'onnx/model_O4.onnx'`. */
    file?: string;
    /**
     * The ONNX file by transformers.js' names: `'fp32'` `onnx/model.onnx` (default), `'fp16'`
     * `model_fp16`, `'q8'` `model_quantized`, `'int8'` `model_int8` (else `model_quantized`),
     * `'uint8'` `model_uint8`, `'q4'` `model_q4`, `'q4f16'` `model_q4f16`, `'bnb4'` `model_bnb4`;
     * each in `onnx/`, else at the top of the folder.
     */
    dtype?: Dtype;
    /** Use `onnx/model_quantized.onnx` (the int8 export of Optimum / transformers.js): `dtype: 'q8'`. */
    quantized?: boolean;
}
/** The files a model was loaded from (absolute paths). */
export interface ModelFiles extends SentenceTransformersFiles {
    /** The ONNX graph. */
    model: string;
    /** `tokenizer.json`. */
    tokenizer: string;
    /** `tokenizer_config.json`, when present. */
    tokenizerConfig?: string;
    /** `config.json`, when present. */
    config?: string;
    /** The external data files the ONNX graph keeps its weights in (`model.onnx_data`, `model.onnx.data`, ...). */
    externalData?: string[];
}
/** Which optional files to look for besides the model, tokenizer and configs. */
export interface ResolveWhat {
    /** The sentence-transformers files of an embedding model. */
    sentenceTransformers?: boolean;
}
/**
 * Resolves a model folder in the Hugging Face / Optimum / transformers.js / sentence-transformers
 * layout, or a hub id (`org/name`) through the Hugging Face cache (downloading when needed and
 * allowed), with the external data files its graph names. Missing or truncated files are errors
 * here, at load.
 */
export declare function resolveModelFiles(source: string, o?: ModelSourceOptions, signal?: AbortSignal, what?: ResolveWhat): Promise<ModelFiles>;
