import t, { type Test } from 'tap'
import type { PackageVersion } from '@quire/contracts'
import { createEnvironment } from '@quire/testing'
import { PACKAGES_COLLECTIONS } from '../../src/collections.js'
import { build, type Harness } from '../helper.js'

async function setup(t: Test) {
  const harness = await build(t)
  await createEnvironment(harness.store, 'env_a')
  const superAdministrator = await harness.signIn({ superAdministrator: true })
  const administrator = await harness.signIn({ environments: { env_a: { administrator: true } } })
  return { ...harness, superAdministrator, administrator }
}

const createPackage = async (h: Harness, headers: Record<string, string>, body: object) =>
  h.server.inject({ method: 'POST', url: '/api/v2/packages', headers, payload: body })

t.test('a super-administrator creates packages; names are unique', async (t) => {
  const h = await setup(t)
  const body = { name: 'invoicing', label: 'Invoicing', shortDescription: 'Invoices and reminders' }
  const created = await createPackage(h, h.superAdministrator.headers(), body)
  t.equal(created.statusCode, 201)
  const data = created.json().data
  t.match(data, {
    ...body,
    _id: /^[0-9a-f]{24}$/,
    _createdByUserId: h.superAdministrator.userId,
    _lastModifiedByUserId: h.superAdministrator.userId,
  })
  t.same(await PACKAGES_COLLECTIONS.packages.in(h.store).findOne({ _id: data._id }), data, 'stored as returned')

  const duplicate = await createPackage(h, h.superAdministrator.headers(), { ...body, label: 'Other' })
  t.equal(duplicate.statusCode, 409)
  t.equal(duplicate.json().error, 'duplicate_name')
  t.equal(await PACKAGES_COLLECTIONS.packages.in(h.store).count({}), 1)

  const invalid = await createPackage(h, h.superAdministrator.headers(), { name: 'x', shortDescription: '' })
  t.equal(invalid.statusCode, 400)
  t.equal(invalid.json().error, 'validation_error')
  t.match(invalid.json().description, /label/)

  const extra = await createPackage(h, h.superAdministrator.headers(), { ...body, name: 'y', price: 3 })
  t.equal(extra.statusCode, 400, 'unknown fields are refused')

  const notSuper = await createPackage(h, h.administrator.headers('env_a'), { ...body, name: 'z' })
  t.equal(notSuper.statusCode, 403)
  t.equal(notSuper.json().error, 'forbidden')

  const anonymous = await createPackage(h, {}, { ...body, name: 'z' })
  t.equal(anonymous.statusCode, 401)
  t.equal(anonymous.json().error, 'unauthorized')
  t.equal(await PACKAGES_COLLECTIONS.packages.in(h.store).count({}), 1, 'refused calls store nothing')
})

