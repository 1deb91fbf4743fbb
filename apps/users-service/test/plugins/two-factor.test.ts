import { createHash } from 'node:crypto'
import t, { type Test } from 'tap'
import { Secret, TOTP } from 'otpauth'
import { createServer, loadConfig, mountService } from '@quire/service-kit'
import { COLLECTIONS } from '../../src/collections.js'
import { ConfigSchema } from '../../src/config.js'
import { service } from '../../src/service.js'
import { ADMIN, build, ENV_A, headers, type Built } from '../helper.js'

const PASSWORD = 'alice password'
const SEALED = /^v1\$[\w-]{16}\$[\w-]{22}\$[\w-]+$/

async function alice(built: Built): Promise<{ userId: string; session: string }> {
  const created = await built.call({
    method: 'POST',
    url: '/api/v2/users',
    headers: headers(built.token(built.adminId), ENV_A),
    payload: { username: 'alice', password: PASSWORD },
  })
  const userId: string = created.json().data[0]._id
  const session: string = (await login(built.server, {})).json().data.accessToken
  return { userId, session }
}

const login = (server: Built['server'], extra: Record<string, string>) =>
  server.inject({ method: 'POST', url: '/auth/login', payload: { username: 'alice', password: PASSWORD, ...extra } })

const codeAt = (secret: string, timestamp: number) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp })

/** The users service started again on the same store and keys, as after an upgrade. */
async function restart(t: Test, built: Built): Promise<Built['server']> {
  const config = loadConfig(ConfigSchema, {
    QUIRE_DATA_DIR: built.resources.dataDir,
    QUIRE_ENVIRONMENT_ID: ENV_A,
    QUIRE_ADMIN_USERNAME: ADMIN.username,
    QUIRE_ADMIN_PASSWORD: ADMIN.password,
  })
  const server = createServer({ logLevel: 'silent' })
  await mountService(server, service, {
    store: built.resources.store,
    keys: built.resources.keys,
    config,
    now: () => built.clock.now,
  })
  t.teardown(() => server.close())
  await server.ready()
  return server
}

t.test('a TOTP secret and the recovery codes are stored sealed; 2FA login works with them', async (t) => {
  const built = await build(t)
  const { userId, session } = await alice(built)
  const auth = { authorization: `Bearer ${session}` }
  const users = COLLECTIONS.users.in(built.resources.store)

  const setup = await built.call({ method: 'POST', url: '/auth/2fa/setup', headers: auth })
  t.equal(setup.statusCode, 200)
  const { secret } = setup.json().data
  const pending = (await users.findOne({ _id: userId }))?.authentication.totpSecret ?? ''
  t.match(pending, SEALED, 'the stored secret is sealed')
  t.notMatch(pending, secret, 'and is not the secret')

  const enabled = await built.call({
    method: 'POST',
    url: '/auth/2fa/enable',
    headers: auth,
    payload: { code: codeAt(secret, built.clock.now), password: PASSWORD },
  })
  t.equal(enabled.statusCode, 200)
  const recoveryCodes: string[] = enabled.json().data.recoveryCodes
  const stored = (await users.findOne({ _id: userId }))?.authentication
  t.equal(stored?.totpSecret, pending)
  t.equal(stored?.recoveryCodeHashes?.length, 10)
  const plainHashes = recoveryCodes.map((code) => createHash('sha256').update(code.replace('-', '')).digest('hex'))
  for (const value of stored?.recoveryCodeHashes ?? []) {
    t.match(value, SEALED)
    t.notOk(
      plainHashes.some((hash) => value.includes(hash)),
      'no recovery code hash in clear',
    )
  }

  built.clock.now += 30_000
  t.equal((await login(built.server, {})).statusCode, 401, 'a code is required')
  t.equal((await login(built.server, { code: codeAt(secret, built.clock.now) })).statusCode, 200)
  t.equal((await login(built.server, { code: recoveryCodes[3] ?? '' })).statusCode, 200, 'a recovery code works')
  t.equal((await login(built.server, { code: recoveryCodes[3] ?? '' })).statusCode, 401, 'once')
  t.equal((await users.findOne({ _id: userId }))?.authentication.recoveryCodeHashes?.length, 9)
})

t.test('2FA stored in clear by an earlier version still works, and is sealed at the next start', async (t) => {
  const built = await build(t)
  const { userId } = await alice(built)
  const users = COLLECTIONS.users.in(built.resources.store)
  const secret = 'JBSWY3DPEHPK3PXP'
  const recoveryCode = 'abcde-12345'
  const legacyHashes = ['abcde12345', '0123456789'].map((code) => createHash('sha256').update(code).digest('hex'))
  await users.updateOne(
    { _id: userId },
    {
      $set: {
        'authentication.totpSecret': secret,
        'authentication.totpEnabled': true,
        'authentication.recoveryCodeHashes': legacyHashes,
      },
    },
  )
  t.equal((await login(built.server, { code: codeAt(secret, built.clock.now) })).statusCode, 200, 'read in clear')

  const restarted = await restart(t, built)
  const sealed = (await users.findOne({ _id: userId }))?.authentication
  t.match(sealed?.totpSecret, SEALED, 'the secret is sealed at start')
  t.equal(sealed?.totpEnabled, true)
  t.equal(sealed?.recoveryCodeHashes?.length, 2)
  for (const value of sealed?.recoveryCodeHashes ?? []) t.match(value, SEALED)

  built.clock.now += 30_000
  t.equal((await login(restarted, { code: codeAt(secret, built.clock.now) })).statusCode, 200, 'the same secret')
  t.equal((await login(restarted, { code: codeAt(secret, built.clock.now) })).statusCode, 401, 'not replayed')
  t.equal((await login(restarted, { code: recoveryCode })).statusCode, 200, 'the same recovery codes')
  t.equal((await login(restarted, { code: recoveryCode })).statusCode, 401)

  const before = (await users.findOne({ _id: userId }))?.authentication
  await restart(t, built)
  t.same((await users.findOne({ _id: userId }))?.authentication, before, 'a sealed value is not sealed again')
})

t.test('the users service does not start without its secrets key', async (t) => {
  const built = await build(t)
  const { secretsKey: _, ...withoutSecretsKey } = built.resources.keys
  const server = createServer({ logLevel: 'silent' })
  t.teardown(() => server.close())
  const config = loadConfig(ConfigSchema, { QUIRE_DATA_DIR: built.resources.dataDir })
  await t.rejects(
    mountService(server, service, { store: built.resources.store, keys: withoutSecretsKey, config }).then(() =>
      server.ready(),
    ),
    /QUIRE_SECRETS_KEY/,
  )
})
