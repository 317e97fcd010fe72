/**
 * The `modelId` an adapter reports: the one given, else the folder a ragrank model was loaded
 * from (`files.model` is `<folder>/model.onnx` or `<folder>/onnx/model.onnx`), else `fallback`.
 */
export declare function modelName(given: unknown, model: unknown, name: string, fallback?: string): string;
