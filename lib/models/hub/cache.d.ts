import { type Context } from './context.js';
export declare const COMMIT_RE: RegExp;
export declare const nonEmpty: (v: string | undefined) => string | undefined;
export declare function homeDir(env: NodeJS.ProcessEnv): string;
export declare function expandHome(p: string, env: NodeJS.ProcessEnv): string;
export declare function hfHome(env: NodeJS.ProcessEnv): string;
/**
 * The hub cache folder, as `huggingface_hub` picks it: `HF_HUB_CACHE`, else (legacy)
 * `HUGGINGFACE_HUB_CACHE`, else `$HF_HOME/hub`, else `$XDG_CACHE_HOME/huggingface/hub`,
 * else `~/.cache/huggingface/hub`. A leading `~` is expanded.
 */
export declare function hubCacheDir(env?: NodeJS.ProcessEnv): string;
export declare const snapshotDir: (ctx: Context, commit: string) => string;
export declare const pointerPath: (ctx: Context, commit: string, name: string) => string;
export declare const noExistPath: (ctx: Context, commit: string, name: string) => string;
export declare const refPath: (ctx: Context, revision: string) => string;
export declare const tempSuffix: () => string;
export declare function isFile(p: string): Promise<boolean>;
export declare function readRef(ctx: Context, revision: string): Promise<string | undefined>;
export declare function writeFileAtomic(path: string, data: string): Promise<void>;
/** Points `snapshots/{commit}/{name}` at the blob: relative symlink, else hard link, else copy. */
export declare function linkPointer(blob: string, pointer: string): Promise<void>;
