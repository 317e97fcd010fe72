import { availableParallelism } from 'node:os'
import type { NativeEncoder } from '../index'
import { native } from './native'
import { fromNative, rangeError, typeError } from './errors'
import { checkSignal, runCancellable } from './abort'
import { ensureOnnxRuntime } from './onnx-runtime'
import { resolveModelFiles, type ModelSourceOptions } from './model-files'
import { nonNegativeInteger, optionsObject } from './validate'

/** Options shared by `CrossEncoder.load` and `Embedder.load`. */
export interface LoadOptions extends ModelSourceOptions {
  /** Cap on tokens per input (the model's own limits from its configs also apply). */
  maxLength?: number
  /** Intra-op threads per session (default: all cores divided by `sessions`). */
  threads?: number
  /** ONNX Runtime sessions that run batches in parallel (default 1). */
  sessions?: number
  /** Absolute path of the ONNX Runtime library (else ORT_DYLIB_PATH, onnxruntime-node, the system). */
  ortLibrary?: string
  /** Inputs per batch at most (default 32). */
  batchSize?: number
  /** Padded tokens per batch at most (default 8192): batches of long inputs get fewer rows. */
  tokenBudget?: number
  signal?: AbortSignal
}

export interface BatchCallOptions {
  batchSize?: number
  /** A tighter token cap than the model's for this call. */
  maxLength?: number
  signal?: AbortSignal
}

const positive = (v: unknown, name: string) => {
  const n = nonNegativeInteger(v, name)
  if (n === 0) throw rangeError(`${name} must be >= 1`)
  return n
}

/** Validates load options and loads the model's files into a native encoder. */
export async function loadEncoder(model: string, options: LoadOptions = {}) {
  const o = optionsObject(options, 'options') as LoadOptions
  const signal = checkSignal(o.signal)
  const sessions = o.sessions === undefined ? 1 : positive(o.sessions, 'options.sessions')
  const threads = o.threads === undefined ? Math.max(1, Math.floor(availableParallelism() / sessions)) : positive(o.threads, 'options.threads')
  const maxLength = o.maxLength === undefined ? undefined : positive(o.maxLength, 'options.maxLength')
  const batch = {
    batchSize: o.batchSize === undefined ? 32 : positive(o.batchSize, 'options.batchSize'),
    tokenBudget: o.tokenBudget === undefined ? 8192 : positive(o.tokenBudget, 'options.tokenBudget'),
  }
  ensureOnnxRuntime(o.ortLibrary)
  const files = await resolveModelFiles(model, o, signal)
  const encoder: NativeEncoder = await native.NativeEncoder.load(files, { maxLength, threads, sessions }).catch((e: unknown) => {
    throw fromNative(e)
  })
  return { encoder, files, batch }
}

export function batchOptions(defaults: { batchSize: number; tokenBudget: number }, o: BatchCallOptions) {
  return {
    batchSize: o.batchSize === undefined ? defaults.batchSize : positive(o.batchSize, 'options.batchSize'),
    tokenBudget: defaults.tokenBudget,
    maxLength: o.maxLength === undefined ? undefined : positive(o.maxLength, 'options.maxLength'),
  }
}

export function run<T>(signal: unknown, start: (token: InstanceType<typeof native.CancelToken>) => Promise<T>): Promise<T> {
  return runCancellable(checkSignal(signal), start)
}

export function checkString(v: unknown, name: string): string {
  if (typeof v !== 'string') throw typeError(`${name} must be a string`)
  return v
}
