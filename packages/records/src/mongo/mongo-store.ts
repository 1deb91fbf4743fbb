import { MongoClient } from 'mongodb'
import { StoreUnavailableError } from '../errors.js'
import type { Collection, RecordStore, StoredRecord, Transaction } from '../port.js'
import { sequencedId, sequencesOf } from '../sequenced-id.js'
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
            // The counter's update write-conflicts with any other transaction's until that one commits (and
            // `withTransaction` retries): numbers follow commit order. Chosen over change streams: the log is
            // then the same records on both adapters, read by one tail, and its retention is the service's.
            async append(name, partition, entry) {
              const counters = db.collection<{ _id: string; seq: number }>(sequencesOf(name))
              const counter = await counters.findOneAndUpdate(
                { _id: partition },
                { $inc: { seq: 1 } },
                { upsert: true, returnDocument: 'after', session, maxTimeMS },
              )
              const seq = counter?.seq ?? 1
              await db
                .collection<StoredRecord>(name)
                .insertOne({ ...entry, _id: sequencedId(partition, seq), seq }, { session, maxTimeMS })
            },
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
