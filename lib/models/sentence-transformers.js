/**
 * What a sentence-transformers model folder (a hub download of an embedding model) says about
 * using it, read from its files:
 *   modules.json                       the modules: where the Pooling config is, whether a Normalize follows
 *   sentence_bert_config.json          max_seq_length, do_lower_case
 *   {pooling path}/config.json         pooling_mode_* (1_Pooling/config.json in every hub export)
 *   config_sentence_transformers.json  prompts, default_prompt_name
 *   tokenizer_config.json              padding_side (decoder-only embedders pad on the left), model_max_length
 *   config.json                        max_position_embeddings
 * The last two are read natively too; their values are checked here, so a value that cannot be used is an
 * error at load naming it rather than a default taken in silence.
 */
import { RagrankError } from '../errors.js';
import { CONFIG_MAX_BYTES, readJsonFile } from './model-file.js';
import { isPlainLocation } from './onnx-external-data.js';
/** Every pooling kind ragrank names; sentence-transformers' `pooling_mode_*` keys map to these. */
export const POOLINGS = ['mean', 'cls', 'max', 'meansqrt', 'weightedmean', 'lasttoken'];
export const POOLING_MODE_KEYS = {
    pooling_mode_cls_token: 'cls',
    pooling_mode_mean_tokens: 'mean',
    pooling_mode_max_tokens: 'max',
    pooling_mode_mean_sqrt_len_tokens: 'meansqrt',
    pooling_mode_weightedmean_tokens: 'weightedmean',
    pooling_mode_lasttoken: 'lasttoken',
};
/**
 * The module a `modules.json` type names, by its class: sentence-transformers < 6 writes
 * `sentence_transformers.models.Pooling`, 6.x `sentence_transformers.sentence_transformer.modules.pooling.Pooling`.
 */
const moduleKind = (type) => type.startsWith('sentence_transformers.') ? type.slice(type.lastIndexOf('.') + 1) : undefined;
const APPLIED_MODULES = new Set(['Transformer', 'Pooling', 'Normalize']);
const bad = (file, why) => new RagrankError('ERR_MODEL_LOAD', `${file}: ${why}`);
/** A JSON object file, or `undefined` when `file` is; invalid JSON is ERR_MODEL_LOAD naming the file. */
export async function readJsonObject(file) {
    if (file === undefined)
        return undefined;
    const v = await readJsonFile(file, 'a config file', CONFIG_MAX_BYTES);
    if (typeof v !== 'object' || v === null || Array.isArray(v))
        throw bad(file, 'expected a JSON object');
    return v;
}
/** The entries of modules.json (an array of `{ idx, name, path, type }`). */
export async function readModules(file) {
    if (file === undefined)
        return undefined;
    const v = await readJsonFile(file, 'the sentence-transformers modules', CONFIG_MAX_BYTES);
    if (!Array.isArray(v))
        throw bad(file, 'expected an array of modules');
    return v.map((m, i) => {
        if (typeof m !== 'object' || m === null || typeof m.type !== 'string')
            throw bad(file, `module ${i} has no type`);
        return { path: typeof m.path === 'string' ? m.path : '', type: m.type };
    });
}
/**
 * The folder of the Pooling module, relative (`1_Pooling` in every hub export): a path that leaves the model
 * folder (absolute, `..`) is ERR_MODEL_LOAD naming `file` (modules.json).
 */
