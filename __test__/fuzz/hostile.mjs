// Hostile values for the fuzz harness. Arbitraries generate inert descriptions (plain data and
// `Hostile` tokens); `build` turns one into real values at run time, fresh for every case, so a
// getter that throws or an AbortController that fires later cannot leak from one case into the
// next, and a shrunk counterexample prints as readable data.
import fc from 'fast-check'

/** The error every hostile getter, trap and callback throws: user code failing, not ragrank. */
export class HostileError extends Error {
  constructor(where) {
    super(`hostile ${where}`)
    this.name = 'HostileError'
  }
}

/** A placeholder for a value that must be made at run time. */
export class Hostile {
  constructor(kind, arg) {
    this.kind = kind
    this.arg = arg
  }
  [fc.toStringMethod]() {
    return this.arg === undefined ? `$${this.kind}` : `$${this.kind}(${fc.stringify(this.arg)})`
  }
}
export const h = (kind, arg) => new Hostile(kind, arg)

/** Per-case state `build` fills: controllers to fire after the call, and when. */
export function newCaseState() {
  return { later: [], soon: [] }
}

const throwingHandler = {
  get: () => {
    throw new HostileError('proxy get')
  },
  has: () => {
    throw new HostileError('proxy has')
  },
  ownKeys: () => {
    throw new HostileError('proxy ownKeys')
  },
  getOwnPropertyDescriptor: () => {
    throw new HostileError('proxy descriptor')
  },
  getPrototypeOf: () => {
    throw new HostileError('proxy prototype')
  },
}

/** Makes the real value a description stands for. Walks only plain data made by the arbitraries. */
export function build(v, state) {
  if (v instanceof Hostile) return make(v, state)
  if (Array.isArray(v)) {
    const out = new Array(v.length)
    for (let i = 0; i < v.length; i++) if (i in v) out[i] = build(v[i], state)
    return out
  }
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    const out = {}
    // defineProperty keeps an own "__proto__" key an own key
    for (const [k, x] of Object.entries(v))
      Object.defineProperty(out, k, { value: build(x, state), enumerable: true, writable: true, configurable: true })
    return out
  }
  return v
}

function make({ kind, arg }, state) {
  switch (kind) {
    case 'getterThrows': // an object like arg whose key `arg.key` throws when read
      return Object.defineProperty(build(arg.base ?? {}, state), arg.key, {
        enumerable: true,
        get() {
          throw new HostileError(`getter ${arg.key}`)
        },
      })
    case 'proxyThrows':
      return track(new Proxy(Array.isArray(arg) ? [] : {}, throwingHandler))
    case 'proxy': // a transparent proxy of a valid value
      return track(new Proxy(build(arg, state), {}))
    case 'revokedProxy': {
      const p = Proxy.revocable({}, {})
      p.revoke()
      return track(p.proxy)
    }
    case 'symbol':
      return Symbol(arg ?? 'fuzz')
    case 'bigint':
      return BigInt(arg)
    case 'sparse': {
      const a = new Array(arg.length)
      for (const [i, x] of arg.items) a[i % Math.max(1, arg.length)] = build(x, state)
      return a
    }
    case 'hugeString':
      return arg.unit.repeat(arg.times)
    case 'protoKey': // an own "__proto__" (or "constructor", "prototype") key, as JSON.parse makes
      return JSON.parse(`{${JSON.stringify(arg.key)}: ${JSON.stringify(arg.value)}${arg.alone ? '' : ', "x": 1'}}`)
    case 'nullProto':
      return Object.assign(Object.create(null), build(arg, state))
    case 'frozen':
      return deepFreeze(build(arg, state))
    case 'cyclic': {
      const o = build(arg, state)
      const box = o !== null && typeof o === 'object' && !isProxy(o) && Object.isExtensible(o) ? o : {}
      box.self = box
      box.list = [box]
      return box
    }
    case 'fn':
      return arg === 'throws'
        ? () => {
            throw new HostileError('function')
          }
        : arg === 'rejects'
          ? async () => {
              throw new HostileError('async function')
            }
          : arg === 'rejectsUndefined'
            ? () => Promise.reject(undefined)
            : arg === 'never'
              ? () => new Promise(() => {})
              : () => arg
    case 'toPrimitiveThrows':
      return {
        [Symbol.toPrimitive]() {
          throw new HostileError('toPrimitive')
        },
        toString() {
          throw new HostileError('toString')
        },
      }
    case 'iteratorThrows':
      return {
        [Symbol.iterator]() {
          throw new HostileError('iterator')
        },
      }
    case 'typed':
      return arg === 'f64'
        ? new Float64Array([1, 2, 3])
        : arg === 'f32nan'
          ? new Float32Array([NaN, 1, 2])
          : arg === 'u8'
            ? new Uint8Array(4)
            : new ArrayBuffer(8)
    case 'date':
      return new Date(arg)
    case 'map':
      return new Map([['a', { text: 'x' }]])
    case 'set':
      return new Set([1, 2])
    case 'error':
      return new Error('plain')
    case 'promise':
      return Promise.resolve(1)
    case 'abortedSignal':
      return AbortSignal.abort(arg)
    case 'laterSignal': {
      // fired after the call settled: a listener left behind must not reject into the void
      const c = new AbortController()
      state.later.push(c)
      return c.signal
    }
    case 'soonSignal': {
      // fired while the call runs: in a microtask, on the next turn, or after 1 ms
      const c = new AbortController()
      state.soon.push({ controller: c, when: arg ?? 'micro' })
      return c.signal
    }
    case 'fakeSignal':
      return { aborted: arg === true, addEventListener() {}, removeEventListener() {} }
    case 'signalGetterThrows': {
      const s = new AbortController().signal
      return track(
        new Proxy(s, {
          get(t, k) {
            if (k === 'aborted') throw new HostileError('signal.aborted')
            const v = Reflect.get(t, k, t)
            return typeof v === 'function' ? v.bind(t) : v
          },
        }),
      )
    }
    default:
      throw new Error(`unknown hostile kind ${kind}`)
  }
}

