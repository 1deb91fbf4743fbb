import t, { type Test } from 'tap'
import { createServer } from '@quire/service-kit'
import { testResources } from '@quire/testing'
import { COLLECTIONS } from '../../src/collections.js'
import { verifyPassword } from '../../src/lib/passwords.js'
import { bootstrapPlugin } from '../../src/plugins/bootstrap.js'

/** Starts the plugin on its own and returns what it printed on stdout. */
async function start(t: Test, options: Parameters<typeof bootstrapPlugin>[1]): Promise<string> {
  const server = createServer({ logLevel: 'silent' })
  t.teardown(() => server.close())
  let printed = ''
  const write = process.stdout.write
  process.stdout.write = (chunk: string | Uint8Array) => {
    printed += String(chunk)
    return true
  }
  try {
    await server.register(bootstrapPlugin, options)
    await server.ready()
  } finally {
    process.stdout.write = write
  }
  return printed
}

t.test('an empty store gets the environment and a super-administrator, with a password shown once', async (t) => {
  const { store } = await testResources(t)
  const printed = await start(t, { store, environmentId: 'first', username: 'root' })
  const password = /password: (\S+)/.exec(printed)?.[1] ?? ''
  t.ok(password.length >= 24, 'a generated password is printed')

  const [admin, ...others] = await COLLECTIONS.users.in(store).find({})
  t.equal(others.length, 0)
  t.match(admin, {
    username: 'root',
    isSuperAdministrator: true,
    environmentIds: ['first'],
    activeEnvironmentIds: ['first'],
    profile: { environments: { first: { administrator: true, active: true } } },
  })
  t.equal(await verifyPassword(password, admin?.authentication.passwordHash), true)
  t.match(await COLLECTIONS.environments.in(store).find({}), [
    { _id: 'first', name: 'first', _createdByUserId: admin?._id },
  ])

  const again = await start(t, { store, environmentId: 'second', username: 'other' })
  t.equal(again, '', 'a store with users is left alone')
  t.equal(await COLLECTIONS.users.in(store).count({}), 1)
  t.equal(await COLLECTIONS.environments.in(store).count({}), 1)
})

t.test('a configured password is used and never printed', async (t) => {
  const { store } = await testResources(t)
  const printed = await start(t, { store, environmentId: 'first', username: 'root', password: 'configured pw' })
  t.equal(printed, '')
  const admin = await COLLECTIONS.users.in(store).findOne({ username: 'root' })
  t.equal(await verifyPassword('configured pw', admin?.authentication.passwordHash), true)
})
