/** An external data file of a graph and the bytes its tensors need (`offset + length`, at most). */
export interface ExternalData {
    /** The file name as the graph writes it, relative to the graph's folder. */
    location: string;
    /** Bytes the file must hold at least; `undefined` when a tensor gives no length. */
    needs: number | undefined;
}
/**
 * The external data files `model` refers to (none for a self-contained graph). `model` must be a regular
 * file of at most 2 GiB; one that cannot be walked as an ONNX protobuf is ERR_MODEL_LOAD.
 */
export declare function externalDataOf(model: string): ExternalData[];
/**
 * `externalDataOf` off the event loop for a graph over 1 MiB (the exports with external data keep a graph of
 * a few MB; a single-file model may hold 2 GB): the same result and errors. The signal stops the walk.
 */
export declare function walkExternalData(model: string, signal?: AbortSignal): Promise<ExternalData[]>;
/** A relative path below the graph's folder (a location is written by an exporter, but read from any download). */
export declare const isPlainLocation: (location: string) => boolean;
/**
 * Checks every external data file of `model` at load: a plain relative location, that after symlinks is a
 * regular file inside the graph's folder, or inside the folder of the graph's own target when the graph is a
 * symlink (the hub cache: both point into `blobs/`). That is the rule of the bundled ONNX Runtime 1.30, applied
 * whatever the runtime. It must hold the bytes the graph needs: a missing or truncated download is a clear error
 * now rather than ONNX Runtime's (or a read past the end of a mapped file) later. Returns their paths.
 */
export declare function checkExternalData(model: string, refs?: ExternalData[]): string[];
