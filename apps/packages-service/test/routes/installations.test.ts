import t, { type Test } from 'tap'
import type { PackageInstallation } from '@quire/contracts'
import { createEnvironment } from '@quire/testing'
import { PACKAGES_COLLECTIONS } from '../../src/collections.js'
import { build } from '../helper.js'

const url = '/api/v2/packages/installations'

/** Two environments, their administrators, a member of A, and a super-administrator to run the marketplace. */
async function setup(t: Test) {
  const h = await build(t)
  await createEnvironment(h.store, 'env_a')
  await createEnvironment(h.store, 'env_b')
  const superAdministrator = await h.signIn({ superAdministrator: true })
  const adminA = await h.signIn({ environments: { env_a: { administrator: true } } })
  const adminB = await h.signIn({ environments: { env_b: { administrator: true } } })
  const memberA = await h.signIn({ environments: { env_a: {} } })

  const marketplace = superAdministrator.headers()
  /** A package with versions (`[versionNumber, availableOnMarketplace]`); returns its id and version ids by number. */
  async function publish(name: string, label: string, versions: [string, boolean][]) {
    const pkg = await h.server.inject({
      method: 'POST',
      url: '/api/v2/packages',
      headers: marketplace,
      payload: { name, label, shortDescription: `About ${name}` },
    })
    const packageId: string = pkg.json().data._id
    const versionIds: Record<string, string> = {}
    for (const [versionNumber, availableOnMarketplace] of versions) {
      const res = await h.server.inject({
        method: 'POST',
        url: `/api/v2/packages/${packageId}/versions`,
        headers: marketplace,
        payload: { versionNumber, availableOnMarketplace },
      })
      versionIds[versionNumber] = res.json().data._id
    }
    return { packageId, versionIds }
  }
  async function setAvailable(packageId: string, versionId: string, availableOnMarketplace: boolean) {
    const res = await h.server.inject({
      method: 'PATCH',
      url: `/api/v2/packages/${packageId}/versions/${versionId}`,
      headers: marketplace,
      payload: { availableOnMarketplace },
    })
    t.equal(res.statusCode, 200)
  }
  const install = (headers: Record<string, string>, packageVersionId: string) =>
    h.server.inject({ method: 'POST', url, headers, payload: { packageVersionId } })
  async function list(headers: Record<string, string>): Promise<PackageInstallation[]> {
    const res = await h.server.inject({ method: 'GET', url, headers })
    t.equal(res.statusCode, 200)
    t.equal(res.json().status, 'ok')
    return res.json().data
  }
  return { ...h, superAdministrator, adminA, adminB, memberA, publish, setAvailable, install, list }
}

t.test('GET installations: every refusal is 401, a missing environment-id is 400', async (t) => {
  const h = await setup(t)
  const expectUnauthorized = async (headers: Record<string, string>, why: string) => {
    const res = await h.server.inject({ method: 'GET', url, headers })
    t.equal(res.statusCode, 401, why)
    t.same(Object.keys(res.json()).sort(), ['description', 'error', 'message', 'status', 'userDescription'])
    t.equal(res.json().error, 'unauthorized')
  }
  await expectUnauthorized({ 'environment-id': 'env_a' }, 'no token')
  await expectUnauthorized(
    { 'environment-id': 'env_a', authorization: 'Bearer not-a-real-token-at-all' },
    'garbage token',
  )
  await expectUnauthorized(
    { 'environment-id': 'env_a', authorization: 'Bearer aaaaaaaaaa.bbbbbbbbbb.cccccccccc' },
    'malformed JWT',
  )
  await expectUnauthorized(
    { 'environment-id': 'env_a', authorization: `Bearer ${h.token(h.adminA.userId, { expiresIn: -60 })}` },
    'expired token',
  )
  await expectUnauthorized(h.memberA.headers('env_a'), 'a member who is not an administrator')
  await expectUnauthorized(h.adminB.headers('env_a'), 'an administrator of another environment')
  await expectUnauthorized(h.superAdministrator.headers('env_missing'), 'an environment that does not exist')
  const inactive = await h.signIn({ environments: { env_a: { administrator: true, active: false } } })
  await expectUnauthorized(inactive.headers('env_a'), 'a deactivated administrator')

  const noEnvironment = await h.server.inject({ method: 'GET', url, headers: h.adminA.headers() })
  t.equal(noEnvironment.statusCode, 400)
  t.equal(noEnvironment.json().error, 'environment_id_missing')
  const anonymousNoEnvironment = await h.server.inject({ method: 'GET', url })
  t.equal(anonymousNoEnvironment.statusCode, 400, 'the environment is checked first, as on every call')

  t.same(await h.list(h.adminA.headers('env_a')), [], 'an administrator is let in')
  t.same(await h.list(h.superAdministrator.headers('env_a')), [], 'so is a super-administrator')
})

