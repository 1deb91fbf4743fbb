import t from 'tap'
import type { PackageInstallation } from '@quire/contracts'
import type { PackageRecord, PackageVersionRecord } from '../../src/collections.js'
import { byLabelThenId, installationItem } from '../../src/lib/installation-items.js'

const system = { _createdOn: '', _createdByUserId: 'u', _lastModifiedOn: '', _lastModifiedByUserId: 'u' }
const pkg: PackageRecord = { _id: 'p1', name: 'crm', label: 'CRM', shortDescription: 'Customers', ...system }
const version: PackageVersionRecord = {
  _id: 'v1',
  packageId: 'p1',
  versionNumber: '1.0.0',
  availableOnMarketplace: true,
  ...system,
}

t.test('an item carries exactly the spec fields, latest from the map or null', async (t) => {
  const expected = {
    packageId: 'p1',
    packageVersionId: 'v1',
    packageName: 'crm',
    packageLabel: 'CRM',
    packageShortDescription: 'Customers',
    versionNumber: '1.0.0',
  }
  t.same(installationItem(pkg, version, new Map([['p1', '2.0.0']])), { ...expected, latestVersionNumber: '2.0.0' })
  t.same(installationItem(pkg, version, new Map([['p2', '2.0.0']])), { ...expected, latestVersionNumber: null })
})

t.test('by label case-insensitively but accent-aware, ties by package id', async (t) => {
  const item = (packageId: string, packageLabel: string) => ({ packageId, packageLabel }) as PackageInstallation
  const sorted = [item('4', 'banana'), item('3', 'Apple'), item('2', 'Äpfel'), item('1', 'apple'), item('0', 'apfel')]
    .sort(byLabelThenId)
    .map((i) => `${i.packageLabel}#${i.packageId}`)
  t.same(sorted, ['apfel#0', 'Äpfel#2', 'apple#1', 'Apple#3', 'banana#4'])
})
