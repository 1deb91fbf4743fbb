import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { RecordStore } from '@quire/records'
import { createMarketplace, type Marketplace } from '../domain/marketplace.js'

declare module 'fastify' {
  interface FastifyInstance {
    marketplace: Marketplace
  }
}

/** The package marketplace, shared by every environment; managed by super-administrators. */
export const marketplacePlugin = fp(
  async (app: FastifyInstance, { store }: { store: RecordStore }) => {
    app.decorate('marketplace', createMarketplace(store))
  },
  { name: '@quire/packages-marketplace', fastify: '5.x' },
)
