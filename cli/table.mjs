// Plain-text tables for terminals: first column left-aligned, the rest right-aligned, numbers to 4 decimals.
export function formatTable(header, rows) {
  const cells = [header, ...rows.map((r) => r.map((c) => (typeof c === 'number' ? c.toFixed(4) : String(c))))]
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i].length)))
  const line = (r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')
  return [line(cells[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n')
}

/** Configuration name -> metric -> mean, as a table with one row per configuration. */
export function metricsTable(results, metrics) {
  return formatTable(
    ['configuration', ...metrics],
    Object.entries(results).map(([name, mean]) => [name, ...metrics.map((m) => mean[m])]),
  )
}