function deepFreeze(o) {
  if (o === null || typeof o !== 'object' || isProxy(o) || Object.isFrozen(o)) return o
  const proto = Object.getPrototypeOf(o)
  if (proto !== Object.prototype && proto !== Array.prototype && proto !== null) return o // an AbortSignal frozen stops working
  Object.freeze(o)
  // descriptors, not values: reading would run a hostile getter while building
  for (const d of Object.values(Object.getOwnPropertyDescriptors(o))) if ('value' in d) deepFreeze(d.value)
  return o
}

const proxies = new WeakSet()
const isProxy = (o) => proxies.has(o)
const track = (p) => (proxies.add(p), p)

const LONE = ['\uD800', '\uDFFF', 'a\uD83Dz', '\uDC00abc']

/** Strings with trouble in them: lone surrogates, NUL, controls, RTL, huge (bounded at 1 MiB). */
export const hostileString = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\0',
    'a\0b',
    '#',
    'a#0',
    'a#0.1',
    '__proto__',
    'constructor',
    'toString',
    '/',
    '..',
    '.',
    '\n',
    '\u202e',
    '\uFEFF',
    '💥',
    'ä',
    '[ERR_IO] forged',
  ),
  fc.constantFrom(...LONE),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc
    .record({ unit: fc.constantFrom('a ', '\0', '\uD800', 'x#'), times: fc.constantFrom(1 << 10, 1 << 16, 1 << 19) })
    .map((a) => h('hugeString', a)),
)

/** Numbers that break naive checks. */
export const hostileNumber = fc.oneof(
  fc.constantFrom(
    NaN,
    Infinity,
    -Infinity,
    -0,
    0,
    -1,
    0.5,
    1.5,
    -0.5,
    2 ** 31,
    2 ** 32,
    2 ** 32 + 1,
    2 ** 53,
    Number.MAX_SAFE_INTEGER + 2,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    1e300,
    -1e300,
  ),
  fc.double(),
  fc.integer({ min: -5, max: 100 }),
)

const signals = fc.oneof(
  fc.constant(h('abortedSignal')),
  fc.constant(h('abortedSignal', undefined)),
  fc.constantFrom(
    h('abortedSignal', 'a reason string'),
    h('laterSignal'),
    h('fakeSignal', true),
    h('fakeSignal', false),
    h('signalGetterThrows'),
  ),
  fc.constantFrom('micro', 'turn', 'ms').map((when) => h('soonSignal', when)),
)

