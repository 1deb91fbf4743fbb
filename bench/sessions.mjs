// What checking the session costs (issue 37 item 5): requests identified with an access token of a renewable
// sign-in (its `sid` read from the store with the user) against `/auth/login`'s plain access tokens, in alternating
// rounds of the same run, in-process (`inject`) on the embedded store, so the auth path is all that is measured.
//   node bench/sessions.mjs      (after `npm run build`; BENCH_REQUESTS per round, BENCH_ROUNDS)
import { authPlugin } from '../packages/auth/dist/index.js'
import { IDENTITY_COLLECTIONS, recordsIdentity } from '../packages/identity/dist/index.js'
import { createServer } from '../packages/service-kit/dist/index.js'
import { accessToken, createUser, testResources } from '../packages/testing/dist/index.js'

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 500)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20)

const teardowns = []
const resources = await testResources({ teardown: (fn) => teardowns.push(fn) })
const server = createServer({ logLevel: 'silent' })
await server.register(authPlugin, {
  keys: { publicKey: resources.keys.publicKey },
  identity: recordsIdentity(resources.store),
})
server.get('/whoami', { onRequest: server.auth.authenticate }, async (request) => request.caller.userId)
await server.ready()

const user = await createUser(resources.store)
await IDENTITY_COLLECTIONS.sessions
  .in(resources.store)
  .insertOne({ _id: 'bench-session', userId: user._id, expiresAt: Date.now() + 86_400_000 })
const tokens = {
  plain: accessToken(resources.keys.privateKey, user._id),
  session: accessToken(resources.keys.privateKey, user._id, { sessionId: 'bench-session' }),
}

/** Requests per second of `REQUESTS` sequential requests with `token`. */
async function round(token) {
  const headers = { authorization: `Bearer ${token}` }
  const start = process.hrtime.bigint()
  for (let i = 0; i < REQUESTS; i++) {
    const response = await server.inject({ method: 'GET', url: '/whoami', headers })
    if (response.statusCode !== 200) throw new Error(`answered ${response.statusCode}`)
  }
  return REQUESTS / (Number(process.hrtime.bigint() - start) / 1e9)
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
// A warm-up of each, then alternating rounds: the machine's speed moves, both kinds with it.
await round(tokens.plain)
await round(tokens.session)
const rates = { plain: [], session: [] }
for (let i = 0; i < ROUNDS; i++) {
  for (const kind of i % 2 === 0 ? ['plain', 'session'] : ['session', 'plain']) {
    rates[kind].push(await round(tokens[kind]))
  }
}
const plain = median(rates.plain)
const session = median(rates.session)
console.log(
  JSON.stringify({
    requestsPerRound: REQUESTS,
    rounds: ROUNDS,
    plainPerSecond: Math.round(plain),
    sessionPerSecond: Math.round(session),
    sessionToPlain: Number((session / plain).toFixed(2)),
  }),
)

await server.close()
for (const fn of teardowns.reverse()) await fn()
