import t from 'tap'
import { byVersionDescending, highestVersionPerPackage, isCanonicalVersion } from '../../src/lib/version-numbers.js'

t.test('only canonical semantic versions are accepted', async (t) => {
  for (const good of ['1.0.0', '0.0.1', '10.20.30', '2.0.0-rc.1', '1.0.0-alpha.beta']) {
    t.ok(isCanonicalVersion(good), good)
  }
  for (const bad of ['1.0', 'v1.0.1', '1.0.1+build.5', '01.0.0', 'latest', '', ' 1.0.0']) {
    t.notOk(isCanonicalVersion(bad), JSON.stringify(bad))
  }
})

t.test('highest first: numbers as numbers, a release above its pre-releases', async (t) => {
  const numbers = ['9.0.0', '10.0.0-rc.1', '10.0.0', '1.0.0', '10.0.0-beta.2', '10.0.0-beta.10']
  t.same(
    numbers
      .map((versionNumber) => ({ versionNumber }))
      .sort(byVersionDescending)
      .map((v) => v.versionNumber),
    ['10.0.0', '10.0.0-rc.1', '10.0.0-beta.10', '10.0.0-beta.2', '9.0.0', '1.0.0'],
  )
})

t.test('the highest version number of each package', async (t) => {
  const versions = [
    { packageId: 'a', versionNumber: '9.0.0' },
    { packageId: 'b', versionNumber: '1.0.0-rc.1' },
    { packageId: 'a', versionNumber: '10.0.0' },
    { packageId: 'b', versionNumber: '0.9.0' },
  ]
  t.same(
    highestVersionPerPackage(versions),
    new Map([
      ['a', '10.0.0'],
      ['b', '1.0.0-rc.1'],
    ]),
  )
  t.same(versions[0], { packageId: 'a', versionNumber: '9.0.0' }, 'the input is left in its order')
  t.same(highestVersionPerPackage([]), new Map())
})
