import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { RecordStore } from '@quire/records'
import { createUsersRepository, type UsersRepository } from '../domain/users-repository.js'

declare module 'fastify' {
  interface FastifyInstance {
    users: UsersRepository
  }
}

/** `app.users`: the accounts, and their entries per environment. */
export const usersRepositoryPlugin = fp(
  async (app: FastifyInstance, { store }: { store: RecordStore }) => {
    app.decorate('users', createUsersRepository(store))
  },
  { name: '@quire/users-repository', fastify: '5.x' },
)
