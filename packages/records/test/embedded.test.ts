import t from 'tap'
import { openEmbeddedStore, type EmbeddedRecordStore, type RecordStore } from '../src/index.js'
import { recordStoreContract } from './record-store-contract.js'

recordStoreContract(t, {
  open: async (dataDir) => openEmbeddedStore(dataDir),
  reads: (store: RecordStore) => (store as EmbeddedRecordStore).stats.reads,
})
