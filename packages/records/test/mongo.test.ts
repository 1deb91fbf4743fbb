import t from 'tap'
import { MongoServerError } from 'mongodb'
import { DuplicateKeyError, newObjectId, openRecordStore, QueryTooLargeError } from '../src/index.js'
import { ignoreCode, mapDuplicate, mapQueryErrors } from '../src/mongo/mongo-errors.js'
import { recordStoreContract } from './record-store-contract.js'

// The adapter's own logic that needs no server: how driver errors become the port's errors.
t.test('E11000 becomes DuplicateKeyError named after the index, with the duplicate values', async (t) => {
  const duplicate = new MongoServerError({
    message: 'E11000 duplicate key error collection: quire.documents index: externalId dup key: { externalId: "a" }',
    code: 11000,
    keyValue: { externalId: 'a' },
  })
  const error = await mapDuplicate(() => Promise.reject(duplicate)).catch((caught: unknown) => caught)
  t.ok(error instanceof DuplicateKeyError)
  t.equal((error as DuplicateKeyError).index, 'externalId')
  const other = new MongoServerError({ message: 'not primary', code: 10107 })
  await t.rejects(
    mapDuplicate(() => Promise.reject(other)),
    other,
    'other server errors pass through unchanged',
  )
  t.equal(await mapDuplicate(async () => 'written'), 'written')
})

t.test("the server's refusal of a sort past its memory limit becomes QueryTooLargeError", async (t) => {
  const refused = new MongoServerError({
    message: 'Executor error during find command :: caused by :: Sort exceeded memory limit of 104857600 bytes',
    code: 292,
  })
  await t.rejects(
    mapQueryErrors(() => Promise.reject(refused)),
    QueryTooLargeError,
  )
  const other = new MongoServerError({ message: 'not primary', code: 10107 })
  await t.rejects(
    mapQueryErrors(() => Promise.reject(other)),
    other,
  )
})

t.test("a query stopped by the server's maxTimeMS becomes QueryTooLargeError", async (t) => {
  const expired = new MongoServerError({ message: 'operation exceeded time limit', code: 50 })
  await t.rejects(
    mapQueryErrors(() => Promise.reject(expired)),
    QueryTooLargeError,
  )
})

t.test('ignoreCode swallows only the named server error', async (t) => {
  const missing = new MongoServerError({ message: 'ns not found', code: 26 })
  await t.resolves(ignoreCode(26, () => Promise.reject(missing)))
  await t.rejects(
    ignoreCode(27, () => Promise.reject(missing)),
    missing,
  )
  await t.rejects(
    ignoreCode(26, () => Promise.reject(new Error('network'))),
    /network/,
  )
})

// The shared contract suite, when a server is given (none can be installed on our CI machines).
const mongoUrl = process.env.QUIRE_TEST_MONGO_URL
if (!mongoUrl) {
  t.comment('QUIRE_TEST_MONGO_URL is not set: the contract suite runs on the embedded adapter only')
} else {
  const mongoDb = `quire_test_${newObjectId()}`
  recordStoreContract(t, { open: (dataDir) => openRecordStore({ dataDir, mongoUrl, mongoDb }) })
}
