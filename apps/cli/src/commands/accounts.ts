import { randomBytes } from 'node:crypto'
import Fastify from 'fastify'
import type { RecordStore } from '@quire/records'
import { ApiError } from '@quire/service-kit'
import { USERS_COLLECTIONS, ensureUsersIndexes, hashPassword, usersRepositoryPlugin } from '@quire/users-service'
import { readConfig, withStore } from '../context.js'
import { CliError, print, type Io } from '../io.js'

/** Who the records say made a change done from the command line. */
const ACTOR = 'quire-cli'
const MIN_PASSWORD = 8
const MAX_PASSWORD = 1024

/** The password from stdin (one trailing newline dropped), or a generated one the caller prints once. */
async function choosePassword(io: Io, fromStdin: boolean): Promise<{ password: string; generated: boolean }> {
  if (!fromStdin) return { password: randomBytes(18).toString('base64url'), generated: true }
  const chunks: Buffer[] = []
  for await (const chunk of io.stdin) chunks.push(Buffer.from(chunk as Buffer))
  const password = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '')
  if (password.length < MIN_PASSWORD || password.length > MAX_PASSWORD) {
    throw new CliError(`the password from stdin must have ${MIN_PASSWORD} to ${MAX_PASSWORD} characters`)
  }
  return { password, generated: false }
}

function showPassword(io: Io, username: string, { password, generated }: { password: string; generated: boolean }) {
  if (generated) print(io, `password of "${username}" (shown only this once): ${password}`)
}

/** The users service's own repository (`app.users`), on an instance that serves nothing. */
async function usersRepository(store: RecordStore) {
  const instance = Fastify({ logger: false })
  await instance.register(usersRepositoryPlugin, { store })
  await instance.ready()
  return instance.users
}

export async function createAdministrator(
  io: Io,
  username: string,
  options: { environment?: string; passwordStdin?: boolean },
): Promise<void> {
  const config = readConfig(io)
  const secret = await choosePassword(io, options.passwordStdin === true)
  await withStore(config, async (store) => {
    await ensureUsersIndexes(store)
    const environmentId = options.environment
    if (
      environmentId !== undefined &&
      !(await USERS_COLLECTIONS.environments.in(store).findOne({ _id: environmentId }))
    ) {
      throw new CliError(`there is no environment "${environmentId}"`)
    }
    const users = await usersRepository(store)
    // The service's own rules: the username checked and normalised, unique in any case or form.
    try {
      if (environmentId === undefined) {
        await users.createSuperAdministrator(username, secret.password, ACTOR)
      } else {
        await users.create({ username, password: secret.password, administrator: true }, environmentId, ACTOR)
      }
    } catch (err) {
      if (err instanceof ApiError) throw new CliError(err.message)
      throw err
    }
    print(
      io,
      environmentId === undefined
        ? `created super-administrator "${username}"`
        : `created administrator "${username}" of environment "${environmentId}"`,
    )
  })
  showPassword(io, username, secret)
}

/** As a confirmed reset does: the new password, every session ended, pending reset tokens void. */
export async function resetPassword(io: Io, username: string, options: { passwordStdin?: boolean }): Promise<void> {
  const config = readConfig(io)
  const secret = await choosePassword(io, options.passwordStdin === true)
  await withStore(config, async (store) => {
    // As the sign-in finds it: the exact username, else the one that differs only in case or form.
    const { byUsername } = await (await usersRepository(store)).findByName(username)
    const updated = await USERS_COLLECTIONS.users.in(store).updateOne(
      { _id: byUsername?._id ?? '' },
      {
        $set: {
          'authentication.passwordHash': await hashPassword(secret.password),
          'authentication.sessionsValidAfter': Date.now(),
          _lastModifiedOn: new Date().toISOString(),
          _lastModifiedByUserId: ACTOR,
        },
      },
    )
    if (!updated) throw new CliError(`there is no user "${username}"`)
    await USERS_COLLECTIONS.passwordResets.in(store).deleteMany({ userId: updated._id })
    print(io, `reset the password of "${username}"; every session of the user has ended`)
  })
  showPassword(io, username, secret)
}
