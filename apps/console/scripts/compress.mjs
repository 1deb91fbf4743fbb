// Writes a gzip and a brotli copy beside every built asset (the gateway serves them with @fastify/static's
// `preCompressed`, so nothing is compressed per request), and fails the build when the console's files
// together pass the budget, gzipped (what a browser downloads).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

const BUDGET = 100 * 1024
const COMPRESSIBLE = /\.(js|css|html|svg)$/
const dist = new URL('../dist/', import.meta.url).pathname
let total = 0
for (const folder of ['', 'assets']) {
  for (const name of readdirSync(join(dist, folder))) {
    if (!COMPRESSIBLE.test(name)) continue
    const path = join(dist, folder, name)
    const body = readFileSync(path)
    const gzip = gzipSync(body, { level: 9 })
    writeFileSync(`${path}.gz`, gzip)
    writeFileSync(`${path}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }))
    total += gzip.length
    console.log(`${join(folder, name)}: ${(gzip.length / 1024).toFixed(1)} kB gzip`)
  }
}
console.log(`console total: ${(total / 1024).toFixed(1)} kB gzip (budget ${BUDGET / 1024} kB)`)
if (total > BUDGET) {
  console.error('the console is over its size budget')
  process.exit(1)
}
