/** Where the ONNX Runtime library came from, once loaded. */
export declare function onnxRuntimePath(): string | undefined;
/**
 * Loads ONNX Runtime once per process, from the first of: `explicit`, `ORT_DYLIB_PATH`, the
 * library shipped in the optional peer `onnxruntime-node`, then the system library path.
 * Every path is made absolute (a relative path would resolve against the node binary).
 * A library older than ONNX Runtime 1.24.2 is refused (`ERR_ORT_VERSION`, naming the version found):
 * older runtimes read a model's external data from any path the model names.
 */
export declare function ensureOnnxRuntime(explicit?: string): string;
