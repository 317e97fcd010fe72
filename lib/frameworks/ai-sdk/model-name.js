import { basename, dirname } from 'node:path';
import { describe, typeError } from '../../errors.js';
import { isPlainObject } from '../../internal/validate.js';
/**
 * The `modelId` an adapter reports: the one given, else the folder a ragrank model was loaded
 * from (`files.model` is `<folder>/model.onnx` or `<folder>/onnx/model.onnx`), else `fallback`.
 */
export function modelName(given, model, name, fallback = 'ragrank') {
    if (given !== undefined) {
        if (typeof given !== 'string' || given === '')
            throw typeError(`${name} must be a non-empty string, got ${describe(given)}`);
        return given;
    }
    const files = isPlainObject(model) ? model.files : undefined;
    const path = isPlainObject(files) && typeof files.model === 'string' ? files.model : undefined;
    if (path === undefined)
        return fallback;
    const dir = dirname(path);
    return basename(basename(dir) === 'onnx' ? dirname(dir) : dir);
}
