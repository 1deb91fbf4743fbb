import { setTimeout as sleep } from 'node:timers/promises'

/** A record a sweep read, as its text: the text's length is what deleting it costs. */
export interface SweepCandidate {
  _id: string
  json: string
}

export interface ChunkedSweep {
  /** Up to `limit` of the records left to delete, in order, through an index: a deleted one is no longer found. */
  read(limit: number): Promise<readonly SweepCandidate[]>
  /** Deletes those of `ids` that still qualify (a record may have changed since it was read), in one transaction. */
  remove(ids: string[]): Promise<number>
  /** An error of `remove` that means another writer (a replica's sweep) changed a record first: read again. */
  raced(error: unknown): boolean
  /** True once the app is closing: no read or transaction starts after it. */
  stopped(): boolean
  /** Records per read and per transaction at most (500). */
  records?: number
  /** Record text per transaction at most (1 MiB; one record at least), and about that much per read. */
  bytes?: number
  /** Waits between transactions, given how long (ms) to: a timer by default. */
  pause?: (ms: number) => Promise<unknown>
}

/**
 * Records of the first read: sizes are unknown until then, and a read runs in one go (a full read of large
 * records holds the embedded store's event loop noticeably). Later reads take as many as fit in `bytes` at the last one's average.
 */
const FIRST_READ = 16

/**
 * A sweep is housekeeping no caller waits for: after each transaction it rests this many times as long as the
 * transaction (and its share of the read) took, so it holds at most a fifth of the event loop however large its
 * backlog. Run flat out, a large one (the change log after an import) held back every request for as long as it
 * lasted, at each start until it was gone.
 */
const REST = 4

/** `candidates` in order, cut where a group would pass `records` records or `bytes` of text. */
function* groups(candidates: readonly SweepCandidate[], records: number, bytes: number): Generator<string[]> {
  let group: string[] = []
  let size = 0
  for (const { _id, json } of candidates) {
    if (group.length > 0 && (group.length === records || size + json.length > bytes)) {
      yield group
      group = []
      size = 0
    }
    group.push(_id)
    size += json.length
  }
  if (group.length > 0) yield group
}

/**
 * Deletes every record `read` finds, in bounded transactions, resting after each (`REST`); resolves to
 * how many went. One `deleteMany` over an unbounded set is one write that holds the event loop until every match
 * is found and deleted (on the embedded store, seconds for tens of thousands of records); each
 * deletion here decodes its record, so a transaction (and a read) is bounded in text as well as in records. Ends
 * after a short read, after a full one none of which could go (each changed since), or once `stopped`, after the
 * transaction in progress.
 */
export async function sweepInChunks({
  read,
  remove,
  raced,
  stopped,
  records = 500,
  bytes = 1024 * 1024,
  pause = sleep,
}: ChunkedSweep): Promise<number> {
  let swept = 0
  let limit = Math.min(records, FIRST_READ)
  let more = !stopped()
  while (more) {
    let started = performance.now()
    const candidates = await read(limit)
    const before = swept
    let conflicted = false
    for (const ids of groups(candidates, records, bytes)) {
      if (stopped()) break
      try {
        swept += await remove(ids)
      } catch (error) {
        if (!raced(error)) throw error
        conflicted = true
      }
      await pause((performance.now() - started) * REST)
      started = performance.now()
    }
    more = !stopped() && (conflicted || (candidates.length === limit && swept > before))
    const text = candidates.reduce((sum, { json }) => sum + json.length, 0)
    if (text > 0) limit = Math.max(1, Math.min(records, Math.floor((bytes * candidates.length) / text)))
  }
  return swept
}
