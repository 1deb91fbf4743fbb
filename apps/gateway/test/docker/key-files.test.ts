import { execFile } from 'node:child_process'
import { createPublicKey, verify } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { delegate, useRunTokenKey } from '@quire/auth'
import t from 'tap'
import { startApp } from '../e2e/processes.js'

const SCRIPT = new URL('../../../../docker/provision-keys.mjs', import.meta.url).pathname
const ADMIN = { username: 'admin', password: 'correct horse battery' }

t.test(
  'as in compose: users signs with the private key file, the others verify with the public one alone',
  async (t) => {
    const keys = t.testdir()
    const self = `${process.getuid?.() ?? 0}:${process.getgid?.() ?? 0}`
    await promisify(execFile)(process.execPath, [
      SCRIPT,
      join(keys, 'private'),
      join(keys, 'public'),
      join(keys, 'shared'),
      self,
    ])
    const publicFile = join(keys, 'public', 'jwt-public.pem')
    const runTokenFile = join(keys, 'shared', 'run-token.key')
    const dataDir = join(keys, 'data')
    const shared = {
      QUIRE_DATA_DIR: dataDir,
      QUIRE_JWT_PUBLIC_KEY_FILE: publicFile,
      QUIRE_RUN_TOKEN_KEY_FILE: runTokenFile,
    }

    const users = await startApp('users-service', {
      ...shared,
      QUIRE_JWT_PRIVATE_KEY_FILE: join(keys, 'private', 'jwt-private.pem'),
      QUIRE_SECRETS_KEY_FILE: join(keys, 'private', 'secrets.key'),
      QUIRE_ADMIN_PASSWORD: ADMIN.password,
    })
    t.teardown(users.stop)
    const [documents, packages] = await Promise.all([
      startApp('documents-service', shared),
      startApp('packages-service', shared),
    ])
    t.teardown(() => Promise.all([documents.stop(), packages.stop()]))

    const login = await fetch(`${users.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    })
    t.equal(login.status, 200)
    const { accessToken } = ((await login.json()) as { data: { accessToken: string } }).data
    const [header = '', payload = '', signature = ''] = accessToken.split('.')
    const signed = verify(
      'sha256',
      Buffer.from(`${header}.${payload}`),
      createPublicKey(readFileSync(publicFile, 'utf8')),
      Buffer.from(signature, 'base64url'),
    )
    t.ok(signed, 'the token is signed with the provisioned private key')

    const active = await fetch(`${packages.url}/api/v2/usage-statistics/active-users`, {
      headers: { authorization: `Bearer ${accessToken}`, 'environment-id': 'default' },
    })
    t.equal(active.status, 200, 'a service with the public key alone accepts it')

    // What the documents service does for a script's REST.call through the gateway: a run token signed with the
    // provisioned key, accepted by every other service.
    const { sub } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { sub: string }
    const grant = { userId: sub, environmentId: 'default', depth: 1, ttlMs: 60_000 }
    const stranger = delegate(grant)
    t.teardown(stranger.release)
    const forged = await fetch(`${packages.url}/api/v2/packages/installations`, {
      headers: { authorization: `Bearer ${stranger.token}`, 'environment-id': 'default' },
    })
    t.equal(forged.status, 401, 'one signed with any other key is refused')
    useRunTokenKey(Buffer.from(readFileSync(runTokenFile, 'utf8').trim(), 'base64'))
    const run = delegate(grant)
    t.teardown(run.release)
    for (const url of [`${packages.url}/api/v2/packages/installations`, `${users.url}/api/v2/users?limit=1`]) {
      const res = await fetch(url, { headers: { authorization: `Bearer ${run.token}`, 'environment-id': 'default' } })
      t.equal(res.status, 200, `a run token signed with the shared key is accepted: ${url}`)
    }

    const ready = await fetch(`${documents.url}/ready`)
    t.equal(ready.status, 200)
    t.same(((await ready.json()) as { data: { checks: string[] } }).data.checks, ['records', 'files', 'disk'])
    t.notOk(existsSync(join(dataDir, 'keys')), 'no process generated a key pair of its own')
  },
)
