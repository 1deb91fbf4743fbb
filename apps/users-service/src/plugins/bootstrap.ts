import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { bootstrapStore, type BootstrapOptions } from '../domain/bootstrap.js'

/**
 * Creates the first environment and its super-administrator when the store has no user yet; decorates nothing.
 * A generated password is printed once, on stdout, never logged.
 */
export const bootstrapPlugin = fp(
  async (app: FastifyInstance, options: BootstrapOptions) => {
    const created = await bootstrapStore(options)
    if (!created) return
    app.log.info({ environmentId: created.environmentId, username: created.username }, 'bootstrapped an empty store')
    if (created.generatedPassword !== undefined) {
      process.stdout.write(
        `\nQuire first start: super-administrator "${created.username}" created with password: ` +
          `${created.generatedPassword}\nIt is shown only this once; change it or set QUIRE_ADMIN_PASSWORD.\n\n`,
      )
    }
  },
  { name: '@quire/users-bootstrap', fastify: '5.x' },
)
