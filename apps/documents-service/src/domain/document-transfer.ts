import { rm } from 'node:fs/promises'
import { Readable } from 'node:stream'
import { stringify } from 'csv-stringify/sync'
import type { Scope } from '@quire/auth'
import type {
  ExportQuerystring,
  ImportRowError,
  ImportSummary,
  ListQuerystring,
  TransferFormat,
} from '@quire/contracts'
import { IMPORT_MAX_ERRORS } from '@quire/contracts'
import { runAccounted, type RecordText } from '@quire/records'
import { ApiError, fail, type SharedCounts } from '@quire/service-kit'
import type { DefinitionRecord, DocumentFields } from '../collections.js'
import { csvCell } from '../lib/csv-cells.js'
import { userFields, userPart } from '../lib/document-fields.js'
import { importRecords } from '../lib/import-records.js'
import { parseListQuery } from '../lib/list-query.js'
import { sha256 } from '../lib/sha256.js'
import { spool } from '../lib/spool.js'
import { isoTime, type Clock } from './deps.js'
import { newRecord } from './document-records.js'
import type { Documents } from './documents.js'

/** What an export reads: the list's `query`, `sort` and `fields` (JSON texts, checked as the list checks them). */
type ExportQuery = Omit<ExportQuerystring, 'format'>

export interface DocumentTransfer {
  /**
   * Every document matching `query` that the caller may see, as a stream of `format` text, read page by page
   * (keyset) on the environment's work account. The first page is read before it resolves, so a refused query
   * is an error answer, not a cut stream.
   */
  exportDocuments(
    scope: Scope,
    definition: DefinitionRecord,
    query: ExportQuery,
    format: TransferFormat,
  ): Promise<Readable>
  /**
   * Creates a document per record of `body` (spooled to disk, checked whole, then written in bulk batches);
   * records that cannot be documents are counted and listed. With `idempotencyKey`, a retry of the same body
   * creates nothing again (`replayed`).
   */
  importDocuments(
    scope: Scope,
    definition: DefinitionRecord,
    body: Readable,
    format: TransferFormat,
    idempotencyKey?: string,
  ): Promise<{ summary: ImportSummary; replayed: boolean }>
}

export interface TransferLimits {
  /** Largest import body, in bytes (`QUIRE_IMPORT_BODY_LIMIT`). */
  bodyLimit: number
  /** Most records in one import (`QUIRE_IMPORT_MAX_ROWS`). */
  maxRows: number
  /** Imports and exports of one environment in progress at once (`QUIRE_TRANSFERS_PER_ENVIRONMENT`). */
  perEnvironment: number
  /** The environment's work queue (`QUIRE_WORK_QUEUE_PER_ENVIRONMENT`): export pages wait their turn there. */
  queueLimit: number
}

/** Documents read per export page: the most an export holds in memory, beside what the socket buffers. */
const EXPORT_PAGE = 200
/** Records written per bulk call of an import. */
const IMPORT_BATCH = 100
/** Columns a CSV export starts with, before the definition's fields. */
const CSV_FIRST_COLUMNS = ['_id', 'externalId', 'status', 'accessGroups']
/** A refusal of a whole bulk call that one of its rows caused: unique indexes, parallel arrays. */
const INDEX_REFUSALS = new Set(['duplicate_external_id', 'duplicate_key', 'parallel_arrays'])
/** The bulk path names a failing operation `operations/<i>: ...`. */
const OPERATION = /^operations\/(\d+): /

const busy = (environmentId: string, limit: number) =>
  fail(
    'rate_limited',
    `environment ${environmentId} already has ${limit} imports or exports in progress, its limit; retry shortly`,
    'Another import or export is still running; please wait and try again',
  )

