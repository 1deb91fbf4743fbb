// Fails the build when the console's JS and CSS together pass the budget, gzipped (what a browser downloads).
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'

const BUDGET = 100 * 1024
const assets = new URL('../dist/assets/', import.meta.url).pathname
let total = 0
for (const name of readdirSync(assets)) {
  const size = gzipSync(readFileSync(join(assets, name)), { level: 9 }).length
  total += size
  console.log(`${name}: ${(size / 1024).toFixed(1)} kB gzip`)
}
console.log(`console total: ${(total / 1024).toFixed(1)} kB gzip (budget ${BUDGET / 1024} kB)`)
if (total > BUDGET) {
  console.error('the console is over its size budget')
  process.exit(1)
}
