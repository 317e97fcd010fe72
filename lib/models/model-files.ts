import { existsSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { RagrankError, typeError } from '../errors'
import { isHubId, resolveHubFiles, type HubOptions } from './hub'

/** Where a model comes from and which ONNX file to use. */
export interface ModelSourceOptions extends Omit<HubOptions, 'signal'> {
  /** The ONNX file inside the folder, e.g. `'onnx/model_O4.onnx'`. */
  file?: string
  /** Use `onnx/model_quantized.onnx` (the int8 export of Optimum / transformers.js). */
  quantized?: boolean
}

export interface ModelFiles {
  model: string
  tokenizer: string
  tokenizerConfig?: string
  config?: string
}

function modelCandidates(o: ModelSourceOptions): string[] {
  if (o.file !== undefined) {
    if (typeof o.file !== 'string' || o.file === '') throw typeError('options.file must be a non-empty string')
    return o.file.includes('/') ? [o.file] : [`onnx/${o.file}`, o.file]
  }
  return o.quantized ? ['onnx/model_quantized.onnx', 'model_quantized.onnx'] : ['onnx/model.onnx', 'model.onnx']
}

/**
 * Resolves a model folder in the Hugging Face / Optimum / transformers.js layout, or a hub
 * id (`org/name`) through the Hugging Face cache (downloading when needed and allowed).
 */
export async function resolveModelFiles(
  source: string,
  o: ModelSourceOptions = {},
  signal?: AbortSignal,
): Promise<ModelFiles> {
  if (typeof source !== 'string' || source === '') throw typeError('model must be a folder path or a hub id (org/name)')
  const candidates = modelCandidates(o)
  if (!isHubId(source)) {
    const dir = resolve(source)
    if (!existsSync(dir) || !statSync(dir).isDirectory()) {
      throw new RagrankError(
        'ERR_MODEL_NOT_FOUND',
        `model folder ${dir} does not exist (nor is ${JSON.stringify(source)} a hub id org/name)`,
      )
    }
    const pick = (names: string[]) => names.map((n) => join(dir, n)).find((p) => existsSync(p))
    const model = pick(candidates)
    const tokenizer = pick(['tokenizer.json'])
    if (!model || !tokenizer) {
      const missing = [!model && `one of ${candidates.join(', ')}`, !tokenizer && 'tokenizer.json'].filter(Boolean)
      throw new RagrankError('ERR_MODEL_NOT_FOUND', `model folder ${dir} lacks ${missing.join(' and ')}`)
    }
    return { model, tokenizer, tokenizerConfig: pick(['tokenizer_config.json']), config: pick(['config.json']) }
  }
  const { revision, cacheDir, endpoint, token, offline, fetch, env } = o // the hub's options only: it rejects unknown keys
  const hubOptions = { revision, cacheDir, endpoint, token, offline, fetch, env, signal }
  const hub = await resolveHubFiles(
    source,
    ['tokenizer.json'],
    [...candidates, 'tokenizer_config.json', 'config.json'],
    hubOptions,
  )
  const model = candidates.map((c) => hub.files[c]).find((p) => p !== undefined)
  if (!model) {
    throw new RagrankError('ERR_MODEL_NOT_FOUND', `hub model ${source} has none of ${candidates.join(', ')}`)
  }
  return {
    model,
    tokenizer: hub.files['tokenizer.json'] as string,
    tokenizerConfig: hub.files['tokenizer_config.json'],
    config: hub.files['config.json'],
  }
}
