// Writes a gzip and a brotli copy beside every built asset (the gateway serves them with @fastify/static's
// `preCompressed`, so nothing is compressed per request), and fails the build past the budgets, gzipped (what a
// browser downloads): the first load (the page and what it names) and the chunks loaded on use (the action
// editor, the QR code) apart, so a lazy chunk can never grow the first load unnoticed.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

const FIRST_LOAD_BUDGET = 40 * 1024
const ON_USE_BUDGET = 220 * 1024
const COMPRESSIBLE = /\.(js|css|html|svg)$/
const dist = new URL('../dist/', import.meta.url).pathname
const page = readFileSync(join(dist, 'index.html'), 'utf8')
let firstLoad = 0
let onUse = 0
for (const folder of ['', 'assets']) {
  for (const name of readdirSync(join(dist, folder))) {
    if (!COMPRESSIBLE.test(name)) continue
    const path = join(dist, folder, name)
    const body = readFileSync(path)
    const gzip = gzipSync(body, { level: 9 })
    writeFileSync(`${path}.gz`, gzip)
    writeFileSync(`${path}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }))
    // The favicon is fetched apart from the page; other files in assets/ not named by the page load on use.
    const first = name === 'index.html' || (folder === 'assets' && page.includes(`/assets/${name}"`))
    if (first) firstLoad += gzip.length
    else if (folder === 'assets') onUse += gzip.length
    console.log(`${join(folder, name)}: ${(gzip.length / 1024).toFixed(1)} kB gzip${first ? ' (first load)' : ''}`)
  }
}
const kB = (bytes) => `${(bytes / 1024).toFixed(1)} kB`
console.log(`console first load: ${kB(firstLoad)} gzip (budget ${kB(FIRST_LOAD_BUDGET)})`)
console.log(`console chunks loaded on use: ${kB(onUse)} gzip (budget ${kB(ON_USE_BUDGET)})`)
if (firstLoad > FIRST_LOAD_BUDGET || onUse > ON_USE_BUDGET) {
  console.error('the console is over its size budget')
  process.exit(1)
}
