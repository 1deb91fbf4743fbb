import { MongoClient } from 'mongodb'
import { StoreUnavailableError } from '../errors.js'
import type { Collection, RecordStore, StoredRecord, Transaction } from '../port.js'
import { MongoCollection } from './mongo-collection.js'
import { ignoreCode } from './mongo-errors.js'

const NAMESPACE_NOT_FOUND = 26

/** The mongo adapter; transactions need a replica set (as Mongo itself requires). */
export async function openMongoStore(url: string, dbName: string, maxTimeMS: number): Promise<RecordStore> {
  const client = new MongoClient(url)
  try {
    await client.connect()
  } catch (error) {
    throw new StoreUnavailableError('cannot reach mongo', { cause: error })
  }
  const db = client.db(dbName)
  return {
    collection<T extends StoredRecord = StoredRecord>(name: string): Collection<T> {
      return new MongoCollection<T>(db.collection(name), maxTimeMS)
    },
    async transaction<R>(work: (tx: Transaction) => Promise<R>): Promise<R> {
      const session = client.startSession()
      try {
        return await session.withTransaction(() =>
          work({
            collection: <T extends StoredRecord = StoredRecord>(name: string): Collection<T> =>
              new MongoCollection<T>(db.collection(name), maxTimeMS, session),
          }),
        )
      } finally {
        await session.endSession()
      }
    },
    async dropCollection(name: string): Promise<void> {
      await ignoreCode(NAMESPACE_NOT_FOUND, () => db.dropCollection(name))
    },
    async ping(): Promise<void> {
      try {
        await db.command({ ping: 1 })
      } catch (error) {
        throw new StoreUnavailableError('mongo does not answer', { cause: error })
      }
    },
    async close(): Promise<void> {
      await client.close()
    },
  }
}
