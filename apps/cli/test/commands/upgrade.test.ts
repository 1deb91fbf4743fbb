import t from 'tap'
import { documentsCollection, DOCUMENTS_COLLECTIONS } from '@quire/documents-service'
import { openEmbeddedStore } from '@quire/records'
import { DEFINITIONS, login, quire, serve, tempDir } from '../helper.js'

t.test('upgrade creates the missing indexes, definitions included, says so, and can run again', async (t) => {
  const dataDir = await tempDir(t)
  const running = await serve(t, dataDir)
  const admin = (await login(running.server, 'admin', 'correct horse battery', 'default')).headers
  const payload = { name: 'orders', indexes: [{ fields: { code: 1 }, unique: true }] }
  const created = await running.server.inject({ method: 'POST', url: DEFINITIONS, headers: admin, payload })
  const definition = (created.json() as { data: { _id: string } }).data
  const collection = documentsCollection({ _id: definition._id, _environmentId: 'default' })
  // As if an older version had not made the declared index: dropped behind the service's back.
  await collection.in(running.store).dropIndex('dd_code_1_unique')
  await running.close()

  for (let run = 0; run < 2; run++) {
    const result = await quire(['upgrade'], { QUIRE_DATA_DIR: dataDir })
    t.equal(result.code, 0, result.stderr)
    t.match(result.stdout, /users service: indexes of users/)
    t.match(result.stdout, /packages service: indexes of packages/)
    t.match(result.stdout, /indexes of 1 definitions' document collections ensured/)
  }
  const store = openEmbeddedStore(dataDir)
  t.teardown(() => store.close())
  const documents = store.collection(collection.name)
  await documents.insertOne({ _id: 'a', code: 1 })
  await t.rejects(documents.insertOne({ _id: 'b', code: 1 }), { name: 'DuplicateKeyError' }, 'the index is back')
  t.ok(await DOCUMENTS_COLLECTIONS.definitions.in(store).findOne({ _id: definition._id }))
})
