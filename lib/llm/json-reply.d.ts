import { RagrankError } from '../errors.js';
/**
 * The JSON object in a model's reply. Models asked for JSON still often wrap it in a
 * markdown fence or add a sentence around it, so the fence is stripped and, failing a
 * direct parse, the outermost `{ ... }` span is tried.
 */
export declare function parseJsonObject(text: string): Record<string, unknown>;
export declare const replyError: (message: string) => RagrankError;
