import { existsSync, readdirSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { native } from '../internal/native.js';
import { packageRequire } from '../internal/package-require.js';
import { callNative, RagrankError, typeError } from '../errors.js';
let loaded;
/** Where the ONNX Runtime library came from, once loaded. */
export function onnxRuntimePath() {
    return loaded;
}
/** The library file inside an installed `onnxruntime-node` package, if any. */
function fromOnnxruntimeNode() {
    let pkg;
    try {
        pkg = packageRequire.resolve('onnxruntime-node/package.json');
    }
    catch {
        return undefined;
    }
    const arch = process.arch;
    for (const napi of ['napi-v6', 'napi-v3']) {
        const dir = join(dirname(pkg), 'bin', napi, process.platform, arch);
        if (!existsSync(dir))
            continue;
        const names = readdirSync(dir);
        const file = process.platform === 'win32'
            ? names.find((f) => f === 'onnxruntime.dll')
            : process.platform === 'darwin'
                ? names.find((f) => /^libonnxruntime\.\d.*\.dylib$/.test(f))
                : (names.find((f) => f === 'libonnxruntime.so.1') ?? names.find((f) => /^libonnxruntime\.so\.\d/.test(f)));
        if (file)
            return join(dir, file);
    }
    return undefined;
}
const SYSTEM_NAME = process.platform === 'win32'
    ? 'onnxruntime.dll'
    : process.platform === 'darwin'
        ? 'libonnxruntime.dylib'
        : 'libonnxruntime.so';
/**
 * Loads ONNX Runtime once per process, from the first of: `explicit`, `ORT_DYLIB_PATH`, the
 * library shipped in the optional peer `onnxruntime-node`, then the system library path.
 * Every path is made absolute (a relative path would resolve against the node binary).
 * A library older than ONNX Runtime 1.24.2 is refused (`ERR_ORT_VERSION`, naming the version found):
 * older runtimes read a model's external data from any path the model names.
 */
export function ensureOnnxRuntime(explicit) {
    if (loaded)
        return loaded;
    if (explicit !== undefined && typeof explicit !== 'string')
        throw typeError('options.ortLibrary must be a path string');
    const candidates = [];
    if (explicit)
        candidates.push(resolve(explicit));
    else {
        if (process.env.ORT_DYLIB_PATH)
            candidates.push(resolve(process.env.ORT_DYLIB_PATH));
        const bundled = fromOnnxruntimeNode();
        if (bundled)
            candidates.push(bundled);
        candidates.push(SYSTEM_NAME);
    }
    const failures = [];
    let tooOld;
    for (const path of candidates) {
        try {
            loaded = callNative(() => native.initOnnxRuntime(path));
            return loaded;
        }
        catch (e) {
            // A runtime too old to be safe is named as such, even if a later candidate is missing too.
            if (e.code === 'ERR_ORT_VERSION')
                tooOld ??= e;
            failures.push(e.message.split('. ragrank needs')[0]);
            if (explicit || (isAbsolute(path) && path === candidates[0] && process.env.ORT_DYLIB_PATH))
                break;
        }
    }
    if (tooOld)
        throw tooOld;
    throw new RagrankError('ERR_ORT_NOT_FOUND', `ONNX Runtime could not be loaded (${failures.join('; ')}). Install the optional peer dependency ` +
        '`npm install onnxruntime-node` (set ONNXRUNTIME_NODE_INSTALL=skip if its postinstall cannot reach the network; ' +
        'ragrank only needs the library inside the package), or set ORT_DYLIB_PATH to an absolute path of the ' +
        `${SYSTEM_NAME} library (ONNX Runtime >= 1.24.2), or pass { ortLibrary }.`);
}
