// bench/lib/harness.mjs records the CPU's ISA flags in every result file (machineInfo().isa).
import test from 'ava'
import { readFileSync } from 'node:fs'
import { cpuIsa, isaLine, machineInfo } from '../../bench/lib/harness.mjs'

test('machineInfo records the ISA flags of /proc/cpuinfo, and isaLine says yes/no for each', (t) => {
  const isa = machineInfo().isa
  let flags = null
  try {
    flags = new Set(
      readFileSync('/proc/cpuinfo', 'utf8')
        .match(/^flags\s*:(.*)$/m)?.[1]
        .trim()
        .split(/\s+/),
    )
  } catch {}
  if (!flags) {
    t.is(isa, null)
    t.regex(isaLine(isa), /unknown/)
    return
  }
  t.deepEqual(isa, cpuIsa())
  for (const f of ['avx512_vnni', 'avx512_vpopcntdq', 'amx_int8']) t.is(isa[f], flags.has(f), f)
  const line = isaLine({ ...isa, avx512_vnni: true, avx512_vpopcntdq: false })
  t.regex(line, /AVX-512 VNNI yes/)
  t.regex(line, /AVX-512 VPOPCNTDQ no/)
})