t.test('install, upgrade and remove; one installation per package and environment', async (t) => {
  const h = await setup(t)
  const { packageId, versionIds } = await h.publish('invoicing', 'Invoicing', [
    ['1.0.0', true],
    ['1.1.0', true],
    ['2.0.0', false],
  ])
  const installations = PACKAGES_COLLECTIONS.packageInstallations.in(h.store)
  const headers = h.adminA.headers('env_a')

  const installed = await h.install(headers, versionIds['1.0.0']!)
  t.equal(installed.statusCode, 201)
  const expected = {
    packageId,
    packageVersionId: versionIds['1.0.0'],
    packageName: 'invoicing',
    packageLabel: 'Invoicing',
    packageShortDescription: 'About invoicing',
    versionNumber: '1.0.0',
    latestVersionNumber: '1.1.0',
  }
  t.same(installed.json(), { status: 'ok', data: expected })
  t.match(await installations.find({}), [
    { environmentId: 'env_a', packageId, packageVersionId: versionIds['1.0.0'], _createdByUserId: h.adminA.userId },
  ])
  t.same(await h.list(headers), [expected], 'the list shows exactly the spec fields')

  const upgraded = await h.install(headers, versionIds['1.1.0']!)
  t.equal(upgraded.statusCode, 200, 'an upgrade is not a creation')
  t.same(upgraded.json().data, { ...expected, packageVersionId: versionIds['1.1.0'], versionNumber: '1.1.0' })
  t.equal(await installations.count({}), 1, 'still one installation')
  t.equal((await installations.findOne({ packageId }))?.packageVersionId, versionIds['1.1.0'])

  const draft = await h.install(headers, versionIds['2.0.0']!)
  t.equal(draft.statusCode, 404, 'a version not on the marketplace cannot be installed')
  t.equal(draft.json().error, 'package_not_found')
  const unknown = await h.install(headers, 'no-such-version')
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().error, 'package_not_found')
  const invalid = await h.server.inject({ method: 'POST', url, headers, payload: { versionId: versionIds['1.0.0'] } })
  t.equal(invalid.statusCode, 400)
  t.equal(invalid.json().error, 'validation_error')
  t.match(invalid.json().description, /packageVersionId/)
  t.equal(
    (await installations.findOne({ packageId }))?.packageVersionId,
    versionIds['1.1.0'],
    'refused calls change nothing',
  )

  const removed = await h.server.inject({ method: 'DELETE', url: `${url}/${packageId}`, headers })
  t.equal(removed.statusCode, 200)
  t.same(removed.json(), { status: 'ok', data: { packageId, deleted: true } })
  t.equal(await installations.count({}), 0)
  const again = await h.server.inject({ method: 'DELETE', url: `${url}/${packageId}`, headers })
  t.equal(again.statusCode, 404)
  t.equal(again.json().error, 'package_not_found')
})

t.test('install and remove need an administrator of the environment', async (t) => {
  const h = await setup(t)
  const { packageId, versionIds } = await h.publish('crm', 'CRM', [['1.0.0', true]])
  const versionId = versionIds['1.0.0']!

  const byMember = await h.install(h.memberA.headers('env_a'), versionId)
  t.equal(byMember.statusCode, 403)
  t.equal(byMember.json().error, 'forbidden')
  const noEnvironment = await h.install(h.adminA.headers(), versionId)
  t.equal(noEnvironment.statusCode, 400)
  t.equal(noEnvironment.json().error, 'environment_id_missing')
  const noToken = await h.install({ 'environment-id': 'env_a' }, versionId)
  t.equal(noToken.statusCode, 401)
  t.equal(noToken.json().error, 'unauthorized')
  t.equal(await PACKAGES_COLLECTIONS.packageInstallations.in(h.store).count({}), 0)

  t.equal((await h.install(h.adminA.headers('env_a'), versionId)).statusCode, 201)
  const removeByMember = await h.server.inject({
    method: 'DELETE',
    url: `${url}/${packageId}`,
    headers: h.memberA.headers('env_a'),
  })
  t.equal(removeByMember.statusCode, 403)
  t.equal(removeByMember.json().error, 'forbidden')
  t.equal(await PACKAGES_COLLECTIONS.packageInstallations.in(h.store).count({}), 1)
})

