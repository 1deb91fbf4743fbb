import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import type { Teardown } from './index.js'

const run = promisify(execFile)
const WORKSPACE_FOLDERS = ['apps', 'packages']
/** A step that hangs fails the test naming itself, well before the test's own time-out. */
const STEP_MS = 600_000

interface Manifest {
  name: string
  dependencies?: Record<string, string>
}

/** The workspace's packages by name, each with its folder. */
async function workspacePackages(root: string): Promise<Map<string, string>> {
  const found = new Map<string, string>()
  for (const folder of WORKSPACE_FOLDERS) {
    for (const entry of await readdir(join(root, folder), { withFileTypes: true })) {
      if (!entry.isDirectory()) continue
      const dir = join(root, folder, entry.name)
      const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as Manifest
      found.set(manifest.name, dir)
    }
  }
  return found
}

/**
 * Packs `name` and every workspace package it depends on with `pnpm pack` (which writes each `workspace:`
 * range as the version), then installs those tarballs alone into an empty folder with npm, as a user would:
 * third-party dependencies come from the registry, ours only from the tarballs. Resolves to that folder, removed
 * when the test ends. The packages must be built (`dist` is what they ship).
 */
export async function installPacked(t: Teardown, root: string, name: string): Promise<string> {
  const packages = await workspacePackages(resolve(root))
  const wanted = new Set<string>()
  const visit = async (each: string): Promise<void> => {
    const dir = packages.get(each)
    if (!dir || wanted.has(each)) return
    wanted.add(each)
    const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as Manifest
    for (const [dependency, range] of Object.entries(manifest.dependencies ?? {})) {
      if (range.startsWith('workspace:')) await visit(dependency)
    }
  }
  await visit(name)
  if (!wanted.has(name)) throw new Error(`${name} is not a workspace package`)

  const work = await mkdtemp(join(tmpdir(), 'quire-pack-'))
  t.teardown(() => rm(work, { recursive: true, force: true }))
  const tarballs = join(work, 'tarballs')
  const target = join(work, 'install')
  // The workspace's own pnpm: `npx pnpm@…` would resolve it from the registry again for every package.
  const pnpm = join(resolve(root), 'node_modules', '.bin', 'pnpm')
  for (const each of wanted) {
    await run(pnpm, ['pack', '--pack-destination', tarballs], { cwd: packages.get(each), timeout: STEP_MS })
  }
  await mkdir(target)
  await writeFile(join(target, 'package.json'), JSON.stringify({ name: 'empty', private: true }))
  const files = (await readdir(tarballs)).map((file) => join(tarballs, file))
  const npm = (args: string[]) => run('npm', args, { cwd: target, maxBuffer: 16 * 1024 * 1024, timeout: STEP_MS })
  await npm([
    'install',
    '--no-audit',
    '--no-fund',
    '--prefer-offline',
    '--loglevel=error',
    '--ignore-scripts',
    ...files,
  ])
  await borrowBuilds(target, resolve(root), npm)
  return target
}

/** Dependencies built from source at install (their install scripts are skipped above). */
const NATIVE_BUILDS = ['re2']

/**
 * re2's install script downloads its binary from GitHub, which CI machines cannot reach, and then compiles it from
 * source for many minutes. The workspace already holds a build of the same version for the same Node (in pnpm's
 * store folder): the installed copy gets it, and only a version the workspace does not hold is rebuilt.
 */
async function borrowBuilds(target: string, root: string, npm: (args: string[]) => Promise<unknown>): Promise<void> {
  for (const name of NATIVE_BUILDS) {
    // npm installs flat: a dependency that is not at the top is not in the tree (resolving it could reach past it).
    const installed = join(target, 'node_modules', name)
    if (!existsSync(installed)) continue
    const { version } = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as { version: string }
    const built = join(root, 'node_modules', '.pnpm', `${name}@${version}`, 'node_modules', name, 'build')
    if (existsSync(built)) await cp(built, join(installed, 'build'), { recursive: true })
    else await npm(['rebuild', name])
  }
}