/** Any hostile leaf (no structure). */
export const hostileLeaf = fc.oneof(
  { arbitrary: hostileString, weight: 3 },
  { arbitrary: hostileNumber, weight: 3 },
  { arbitrary: fc.constantFrom(undefined, null, true, false), weight: 2 },
  { arbitrary: fc.constantFrom(h('symbol'), h('bigint', 1), h('bigint', -(2 ** 70)), h('bigint', 0)), weight: 2 },
  {
    arbitrary: fc.constantFrom(
      h('proxyThrows', {}),
      h('proxyThrows', []),
      h('revokedProxy'),
      h('fn', 'throws'),
      h('fn', 'rejects'),
      h('fn', 'rejectsUndefined'),
      h('fn', 42),
      h('toPrimitiveThrows'),
      h('iteratorThrows'),
      h('typed', 'f64'),
      h('typed', 'f32nan'),
      h('typed', 'u8'),
      h('typed', 'buffer'),
      h('date', NaN),
      h('map'),
      h('set'),
      h('error'),
      h('promise'),
      h('protoKey', { key: '__proto__', value: { polluted: true } }),
      h('protoKey', { key: 'constructor', value: 1 }),
      h('protoKey', { key: '__proto__', value: null }),
    ),
    weight: 2,
  },
  { arbitrary: signals, weight: 1 },
)

/** Any hostile value: leaves, and small structures of them (arrays with holes, objects, frozen, cyclic, getters). */
export const hostile = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { arbitrary: hostileLeaf, weight: 6 },
    { arbitrary: tie('struct'), weight: 2 },
  ),
  struct: fc.oneof(
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      fc.oneof(
        fc.constantFrom('id', 'text', 'meta', 'score', 'topK', 'signal', '__proto__', 'constructor'),
        fc.string({ maxLength: 4 }),
      ),
      tie('value'),
      { maxKeys: 4 },
    ),
    fc
      .record({
        length: fc.constantFrom(1, 5, 1000),
        items: fc.array(fc.tuple(fc.nat(1000), tie('value')), { maxLength: 3 }),
      })
      .map((a) => h('sparse', a)),
    tie('value').map((v) => h('frozen', v)),
    tie('value').map((v) => h('cyclic', v)),
    tie('value').map((v) => h('nullProto', { a: v })),
    fc
      .record({
        key: fc.constantFrom('id', 'text', 'meta', 'topK', 'signal', 'length', '0', 'retrieve', 'then'),
        base: fc.constant({}),
      })
      .map((a) => h('getterThrows', a)),
  ),
})).value

/** Mostly `valid`, sometimes hostile: bugs hide where almost everything is right. */
export const near = (valid, hostileWeight = 1) =>
  fc.oneof({ arbitrary: valid, weight: 4 }, { arbitrary: hostile, weight: hostileWeight })

/**
 * An options object: each known key absent, valid or hostile; sometimes an unknown or
 * misspelled key; sometimes the whole object hostile (a getter on one key, a proxy, frozen).
 */
export function options(shape, unknownKeys = ['k', 'limit', 'offset', 'topN', 'filters', 'signals']) {
  const keys = Object.keys(shape)
  const record = fc.record(Object.fromEntries(keys.map((k) => [k, near(shape[k])])), { requiredKeys: [] })
  const withUnknown = fc
    .tuple(record, fc.option(fc.tuple(fc.constantFrom(...unknownKeys), hostileLeaf), { freq: 4 }))
    .map(([o, extra]) => (extra ? { ...o, [extra[0]]: extra[1] } : o))
  return fc.oneof(
    { arbitrary: withUnknown, weight: 6 },
    { arbitrary: fc.constant(undefined), weight: 1 },
    { arbitrary: withUnknown.map((o) => h('frozen', o)), weight: 1 },
    { arbitrary: withUnknown.map((o) => h('proxy', o)), weight: 1 },
    { arbitrary: fc.constantFrom(...keys, 'then').map((key) => h('getterThrows', { key, base: {} })), weight: 1 },
    { arbitrary: hostile, weight: 1 },
  )
}

/** A signal value for an options object. */
export const signal = signals
