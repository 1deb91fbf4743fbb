// The peer Quire is measured against: Parse Server on PostgreSQL 15, installed by the bench itself (parse-server
// from the npm registry into a cache folder, PostgreSQL and wrk from Debian's packages), never a test dependency.
import { execFileSync, spawn } from 'node:child_process'
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { createServer } from 'node:net'
import { homedir } from 'node:os'
import { join } from 'node:path'

export const PARSE_VERSION = '9.10.0'
const PG_BIN = '/usr/lib/postgresql/15/bin'
const CACHE = process.env.BENCH_CACHE ?? join(homedir(), '.cache', 'quire-bench')
const APP_ID = 'quire-bench'
const MASTER_KEY = 'quire-bench-master-key'
export const PARSE_HEADERS = {
  'x-parse-application-id': APP_ID,
  'x-parse-master-key': MASTER_KEY,
  'content-type': 'application/json',
}

function aptInstall(pkg) {
  console.error(`installing ${pkg} from Debian`)
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' })
  execFileSync('apt-get', ['install', '-y', '-qq', pkg], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  })
}

export function ensureWrk() {
  try {
    execFileSync('wrk', ['-v'], { stdio: 'ignore' })
  } catch (error) {
    // wrk -v exits 1 after printing its version: only a missing binary is ENOENT.
    if (error.code === 'ENOENT') aptInstall('wrk')
  }
}

/**
 * parse-server from npm into the cache folder, once (its `router` pinned: router 2.3.0 breaks Parse's /batch), and
 * PostgreSQL 15 from Debian when missing. Returns the path of parse-server's command-line entry.
 */
export function ensureParse() {
  const dir = join(CACHE, `parse-server-${PARSE_VERSION}`)
  const manifest = join(dir, 'node_modules/parse-server/package.json')
  if (!existsSync(manifest) || JSON.parse(readFileSync(manifest, 'utf8')).version !== PARSE_VERSION) {
    console.error(`installing parse-server@${PARSE_VERSION} into ${dir}`)
    mkdirSync(dir, { recursive: true })
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({
        name: 'quire-bench-parse',
        private: true,
        dependencies: { 'parse-server': PARSE_VERSION },
        overrides: { router: '2.2.0' },
      }),
    )
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'inherit' })
  }
  if (!existsSync(join(PG_BIN, 'initdb'))) aptInstall('postgresql-15')
  return join(dir, 'node_modules/parse-server/bin/parse-server')
}

export const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })

const asPostgres = (args) => execFileSync('runuser', ['-u', 'postgres', '--', ...args], { stdio: 'pipe' })

/**
 * A PostgreSQL 15 cluster in a folder of its own under /tmp, run by the `postgres` user (which must read every
 * folder above its data: 0755), reached over TCP on loopback only. Debian's default settings, fsync on.
 */
export async function createPostgres() {
  const root = mkdtempSync('/tmp/quire-bench-pg-')
  chmodSync(root, 0o755)
  const data = join(root, 'data')
  mkdirSync(data)
  const { uid, gid } = userIds('postgres')
  chownSync(data, uid, gid)
  asPostgres([join(PG_BIN, 'initdb'), '-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8'])
  const port = await freePort()
  const pgCtl = (...args) =>
    asPostgres([
      join(PG_BIN, 'pg_ctl'),
      '-D',
      data,
      '-l',
      join(data, 'server.log'),
      '-w',
      '-o',
      `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`,
      ...args,
    ])
  pgCtl('start')
  return {
    root,
    uri: `postgres://postgres@127.0.0.1:${port}/postgres`,
    restart: () => pgCtl('-m', 'fast', 'restart'),
    sql: (statement) =>
      execFileSync(join(PG_BIN, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-qc', statement]),
    destroy() {
      pgCtl('-m', 'fast', 'stop')
      rmSync(root, { recursive: true, force: true })
    },
  }
}

function userIds(name) {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith(`${name}:`))
  const [, , uid, gid] = line.split(':')
  return { uid: Number(uid), gid: Number(gid) }
}

/**
 * Starts Parse Server on `postgres` and resolves once its health route answers. Its errors go to `parse.log` in
 * the cluster's folder: connections it still held when stopped would otherwise fill the bench's output.
 */
export async function startParse(entry, postgres) {
  const port = await freePort()
  const log = openSync(join(postgres.root, 'parse.log'), 'a')
  const child = spawn(
    process.execPath,
    [
      entry,
      '--appId',
      APP_ID,
      '--masterKey',
      MASTER_KEY,
      '--databaseURI',
      postgres.uri,
      '--port',
      String(port),
      '--mountPath',
      '/parse',
      '--logLevel',
      'error',
    ],
    {
      cwd: postgres.root,
      env: { PATH: process.env.PATH, PARSE_SERVER_LOGS_FOLDER: 'null' },
      stdio: ['ignore', 'ignore', log],
    },
  )
  closeSync(log)
  const url = `http://127.0.0.1:${port}`
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) {
      throw new Error(`parse-server exited with ${child.exitCode}; see ${join(postgres.root, 'parse.log')}`)
    }
    try {
      if ((await fetch(`${url}/parse/health`)).ok) break
    } catch {}
    if (attempt === 600) throw new Error('parse-server did not start')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return { child, url }
}
