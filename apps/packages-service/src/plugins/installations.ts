import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { RecordStore } from '@quire/records'
import { createInstallations, type Installations } from '../domain/installations.js'

declare module 'fastify' {
  interface FastifyInstance {
    installations: Installations
  }
}

/** Packages installed per environment. */
export const installationsPlugin = fp(
  async (app: FastifyInstance, { store }: { store: RecordStore }) => {
    app.decorate('installations', createInstallations(store))
  },
  { name: '@quire/packages-installations', fastify: '5.x' },
)
