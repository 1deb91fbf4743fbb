// The ceiling: a bare Fastify hello-world, started the same way as Quire (own process, loopback, no logger).
import Fastify from 'fastify'

const app = Fastify()
app.get('/', async () => ({ hello: 'world' }))
// The same answer to a POST, after Fastify's own JSON body parsing: what taking a body in costs bare Fastify.
app.post('/', async () => ({ hello: 'world' }))
await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' })
console.log(`listening ${app.server.address().port}`)