/** The CSV's columns: `_id` and the `fields` asked for, or the first columns and the declared fields. */
function csvColumns(definition: DefinitionRecord, query: ExportQuery, first: RecordText[]): string[] {
  const projection = query.fields === undefined ? {} : (JSON.parse(query.fields) as Record<string, unknown>)
  const included = Object.keys(projection).filter((name) => Boolean(projection[name]) && name !== '_id')
  if (included.length > 0) return ['_id', ...included]
  const declared = Object.keys(definition.fields ?? {})
  const columns = [...CSV_FIRST_COLUMNS, ...declared]
  // Nothing declared: the fields of the first page name the columns, as a spreadsheet's first rows would.
  if (declared.length === 0) {
    for (const item of first) {
      for (const name of Object.keys(userPart(JSON.parse(item.json) as DocumentFields))) {
        if (!columns.includes(name)) columns.push(name)
      }
    }
  }
  return columns.filter((name) => projection[name] === undefined || Boolean(projection[name]))
}

/** The export's text of one page: `first` when it is the first. */
function pageFormat(format: TransferFormat, columns: () => string[]) {
  return (items: RecordText[], first: boolean): string => {
    if (format === 'ndjson') return items.map((item) => `${item.json}\n`).join('')
    if (format === 'json') {
      const text = items.map((item) => item.json).join(',')
      return first ? text : text && `,${text}`
    }
    const names = columns()
    const rows = items.map((item) => {
      const record = JSON.parse(item.json) as DocumentFields
      return names.map((name) => csvCell(record[name]))
    })
    return stringify(first ? [names, ...rows] : rows, { record_delimiter: 'windows' })
  }
}

