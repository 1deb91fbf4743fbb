import { join } from 'node:path'
import { open } from 'lmdb'

/** The named databases of an embedded store (see `Engine`), read as raw bytes. */
const DATABASES = ['meta', 'settings', 'records', 'entries'] as const

/**
 * Opens the store of `dataDir` read-only and reads every key and value of every database: a damaged page makes
 * lmdb throw (or, for a truncated map, end the process with SIGBUS: run it in a process of its own). Resolves to
 * how many entries it read.
 */
export async function walkEmbeddedStore(dataDir: string): Promise<number> {
  const env = open({ path: join(dataDir, 'records'), readOnly: true, maxDbs: 8, encoding: 'binary' })
  let entries = 0
  try {
    for (const name of DATABASES) {
      const db = env.openDB({ name, encoding: 'binary', keyEncoding: 'binary' })
      for (const entry of db.getRange()) {
        if (entry.value === undefined) throw new Error(`${name}: an entry without a value`)
        entries++
      }
    }
  } finally {
    await env.close()
  }
  return entries
}

/**
 * The process ids holding a reader slot of the store of `dataDir`: processes that have the store open and have
 * read from it, as every Quire server has (opening it here takes no slot). Slots of processes that died are
 * cleared first.
 */
export async function embeddedStoreUsers(dataDir: string): Promise<number[]> {
  const env = open({ path: join(dataDir, 'records'), readOnly: true, maxDbs: 8 })
  try {
    env.readerCheck()
    const pids = new Set<number>()
    // lmdb's reader table as text: a header line, then "<pid> <thread> <txnid>" per slot.
    for (const line of env.readerList().split('\n')) {
      const pid = Number(line.trim().split(/\s+/)[0])
      if (Number.isInteger(pid) && pid > 0) pids.add(pid)
    }
    return [...pids]
  } finally {
    await env.close()
  }
}
