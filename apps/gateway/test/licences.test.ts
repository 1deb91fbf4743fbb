import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
/** Licences that let anyone use, change and ship Quire under Apache-2.0 without further terms. */
const ALLOWED = new Set([
  'Apache-2.0',
  'MIT',
  'MIT-0',
  'ISC',
  'BSD-2-Clause',
  'BSD-3-Clause',
  'BlueOak-1.0.0',
  '0BSD',
  'Zlib',
  '(MIT AND Zlib)',
])

interface LicensedPackage {
  name: string
  versions: string[]
}

t.test('every production dependency is under a licence on the allow list', async (t) => {
  // pnpm resolves the whole production tree of the workspace, transitive dependencies included.
  const { stdout } = await promisify(execFile)(
    'npx',
    ['-y', 'pnpm@10.34.9', 'licenses', 'list', '--prod', '--json', '--recursive'],
    { cwd: ROOT, maxBuffer: 32 * 1024 * 1024 },
  )
  const byLicence = JSON.parse(stdout) as Record<string, LicensedPackage[]>
  const total = Object.values(byLicence).reduce((sum, packages) => sum + packages.length, 0)
  t.ok(total > 50, 'the production tree was read')
  const refused = Object.entries(byLicence)
    .filter(([licence]) => !ALLOWED.has(licence))
    .flatMap(([licence, packages]) => packages.map(({ name, versions }) => `${name}@${versions.join(',')}: ${licence}`))
  t.same(refused, [], 'a new licence needs a decision, and a NOTICE line when it asks for one')
})

t.test('every package of the workspace says it is Apache-2.0', async (t) => {
  const { stdout } = await promisify(execFile)('git', ['ls-files', '*package.json'], { cwd: ROOT })
  const manifests = stdout.trim().split('\n')
  t.ok(manifests.length > 10)
  for (const path of manifests) {
    const manifest = JSON.parse(await readFile(new URL(path, `file://${ROOT}`), 'utf8')) as { license?: string }
    t.equal(manifest.license, 'Apache-2.0', path)
  }
  t.match(await readFile(`${ROOT}LICENSE`, 'utf8'), /Apache License\s+Version 2\.0/)
})
