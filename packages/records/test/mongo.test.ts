import t from 'tap'
import { newObjectId, openRecordStore } from '../src/index.js'
import { recordStoreContract } from './record-store-contract.js'

const mongoUrl = process.env.QUIRE_TEST_MONGO_URL

if (!mongoUrl) {
  t.pass('QUIRE_TEST_MONGO_URL is not set: the mongo adapter is not tested here')
} else {
  const mongoDb = `quire_test_${newObjectId()}`
  recordStoreContract(t, { open: (dataDir) => openRecordStore({ dataDir, mongoUrl, mongoDb }) })
}
