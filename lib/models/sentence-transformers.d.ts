/** Every pooling kind ragrank names; sentence-transformers' `pooling_mode_*` keys map to these. */
export declare const POOLINGS: readonly ["mean", "cls", "max", "meansqrt", "weightedmean", "lasttoken"];
/** One of `'mean'`, `'cls'`, `'max'`, `'meansqrt'`, `'weightedmean'`, `'lasttoken'` (see `EmbedderOptions.pooling`). */
export type Pooling = (typeof POOLINGS)[number];
/** Which end of a batch row gets the padding; decoder-only embedders are often trained with `'left'`. */
export type PaddingSide = 'right' | 'left';
/** The sentence-transformers files of a folder (absolute paths, when present). */
export interface SentenceTransformersFiles {
    /** `modules.json`. */
    modules?: string;
    /** `sentence_bert_config.json`. */
    sentenceBertConfig?: string;
    /** The Pooling module's `config.json` (`1_Pooling/config.json`). */
    pooling?: string;
    /** `config_sentence_transformers.json`. */
    sentenceTransformersConfig?: string;
}
/** The settings read from them; each is `undefined` when the files do not say. */
export interface SentenceTransformersSettings {
    maxSeqLength?: number;
    doLowerCase?: boolean;
    pooling?: Pooling;
    /** Whether a Normalize module follows (only known when modules.json is there). */
    normalize?: boolean;
    /** Pooling that leaves the prompt's tokens out (`include_prompt: false`). */
    excludesPrompt?: boolean;
    prompts: Record<string, string>;
    defaultPromptName?: string;
    /** Modules after pooling that ragrank does not apply (Dense, LayerNorm, ...), by type. */
    otherModules: string[];
    paddingSide?: PaddingSide;
}
export declare const POOLING_MODE_KEYS: Record<string, Pooling>;
export interface ModuleEntry {
    path: string;
    type: string;
}
/** A JSON object file, or `undefined` when `file` is; invalid JSON is ERR_MODEL_LOAD naming the file. */
export declare function readJsonObject(file: string | undefined): Promise<Record<string, unknown> | undefined>;
/** The entries of modules.json (an array of `{ idx, name, path, type }`). */
export declare function readModules(file: string | undefined): Promise<ModuleEntry[] | undefined>;
/**
 * The folder of the Pooling module, relative (`1_Pooling` in every hub export): a path that leaves the model
 * folder (absolute, `..`) is ERR_MODEL_LOAD naming `file` (modules.json).
 */
export declare function poolingPath(modules: ModuleEntry[] | undefined, file?: string): string | undefined;
/** Reads the files; a file present but malformed is ERR_MODEL_LOAD naming it. */
export declare function readSentenceTransformers(files: SentenceTransformersFiles, tokenizerConfig: string | undefined, config?: string): Promise<SentenceTransformersSettings>;
/** The prompt a query gets: `query`, else the default prompt. */
export declare function queryPrompt(s: SentenceTransformersSettings): string | undefined;
/** The prompt a document gets: the first of `document`, `passage`, `corpus` (as sentence-transformers' encode_document), else the default. */
export declare function documentPrompt(s: SentenceTransformersSettings): string | undefined;
