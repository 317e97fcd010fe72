/** `tokenizer.json`: a 250k-token SentencePiece vocabulary is about 17 MB, Gemma's 262k about 33 MB. */
export declare const TOKENIZER_MAX_BYTES: number;
/** Every other JSON file (configs, `modules.json`, the pooling config). */
export declare const CONFIG_MAX_BYTES: number;
/** An ONNX graph: protobuf's own limit (a larger model keeps its weights in external data files). */
export declare const GRAPH_MAX_BYTES: number;
/** Opens `path` for reading if it is a regular file of at most `max` bytes: its descriptor and size. */
export declare function openRegularSync(path: string, what: string, max: number): {
    fd: number;
    size: number;
};
/** Checks that `path` is a regular file of at most `max` bytes, without reading it: its size. */
export declare function checkRegular(path: string, what: string, max: number): Promise<number>;
/** Reads a UTF-8 file of at most `max` bytes (a regular file, checked as above). */
export declare function readTextFile(path: string, what: string, max: number): Promise<string>;
/** Reads a JSON file of at most `max` bytes (a regular file, checked as above); invalid JSON is ERR_MODEL_LOAD. */
export declare function readJsonFile(path: string, what: string, max?: number): Promise<unknown>;