export function poolingPath(modules, file = 'modules.json') {
    const p = modules?.find((m) => moduleKind(m.type) === 'Pooling')?.path;
    if (p === undefined)
        return undefined;
    const path = p.replace(/^(\.\/+)+|\/+$/g, '');
    if (path !== '' && !isPlainLocation(path)) {
        throw bad(file, `the Pooling module's path ${JSON.stringify(p)} is outside the model folder`);
    }
    return path;
}
/** A length a config gives: absent (or `null`), else an integer from 2 to `max`; anything else names the key. */
function lengthKey(file, cfg, key, max) {
    const v = cfg?.[key];
    if (v === undefined || v === null || file === undefined)
        return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 2 || v > max) {
        const most = max === Number.POSITIVE_INFINITY ? '' : ` and at most ${max}`;
        throw bad(file, `${key} must be an integer of at least 2${most}, not ${JSON.stringify(v)}`);
    }
    return v;
}
function poolingOf(file, cfg) {
    if (typeof cfg.pooling_mode === 'string') {
        const named = cfg.pooling_mode.replace(/_token(s)?$/, '').replace(/_/g, '');
        const kind = POOLINGS.find((p) => p === named || `${p}len` === named);
        if (!kind)
            throw bad(file, `unknown pooling_mode ${JSON.stringify(cfg.pooling_mode)}`);
        return kind;
    }
    const on = Object.entries(POOLING_MODE_KEYS).filter(([key]) => cfg[key] === true);
    if (on.length > 1) {
        throw bad(file, `several pooling modes at once (${on.map(([k]) => k).join(', ')}) are not supported`);
    }
    return on[0]?.[1];
}
function stringRecord(file, v) {
    if (v === undefined || v === null)
        return {};
    if (typeof v !== 'object' || Array.isArray(v))
        throw bad(file, 'prompts must be an object of strings');
    const out = {};
    for (const [k, p] of Object.entries(v)) {
        if (typeof p !== 'string')
            throw bad(file, `prompt ${JSON.stringify(k)} is not a string`);
        out[k] = p;
    }
    return out;
}
/** Reads the files; a file present but malformed is ERR_MODEL_LOAD naming it. */
export async function readSentenceTransformers(files, tokenizerConfig, config) {
    const modules = await readModules(files.modules);
    const sbert = await readJsonObject(files.sentenceBertConfig);
    const pooling = await readJsonObject(files.pooling);
    const st = await readJsonObject(files.sentenceTransformersConfig);
    const tok = await readJsonObject(tokenizerConfig);
    // What the native encoder takes from these (it would skip a value it cannot use).
    lengthKey(tokenizerConfig, tok, 'model_max_length', Number.POSITIVE_INFINITY); // HF writes 1e30 for "no limit"
    lengthKey(config, await readJsonObject(config), 'max_position_embeddings', 2 ** 31 - 1);
    const maxSeq = lengthKey(files.sentenceBertConfig, sbert, 'max_seq_length', 2 ** 31 - 1);
    const prompts = files.sentenceTransformersConfig ? stringRecord(files.sentenceTransformersConfig, st?.prompts) : {};
    const defaultName = st?.default_prompt_name;
    if (typeof defaultName === 'string' && !(defaultName in prompts)) {
        throw bad(files.sentenceTransformersConfig, `default_prompt_name ${defaultName} is not in prompts`);
    }
    const side = tok?.padding_side;
    if (side !== undefined && side !== 'left' && side !== 'right') {
        throw bad(tokenizerConfig, `padding_side must be 'right' or 'left', not ${JSON.stringify(side)}`);
    }
    return {
        maxSeqLength: maxSeq,
        doLowerCase: typeof sbert?.do_lower_case === 'boolean' ? sbert.do_lower_case : undefined,
        pooling: pooling && files.pooling ? poolingOf(files.pooling, pooling) : undefined,
        normalize: modules ? modules.some((m) => moduleKind(m.type) === 'Normalize') : undefined,
        excludesPrompt: pooling?.include_prompt === false,
        prompts,
        defaultPromptName: typeof defaultName === 'string' ? defaultName : undefined,
        otherModules: (modules ?? []).map((m) => m.type).filter((t) => !APPLIED_MODULES.has(moduleKind(t) ?? '')),
        paddingSide: side,
    };
}
/** The prompt a query gets: `query`, else the default prompt. */
export function queryPrompt(s) {
    return s.prompts.query ?? defaultPrompt(s);
}
/** The prompt a document gets: the first of `document`, `passage`, `corpus` (as sentence-transformers' encode_document), else the default. */
export function documentPrompt(s) {
    return s.prompts.document ?? s.prompts.passage ?? s.prompts.corpus ?? defaultPrompt(s);
}
const defaultPrompt = (s) => s.defaultPromptName === undefined ? undefined : s.prompts[s.defaultPromptName];
