import { randomBytes } from 'node:crypto'
import { ApiError } from '@quire/service-kit'
import { admin } from '@quire/users-service'
import { ACTOR, readConfig, withStore } from '../context.js'
import { CliError, print, type Io } from '../io.js'

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

export async function createAdministrator(
  io: Io,
  username: string,
  options: { environment?: string; passwordStdin?: boolean },
): Promise<void> {
  const config = readConfig(io)
  const secret = await choosePassword(io, options.passwordStdin === true)
  await withStore(config, async (store) => {
    const users = admin(store, ACTOR)
    await users.ensureIndexes()
    const environmentId = options.environment
    if (environmentId !== undefined && !(await users.environment(environmentId))) {
      throw new CliError(`there is no environment "${environmentId}"`)
    }
    // The service's own rules: the username checked and normalised, unique in any case or form.
    try {
      await users.createAdministrator({ username, password: secret.password, environmentId })
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
    if (!(await admin(store, ACTOR).resetPassword(username, secret.password))) {
      throw new CliError(`there is no user "${username}"`)
    }
    print(io, `reset the password of "${username}"; every session of the user has ended`)
  })
  showPassword(io, username, secret)
}