t.test('environments are isolated', async (t) => {
  const h = await setup(t)
  const { packageId, versionIds } = await h.publish('crm', 'CRM', [
    ['1.0.0', true],
    ['1.1.0', true],
  ])
  t.equal((await h.install(h.adminA.headers('env_a'), versionIds['1.0.0']!)).statusCode, 201)

  t.same(await h.list(h.adminB.headers('env_b')), [], 'B sees nothing of A')
  const removeFromB = await h.server.inject({
    method: 'DELETE',
    url: `${url}/${packageId}`,
    headers: h.adminB.headers('env_b'),
  })
  t.equal(removeFromB.statusCode, 404, 'B cannot remove what A installed')
  t.equal((await h.list(h.adminA.headers('env_a'))).length, 1)

  t.equal((await h.install(h.adminB.headers('env_b'), versionIds['1.1.0']!)).statusCode, 201, 'B installs its own')
  t.match(await h.list(h.adminA.headers('env_a')), [{ versionNumber: '1.0.0' }], 'A keeps its version')
  t.match(await h.list(h.adminB.headers('env_b')), [{ versionNumber: '1.1.0' }])
})

t.test('sorted by packageLabel, case-insensitive, ties by packageId', async (t) => {
  const h = await setup(t)
  const labels = ['banana', 'Apple', 'cherry', 'apple', 'Banana', 'APPLE']
  const published: { label: string; packageId: string }[] = []
  for (const [index, label] of labels.entries()) {
    const pkg = await h.publish(`package-${index}`, label, [['1.0.0', true]])
    published.push({ label, ...pkg })
    t.equal((await h.install(h.adminA.headers('env_a'), pkg.versionIds['1.0.0']!)).statusCode, 201)
  }
  const byId = (label: string) =>
    published
      .filter((p) => p.label.toLowerCase() === label)
      .map((p) => p.packageId)
      .sort()
  const expected = [...byId('apple'), ...byId('banana'), ...byId('cherry')]

  const items = await h.list(h.adminA.headers('env_a'))
  t.same(
    items.map((i) => i.packageId),
    expected,
  )
  t.same(
    items.map((i) => i.packageLabel.toLowerCase()),
    ['apple', 'apple', 'apple', 'banana', 'banana', 'cherry'],
  )
  t.same(
    (await h.list(h.adminA.headers('env_a'))).map((i) => i.packageId),
    expected,
    'the same order every time',
  )
})

t.test('latestVersionNumber: highest semver on the marketplace, null when none', async (t) => {
  const h = await setup(t)
  const { packageId, versionIds } = await h.publish('reports', 'Reports', [
    ['9.0.0', true],
    ['10.0.0-rc.1', true],
    ['10.0.0', false],
    ['11.0.0', false],
  ])
  await h.install(h.adminA.headers('env_a'), versionIds['9.0.0']!)
  const latest = async () => (await h.list(h.adminA.headers('env_a')))[0]?.latestVersionNumber

  t.equal(await latest(), '10.0.0-rc.1', 'a pre-release of 10 is above 9, and drafts do not count')
  await h.setAvailable(packageId, versionIds['10.0.0']!, true)
  t.equal(await latest(), '10.0.0', 'a release is above its pre-release; 10 > 9 as numbers')
  await h.setAvailable(packageId, versionIds['11.0.0']!, true)
  t.equal(await latest(), '11.0.0')
  await h.setAvailable(packageId, versionIds['11.0.0']!, false)
  t.equal(await latest(), '10.0.0', 'a withdrawn version stops counting')

  for (const version of ['9.0.0', '10.0.0-rc.1', '10.0.0']) await h.setAvailable(packageId, versionIds[version]!, false)
  const items = await h.list(h.adminA.headers('env_a'))
  t.same(
    items,
    [
      {
        packageId,
        packageVersionId: versionIds['9.0.0'],
        packageName: 'reports',
        packageLabel: 'Reports',
        packageShortDescription: 'About reports',
        versionNumber: '9.0.0',
        latestVersionNumber: null,
      },
    ],
    'the installation stays listed; null when nothing is on the marketplace',
  )
})

t.test('an installation whose package was removed from the store by hand is left out, not a 500', async (t) => {
  const h = await setup(t)
  const { packageId, versionIds } = await h.publish('gone', 'Gone', [['1.0.0', true]])
  await h.install(h.adminA.headers('env_a'), versionIds['1.0.0']!)
  await PACKAGES_COLLECTIONS.packages.in(h.store).deleteOne({ _id: packageId })
  t.same(await h.list(h.adminA.headers('env_a')), [])
})
