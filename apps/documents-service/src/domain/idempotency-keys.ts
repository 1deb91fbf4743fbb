import { ConflictError, DuplicateKeyError, type RecordStore, type Transaction } from '@quire/records'
import { ApiError, sweepInChunks } from '@quire/service-kit'
import { DOCUMENTS_COLLECTIONS, type BulkRecord, type DocumentRecord } from '../collections.js'
import { sha256 } from '../lib/sha256.js'
import type { Clock, Log } from './deps.js'

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
  /**
   * Deletes the keys past their 24 h, in transactions of at most 500 keys and 1 MiB of their records
   * (`sweepInChunks`); resolves to how many went. The plugin runs it at start and hourly; replicas may run it
   * together (a conflict reads again).
   */
  sweep(): Promise<number>
}

const TTL_MS = 24 * 60 * 60 * 1000
/** Each round one writer wins, so this bounds contention. */
const MAX_ATTEMPTS = 16
/** As the actions plugin sweeps its run records. */
const SWEEP_INTERVAL_MS = 60 * 60 * 1000
const reusedKey = () =>
  new ApiError(
    'validation_error',
    'headers/idempotency-key was already used with a different body',
    'This request was already sent with other data',
    422,
  )

/** `start` the hourly sweep once serving, `stop` it as closing starts, `close` waits for one in progress. */
export interface SweptIdempotencyKeys extends IdempotencyKeys {
  start(): void
  stop(): void
  close(): Promise<void>
}

export function createIdempotencyKeys(deps: { store: RecordStore; clock: Clock; log: Log }): SweptIdempotencyKeys {
  const { store, log, clock: now } = deps
  const records = DOCUMENTS_COLLECTIONS.idempotencyKeys.in(store)
  let closed = false
  let sweeper: NodeJS.Timeout | undefined
  let sweeping: Promise<number> | undefined

  /** Oldest first through the `expires` index; each key only if it is still expired (a retry may have replaced it). */
  function sweepExpired(): Promise<number> {
    const expired = { expiresOn: { $lt: new Date(now()).toISOString() } }
    return sweepInChunks({
      read: (limit) => records.findText(expired, { sort: { expiresOn: 1 }, limit }),
      remove: (ids) =>
        store.transaction(async (tx) => {
          const keys = DOCUMENTS_COLLECTIONS.idempotencyKeys.in(tx)
          let deleted = 0
          for (const _id of ids) if (await keys.deleteOne({ _id, ...expired })) deleted++
          return deleted
        }),
      raced: (error) => error instanceof ConflictError,
      stopped: () => closed,
    })
  }

  /** One sweep at a time: a timer that fires while one still runs (a large backlog) joins it. */
  function sweep(): Promise<number> {
    sweeping ??= sweepExpired().finally(() => {
      sweeping = undefined
    })
    return sweeping
  }

  function sweepInBackground(): void {
    sweep().catch((error: unknown) => {
      if (!closed) log.error({ err: error }, 'expired idempotency keys could not be swept')
    })
  }

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
        if (previous && Date.parse(previous.expiresOn) > now()) {
          if (previous.bodyHash !== bodyHash) throw reusedKey()
          // The key's space is the call's: a create's key and a bulk call's (prefixed `bulk:`) never meet.
          return { document: previous.document as T, replayed: true }
        }
        try {
          const document = await store.transaction(async (tx) => {
            const keys = DOCUMENTS_COLLECTIONS.idempotencyKeys.in(tx)
            if (previous) await keys.deleteOne({ _id: id }, { expectedHash: previous._hash })
            const created = await create(tx)
            const expiresOn = new Date(now() + TTL_MS).toISOString()
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

    sweep,

    start() {
      sweeper = setInterval(sweepInBackground, SWEEP_INTERVAL_MS).unref()
      setImmediate(sweepInBackground)
    },

    stop() {
      closed = true
      clearInterval(sweeper)
    },

    async close() {
      // A sweep stops after its transaction in progress; the store must outlive it. A failure went to its caller.
      await sweeping?.catch(() => undefined)
    },
  }
}
