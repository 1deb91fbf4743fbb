import t, { type Test } from 'tap'
import { newObjectId } from '@quire/records'
import { testResources } from '@quire/testing'
import type { DocumentRecord } from '../../src/collections.js'
import { arrayText, hashed, RECORDS_COMPRESSION_DICTIONARY, storedHash, withField } from '../../src/lib/stored-text.js'
import { storedDocuments } from '../helper.js'

/** What the fast path needs of a stored text: it ends with its `_hash`, as a top-level last key. */
function endsWithHash(t: Test, json: string, hash: string, what: string) {
  t.ok(json.endsWith(`,"_hash":"${hash}"}`), `${what}: the text ends with its _hash`)
  t.equal(Object.keys(JSON.parse(json) as object).at(-1), '_hash', `${what}: _hash is the last key`)
  t.equal(storedHash(json), hash, `${what}: read from the text's end`)
}

function newDocument(fields: Record<string, unknown> = {}): DocumentRecord {
  const now = new Date().toISOString()
  return hashed<DocumentRecord>({
    _id: newObjectId(),
    _createdOn: now,
    _createdByUserId: 'u',
    _lastModifiedOn: now,
    _lastModifiedByUserId: 'u',
    _documentDefinitionId: 'd',
    _environmentId: 'e',
    ...fields,
    status: 'ready',
    accessGroups: [],
    _hash: '',
  })
}

t.test('the embedded store keeps `_hash` last through insert, replace and $set', async (t) => {
  const { store } = await testResources(t)
  const documents = storedDocuments(store, 'invariant')
  const text = async (id: string) => (await documents.findText({ _id: id }))[0]?.json ?? ''

  const record = newDocument({ title: 'x', nested: { _hash: 'D'.repeat(32) } })
  await documents.insertOne(record)
  endsWithHash(t, await text(record._id), record._hash, 'insert')

  const { _id, ...replacement } = hashed({ ...newDocument({ other: [1, 2] }), _id: record._id })
  await documents.updateOne({ _id }, replacement)
  endsWithHash(t, await text(_id), replacement._hash, 'replace')

  await documents.updateOne({ _id }, { $set: { status: 'done', other: { a: 1 }, _hash: 'S'.repeat(32) } })
  endsWithHash(t, await text(_id), 'S'.repeat(32), '$set of existing fields')

  await store.transaction(async (tx) => {
    await storedDocuments(tx, 'invariant').updateOne({ _id }, { $set: { _hash: 'T'.repeat(32) } })
  })
  endsWithHash(t, await text(_id), 'T'.repeat(32), '$set in a transaction')

  // A field a `$set` adds goes after `_hash`: no write of the service does that, and the reader still gets it right.
  await documents.updateOne({ _id }, { $set: { added: true, _hash: 'A'.repeat(32) } })
  const json = await text(_id)
  t.ok(json.endsWith('"added":true}'))
  t.equal(storedHash(json), 'A'.repeat(32), 'parsed when the text does not end with _hash')
})

t.test('the pieces of a text', async (t) => {
  const record = newDocument({ a: 1 })
  t.equal(Object.keys(record).at(-1), '_hash', 'hashed keeps `_hash` where the record has it: last')
  t.match(record._hash, /^[\w-]{32}$/)
  t.not(hashed({ ...record, _hash: '' })._hash, record._hash, 'new on every write')
  t.equal(withField('{"a":1}', '"b":2'), '{"a":1,"b":2}')
  t.equal(
    arrayText([
      { _id: '1', json: '{"_id":"1"}' },
      { _id: '2', json: '{"_id":"2"}' },
    ]),
    '[{"_id":"1"},{"_id":"2"}]',
  )
  t.equal(arrayText([]), '[]')
  t.equal(storedHash('{"_hash":"abc","x":{"_hash":"nested"}}'), 'abc', 'a nested `_hash` at the end is not taken')
})

t.test('the compression dictionary is part of the stored format: its text never changes', async (t) => {
  t.equal(
    RECORDS_COMPRESSION_DICTIONARY.toString(),
    '{"_id":"000000000000000000000000","_createdOn":"2026-01-01T00:00:00.000Z",' +
      '"_createdByUserId":"000000000000000000000000","_lastModifiedOn":"2026-01-01T00:00:00.000Z",' +
      '"_lastModifiedByUserId":"000000000000000000000000","_documentDefinitionId":"000000000000000000000000",' +
      '"_environmentId":"default","externalId":"","status":"ready","accessGroups":[],"_hash":""}',
  )
})
