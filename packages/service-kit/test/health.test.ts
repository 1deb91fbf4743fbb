import t from 'tap'
import { statfs } from 'node:fs/promises'
import { join } from 'node:path'
import { createServer, diskSpaceCheck } from '../src/index.js'

t.test('/health answers; /ready answers 503 while a dependency is down', async (t) => {
  const app = createServer({ logLevel: 'silent' })
  let storeUp = false
  app.addReadinessCheck('records', async () => {
    if (!storeUp) throw new Error('down')
  })
  const health = await app.inject({ method: 'GET', url: '/health' })
  t.equal(health.statusCode, 200)
  t.equal(health.json().status, 'ok')

  const down = await app.inject({ method: 'GET', url: '/ready' })
  t.equal(down.statusCode, 503)
  t.equal(down.json().error, 'service_unavailable')

  storeUp = true
  const up = await app.inject({ method: 'GET', url: '/ready' })
  t.equal(up.statusCode, 200)
  t.same(up.json(), { status: 'ok', data: { checks: ['records'] } })
})

t.test('/ready answers 503 under the free-space floor of the data disk and says why; /health stays 200', async (t) => {
  const app = createServer({ logLevel: 'silent' })
  let free = 672 * 1024
  app.addReadinessCheck('records', async () => {
    throw new Error('connect ECONNREFUSED 10.0.0.7:27017')
  })
  app.addReadinessCheck(
    'disk',
    diskSpaceCheck('/srv/quire', 64, async () => ({ bavail: free / 4096, bsize: 4096 })),
  )

  const full = await app.inject({ method: 'GET', url: '/ready' })
  t.equal(full.statusCode, 503)
  t.equal(full.json().error, 'service_unavailable')
  t.equal(
    full.json().description,
    'Not ready: records, disk (0.7 MB free on the data disk, under the floor of 64 MB (QUIRE_MIN_FREE_DISK_MB))',
  )
  t.notMatch(full.body, /ECONNREFUSED|srv/, "another check's error and the path stay out of the answer")
  t.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200)

  free = 65 * 2 ** 20
  const roomy = await app.inject({ method: 'GET', url: '/ready' })
  t.equal(roomy.statusCode, 503)
  t.equal(roomy.json().description, 'Not ready: records', 'the disk has room again')
})

t.test('the disk check reads the real disk; a data dir not made yet, or a floor of 0, passes', async (t) => {
  const dir = t.testdir()
  const { bavail, bsize } = await statfs(dir)
  const freeMb = Math.floor((bavail * bsize) / 2 ** 20)
  await t.resolves(diskSpaceCheck(dir, 1)())
  await t.rejects(diskSpaceCheck(dir, freeMb + 1024)(), { name: 'NotReadyError' })
  await t.resolves(diskSpaceCheck(dir, 0)())
  await t.resolves(diskSpaceCheck(join(dir, 'not-yet'), freeMb + 1024)())
})