t.test('versions: semver checked, unique per package, published by PATCH', async (t) => {
  const h = await setup(t)
  const headers = h.superAdministrator.headers()
  const pkg = (await createPackage(h, headers, { name: 'crm', label: 'CRM', shortDescription: '' })).json().data
  const url = `/api/v2/packages/${pkg._id}/versions`
  const versions = PACKAGES_COLLECTIONS.packageVersions.in(h.store)

  const draft = await h.server.inject({ method: 'POST', url, headers, payload: { versionNumber: '1.0.0' } })
  t.equal(draft.statusCode, 201)
  const version = draft.json().data
  t.match(version, { packageId: pkg._id, versionNumber: '1.0.0', availableOnMarketplace: false }, 'a draft by default')
  t.same(await versions.findOne({ _id: version._id }), version)

  const duplicate = await h.server.inject({
    method: 'POST',
    url,
    headers,
    payload: { versionNumber: '1.0.0', availableOnMarketplace: true },
  })
  t.equal(duplicate.statusCode, 409)
  t.equal(duplicate.json().error, 'duplicate_name')

  for (const versionNumber of ['1.0', 'v1.0.1', '1.0.1+build.5', '01.0.0', 'latest', '']) {
    const bad = await h.server.inject({ method: 'POST', url, headers, payload: { versionNumber } })
    t.equal(bad.statusCode, 400, `${JSON.stringify(versionNumber)} is refused`)
    t.equal(bad.json().error, 'validation_error')
    t.match(bad.json().description, /versionNumber/)
  }
  t.equal(await versions.count({ packageId: pkg._id }), 1)

  const unknownPackage = await h.server.inject({
    method: 'POST',
    url: '/api/v2/packages/nope/versions',
    headers,
    payload: { versionNumber: '1.0.0' },
  })
  t.equal(unknownPackage.statusCode, 404)
  t.equal(unknownPackage.json().error, 'package_not_found')

  const published = await h.server.inject({
    method: 'PATCH',
    url: `${url}/${version._id}`,
    headers,
    payload: { availableOnMarketplace: true },
  })
  t.equal(published.statusCode, 200)
  t.match(published.json().data, { _id: version._id, versionNumber: '1.0.0', availableOnMarketplace: true })
  t.equal((await versions.findOne({ _id: version._id }))?.availableOnMarketplace, true)

  const other = (await createPackage(h, headers, { name: 'other', label: 'Other', shortDescription: '' })).json().data
  const wrongPackage = await h.server.inject({
    method: 'PATCH',
    url: `/api/v2/packages/${other._id}/versions/${version._id}`,
    headers,
    payload: { availableOnMarketplace: false },
  })
  t.equal(wrongPackage.statusCode, 404, 'a version is addressed under its own package')
  t.equal(wrongPackage.json().error, 'package_not_found')
  t.equal((await versions.findOne({ _id: version._id }))?.availableOnMarketplace, true)

  const unknownVersion = await h.server.inject({
    method: 'PATCH',
    url: `${url}/nope`,
    headers,
    payload: { availableOnMarketplace: false },
  })
  t.equal(unknownVersion.statusCode, 404)
  t.equal(unknownVersion.json().error, 'package_not_found')

  const renumber = await h.server.inject({
    method: 'PATCH',
    url: `${url}/${version._id}`,
    headers,
    payload: { versionNumber: '2.0.0' },
  })
  t.equal(renumber.statusCode, 400, 'a version number never changes')
  t.equal(renumber.json().error, 'validation_error')

  const byAdministrator = await h.server.inject({
    method: 'PATCH',
    url: `${url}/${version._id}`,
    headers: h.administrator.headers('env_a'),
    payload: { availableOnMarketplace: false },
  })
  t.equal(byAdministrator.statusCode, 403)
  const addByAdministrator = await h.server.inject({
    method: 'POST',
    url,
    headers: h.administrator.headers('env_a'),
    payload: { versionNumber: '3.0.0' },
  })
  t.equal(addByAdministrator.statusCode, 403)
  t.equal(addByAdministrator.json().error, 'forbidden')
})

t.test('the marketplace list: pages, versions highest first, drafts only for super-administrators', async (t) => {
  const h = await setup(t)
  const headers = h.superAdministrator.headers()
  const first = (await createPackage(h, headers, { name: 'a', label: 'A', shortDescription: '' })).json().data
  const second = (await createPackage(h, headers, { name: 'b', label: 'B', shortDescription: '' })).json().data
  for (const [versionNumber, availableOnMarketplace] of [
    ['9.0.0', true],
    ['10.0.0', true],
    ['10.0.0-rc.1', true],
    ['11.0.0', false],
  ] as const) {
    await h.server.inject({
      method: 'POST',
      url: `/api/v2/packages/${first._id}/versions`,
      headers,
      payload: { versionNumber, availableOnMarketplace },
    })
  }

  const page = await h.server.inject({ method: 'GET', url: '/api/v2/packages?limit=1', headers })
  t.equal(page.statusCode, 200)
  const body = page.json()
  t.same(
    body.data.map((p: { _id: string }) => p._id),
    [first._id],
  )
  t.same(
    body.data[0].versions.map((v: PackageVersion) => v.versionNumber),
    ['11.0.0', '10.0.0', '10.0.0-rc.1', '9.0.0'],
  )
  t.same(body.pagination, { hasPrevious: false, hasNext: true, type: 'cursor', next: `limit=1&after=${first._id}` })

  const next = await h.server.inject({ method: 'GET', url: `/api/v2/packages?${body.pagination.next}`, headers })
  t.same(
    next.json().data.map((p: { _id: string }) => p._id),
    [second._id],
  )
  t.same(next.json().data[0].versions, [])
  t.same(next.json().pagination, { hasPrevious: true, hasNext: false, type: 'cursor' })

  const browsing = await h.server.inject({ method: 'GET', url: '/api/v2/packages', headers: h.administrator.headers() })
  t.equal(browsing.statusCode, 200, 'any signed-in caller browses, without environment-id')
  t.same(
    browsing.json().data[0].versions.map((v: PackageVersion) => v.versionNumber),
    ['10.0.0', '10.0.0-rc.1', '9.0.0'],
    'drafts stay hidden',
  )

  const anonymous = await h.server.inject({ method: 'GET', url: '/api/v2/packages' })
  t.equal(anonymous.statusCode, 401)
  t.equal(anonymous.json().error, 'unauthorized')

  const badLimit = await h.server.inject({ method: 'GET', url: '/api/v2/packages?limit=0', headers })
  t.equal(badLimit.statusCode, 400)
  t.equal(badLimit.json().error, 'validation_error')
})
