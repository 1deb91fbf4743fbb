import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { LoginBodySchema, LoginResultSchema, Ok, type UserRecord } from '@quire/contracts'
import { fail } from '@quire/service-kit'
import type { RecordStore } from '@quire/records'
import { verifyPassword } from '../plugins/passwords.js'

export interface AuthRoutesOptions {
  store: RecordStore
  accessTokenTtl: number
}

/** `/auth/*`: how a token is first obtained. No environment, no bearer token. */
export const authRoutes: FastifyPluginAsyncTypebox<AuthRoutesOptions> = async (app, { store, accessTokenTtl }) => {
  const users = store.collection<UserRecord>('users')

  app.post('/login', { schema: { body: LoginBodySchema, response: { 200: Ok(LoginResultSchema) } } }, async function login(request) {
    const { username, password } = request.body
    const user =
      (await users.findOne({ username })) ?? (await users.findOne({ 'globalEmails.address': username.toLowerCase() }))
    // Same answer whichever part was wrong, and a hash is computed either way so timing does not tell.
    const valid = await verifyPassword(password, user?.authentication.passwordHash ?? DUMMY_HASH)
    if (!user || !valid) throw fail('unauthorized', 'Wrong username or password')
    await users.updateOne({ _id: user._id }, { $set: { lastLogin: new Date().toISOString() } })
    const accessToken = app.auth.issueAccessToken(user._id)
    return { status: 'ok' as const, data: { accessToken, tokenType: 'Bearer' as const, expiresIn: accessTokenTtl, userId: user._id } }
  })
}

const DUMMY_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='