export function createDocumentTransfer(deps: {
  documents: Pick<Documents, 'list' | 'bulk'>
  /** Where import bodies are spooled (the uploads' folder: the reclaim pass removes what a crash leaves). */
  spoolDir: string
  limits: TransferLimits
  /** Where the transfers in progress are counted: every process of the server counts one limit. */
  counts: SharedCounts
  clock: Clock
}): DocumentTransfer {
  const { documents, spoolDir, limits, counts, clock } = deps

  /** A place among the environment's transfers in progress, or 429; `release` gives it back once. */
  async function take(environmentId: string): Promise<() => void> {
    const release = await counts.hold(`transfers:${environmentId}`, limits.perEnvironment)
    if (!release) throw busy(environmentId, limits.perEnvironment)
    return release
  }

  async function exportDocuments(
    scope: Scope,
    definition: DefinitionRecord,
    query: ExportQuery,
    format: TransferFormat,
  ): Promise<Readable> {
    // `_permissions` is the caller's, not the document's: an export is data to keep or import elsewhere.
    const base: ListQuerystring = { ...query, exclude: '["_permissions"]', limit: EXPORT_PAGE }
    const account = { id: definition._environmentId, queueLimit: limits.queueLimit }
    // Pages are read when the client takes them, outside the request's context: each is put on the account again.
    const page = (after?: string) =>
      runAccounted(account, () => documents.list(scope, definition, parseListQuery({ ...base, after })))
    const release = await take(definition._environmentId)
    let first: Awaited<ReturnType<typeof page>>
    try {
      first = await page()
    } catch (error) {
      release()
      throw error
    }
    let columns: string[] | undefined
    const text = pageFormat(format, () => (columns ??= csvColumns(definition, query, first.items)))
    async function* pages(): AsyncGenerator<string> {
      if (format === 'json') yield '['
      let current = first
      yield text(current.items, true)
      while (current.pagination.next !== undefined) {
        const after = new URLSearchParams(current.pagination.next).get('after') ?? undefined
        current = await page(after)
        yield text(current.items, false)
      }
      if (format === 'json') yield ']\n'
    }
    const stream = Readable.from(pages(), { objectMode: false })
    stream.once('close', release)
    return stream
  }

  async function importDocuments(
    scope: Scope,
    definition: DefinitionRecord,
    body: Readable,
    format: TransferFormat,
    idempotencyKey?: string,
  ): Promise<{ summary: ImportSummary; replayed: boolean }> {
    const release = await take(definition._environmentId)
    try {
      const spooled = await spool(body, spoolDir, limits.bodyLimit, 'import body')
      try {
        return await importFile(scope, definition, spooled.path, format, idempotencyKey)
      } finally {
        await rm(spooled.path, { force: true })
      }
    } finally {
      release()
    }
  }

  async function importFile(
    scope: Scope,
    definition: DefinitionRecord,
    path: string,
    format: TransferFormat,
    idempotencyKey: string | undefined,
  ): Promise<{ summary: ImportSummary; replayed: boolean }> {
    // A first reading refuses a malformed or too long file before anything is written.
    let rows = 0
    for await (const record of importRecords(path, format, definition.fields)) {
      rows = record.row
      if (rows > limits.maxRows) {
        throw fail(
          'validation_error',
          `body: more than ${limits.maxRows} records (QUIRE_IMPORT_MAX_ROWS)`,
          'The file holds too many records for one import; split it',
        )
      }
    }

    let created = 0
    let failed = 0
    let replays = 0
    let writes = 0
    const errors: ImportRowError[] = []
    const refuse = (row: number, code: string, description: string) => {
      failed++
      if (errors.length < IMPORT_MAX_ERRORS) errors.push({ row, code, description })
    }

    /** `rows` through the bulk path; a refused operation is that row's error, the others are sent again. */
    async function write(batch: { row: number; fields: DocumentFields }[]): Promise<void> {
      let pending = batch
      while (pending.length > 0) {
        const operations = pending.map((item) => ({ op: 'create' as const, body: item.fields }))
        // Each call's own key: the rows it holds, so a retry of the same body replays each call made.
        const key =
          idempotencyKey === undefined
            ? undefined
            : `import:${idempotencyKey}:${sha256(pending.map((item) => item.row).join(','))}`
        try {
          const { replayed } = await documents.bulk(scope, definition, operations, key)
          created += pending.length
          if (replayed) replays++
          else writes++
          return
        } catch (error) {
          if (!(error instanceof ApiError)) throw error
          const index = OPERATION.exec(error.message)?.[1]
          const at = index === undefined ? undefined : pending[Number(index)]
          if (at && error.statusCode < 500) {
            refuse(at.row, error.code, error.message.replace(OPERATION, ''))
            pending = pending.filter((item) => item !== at)
            continue
          }
          // Anything else but a unique index's refusal (checked as the call commits, so naming no row) stops it.
          if (!INDEX_REFUSALS.has(error.code)) throw stopped(error, created)
          if (pending.length === 1 && pending[0]) {
            refuse(pending[0].row, error.code, error.message)
            return
          }
          // One row a call finds whose it is.
          for (const item of pending) await write([item])
          return
        }
      }
    }

    const now = isoTime(clock)
    let batch: { row: number; fields: DocumentFields }[] = []
    for await (const record of importRecords(path, format, definition.fields)) {
      if ('refusal' in record) {
        refuse(record.row, 'validation_error', record.refusal)
        continue
      }
      try {
        // The write rules without the store (fields, types, groups): most refusals need no bulk call.
        newRecord(scope, definition, userFields(record.fields), now)
      } catch (error) {
        if (!(error instanceof ApiError)) throw error
        refuse(record.row, error.code, error.message)
        continue
      }
      batch.push({ row: record.row, fields: record.fields })
      if (batch.length === IMPORT_BATCH) {
        await write(batch)
        batch = []
      }
    }
    await write(batch)
    const replayed = idempotencyKey !== undefined && replays > 0 && writes === 0
    return { summary: { created, failed, errors }, replayed }
  }

  return { exportDocuments, importDocuments }
}

/** A failure no row explains (the store, the scripts' engine): the import stops, saying what it had done. */
function stopped(error: unknown, created: number): unknown {
  if (!(error instanceof ApiError)) return error
  const done = `${created} document${created === 1 ? ' was' : 's were'} created before it stopped`
  return new ApiError(error.code, `${error.message} (${done})`, error.userDescription, error.statusCode)
}
