import fp from 'fastify-plugin'
import { ConflictError, DuplicateKeyError, type RecordStore, type Transaction } from '@quire/records'
import { ApiError } from '@quire/service-kit'
import { DOCUMENTS_COLLECTIONS, type BulkRecord, type DocumentRecord } from '../collections.js'
import { sha256 } from '../lib/sha256.js'

/** Whose key it is: a key is the caller's own, in one definition. */
interface KeyOwner {
  environmentId: string
  definitionId: string
  userId: string
}

export interface IdempotencyKeys {
  /**
   * Runs `create` once per key and body: a retry with the same body resolves to the first document (`replayed`)
   * and creates nothing; another body is 422. `create` writes through `tx`, the transaction that also records the
   * key, so a racing retry either sees the key or conflicts. Rejects with `ConflictError` when the key stayed
   * contended through every attempt; other errors of `create` pass through.
   */
  once<T extends DocumentRecord | BulkRecord>(
    owner: KeyOwner,
    key: string,
    body: unknown,
    create: (tx: Transaction) => Promise<T>,
  ): Promise<{ document: T; replayed: boolean }>
}

declare module 'fastify' {
  interface FastifyInstance {
    idempotencyKeys: IdempotencyKeys
  }
}

const TTL_MS = 24 * 60 * 60 * 1000
/** Each round one writer wins, so this bounds contention. */
const MAX_ATTEMPTS = 16

const reusedKey = () =>
  new ApiError(
    'validation_error',
    'headers/idempotency-key was already used with a different body',
    'This request was already sent with other data',
    422,
  )

function idempotencyKeys(store: RecordStore): IdempotencyKeys {
  const records = DOCUMENTS_COLLECTIONS.idempotencyKeys.in(store)
  return {
    async once<T extends DocumentRecord | BulkRecord>(
      owner: KeyOwner,
      key: string,
      body: unknown,
      create: (tx: Transaction) => Promise<T>,
    ) {
      const id = sha256(owner.environmentId, owner.definitionId, owner.userId, key)
      const bodyHash = sha256(JSON.stringify(body))
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const previous = await records.findOne({ _id: id })
        // An expired key is replaced, at the version read.
        if (previous && Date.parse(previous.expiresOn) > Date.now()) {
          if (previous.bodyHash !== bodyHash) throw reusedKey()
          // The key's space is the call's: a create's key and a bulk call's (prefixed `bulk:`) never meet.
          return { document: previous.document as T, replayed: true }
        }
        try {
          const document = await store.transaction(async (tx) => {
            const keys = DOCUMENTS_COLLECTIONS.idempotencyKeys.in(tx)
            if (previous) await keys.deleteOne({ _id: id }, { expectedHash: previous._hash })
            const created = await create(tx)
            const expiresOn = new Date(Date.now() + TTL_MS).toISOString()
            await keys.insertOne({ _id: id, _hash: created._hash, bodyHash, document: created, expiresOn })
            return created
          })
          return { document, replayed: false }
        } catch (error) {
          // A racing retry recorded the key first: read it again.
          if (error instanceof ConflictError || (error instanceof DuplicateKeyError && error.index === '_id_')) continue
          throw error
        }
      }
      throw new ConflictError()
    },
  }
}

/** Decorates `fastify.idempotencyKeys`: the `Idempotency-Key` records of document creates. */
export const idempotencyPlugin = fp<{ store: RecordStore }>(
  async (fastify, { store }) => {
    fastify.decorate('idempotencyKeys', idempotencyKeys(store))
  },
  { name: '@quire/documents-idempotency', fastify: '5.x' },
)
