/**
 * `quire restore` walks a store it is about to put in place in a process of its own: a damaged lmdb file can end
 * the process that maps it (SIGBUS), and the CLI must live to say so and leave the data as it was.
 */
import { walkEmbeddedStore } from '@quire/records'

const dataDir = process.argv[2]
if (dataDir === undefined) throw new Error('usage: walk-store <dataDir>')
try {
  process.stdout.write(`${await walkEmbeddedStore(dataDir)}\n`)
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`)
  process.exitCode = 1
}
