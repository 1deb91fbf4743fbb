import { createHash } from 'node:crypto'
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs'
import { mkdir, stat } from 'node:fs/promises'
import { once } from 'node:events'
import { dirname, join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { pipeline } from 'node:stream/promises'
import Fastify from 'fastify'
import type { EnvironmentEntry } from '@quire/contracts'
import {
  DOCUMENTS_COLLECTIONS,
  declaredIndex,
  documentsCollection,
  ensureDocumentsIndexes,
  type DefinitionRecord,
} from '@quire/documents-service'
import type { FileStore } from '@quire/files'
import { newObjectId, type RecordStore, type StoredRecord } from '@quire/records'
import { USERS_COLLECTIONS, ensureUsersIndexes, usersRepositoryPlugin, type UserRecord } from '@quire/users-service'
import { readConfig, withFiles, withStore } from '../context.js'
import { CliError, print, type Io } from '../io.js'
import { progress } from '../progress.js'

/**
 * One environment as NDJSON, one object a line, in this order: the header (with the environment), its
 * definitions, their documents (as stored), the attachment files (bytes under `files/` beside the NDJSON),
 * the users' entries for it (account name and addresses, never credentials), and an end line with the counts,
 * so a truncated file is refused.
 */
type Line =
  | { type: 'quire-export'; format: 1; exportedOn: string; environment: StoredRecord }
  | { type: 'definition'; record: DefinitionRecord }
  | { type: 'document'; definitionId: string; record: StoredRecord }
  | { type: 'file'; definitionId: string; documentId: string; attachmentId: string; file: string; contentType: string }
  | { type: 'user'; _id: string; username: string; globalEmails: UserRecord['globalEmails']; entry: EnvironmentEntry }
  | { type: 'end'; counts: Counts }

interface Counts {
  definitions: number
  documents: number
  files: number
  users: number
}

const NDJSON = 'environment.ndjson'
const PAGE = 500
/** An export holds an environment's documents, files and users: what it creates is its owner's alone. */
const DIR_MODE = 0o700
const FILE_MODE = 0o600
const ACTOR = 'quire-cli'

/** Where the NDJSON goes (or comes from) and where the attachment files sit; no files beside a lone `.ndjson`. */
function locate(path: string): { ndjson: string; files: string | null } {
  const full = resolve(path)
  return full.endsWith('.ndjson') ? { ndjson: full, files: null } : { ndjson: join(full, NDJSON), files: full }
}

const keyOf = (environmentId: string, definitionId: string, documentId: string, attachmentId: string) =>
  `${environmentId}/${definitionId}/${documentId}/${attachmentId}`

export async function exportEnvironment(io: Io, environmentId: string, path: string): Promise<void> {
  const config = readConfig(io)
  const target = locate(path)
  if (await stat(target.ndjson).catch(() => null)) throw new CliError(`${target.ndjson} exists`)
  let out: WriteStream | undefined
  const counts: Counts = { definitions: 0, documents: 0, files: 0, users: 0 }
  let skippedFiles = 0
  await withStore(config, (store) =>
    withFiles(config, async (files) => {
      const environment = await USERS_COLLECTIONS.environments.in(store).findOne({ _id: environmentId })
      if (!environment) throw new CliError(`there is no environment "${environmentId}"`)
      await mkdir(dirname(target.ndjson), { recursive: true, mode: DIR_MODE })
      const stream = createWriteStream(target.ndjson, { flags: 'wx', mode: FILE_MODE })
      out = stream
      const write = async (text: string) => {
        if (!stream.write(`${text}\n`)) await once(stream, 'drain')
      }
      const header: Line = { type: 'quire-export', format: 1, exportedOn: new Date().toISOString(), environment }
      await write(JSON.stringify(header))
      const definitions = await DOCUMENTS_COLLECTIONS.definitions.in(store).find({ _environmentId: environmentId })
      for (const record of definitions) await write(JSON.stringify({ type: 'definition', record }))
      counts.definitions = definitions.length

      for (const definition of definitions) {
        const documents = documentsCollection(definition).in(store)
        const bar = progress(io, `documents of ${definition.name}`, await documents.count({}))
        // As stored, not decoded and encoded again.
        const prefix = `{"type":"document","definitionId":${JSON.stringify(definition._id)},"record":`
        let after: string | undefined
        for (;;) {
          const page = await documents.findText({}, { limit: PAGE, after })
          for (const { json } of page) await write(`${prefix}${json}}`)
          bar.tick(page.length)
          counts.documents += page.length
          if (page.length < PAGE) break
          after = page.at(-1)?._id
        }
        bar.stop()

        const records = await DOCUMENTS_COLLECTIONS.attachmentFiles.in(store).find({ definitionId: definition._id })
        for (const { _id: key, documentId } of records) {
          const attachmentId = key.slice(keyOf(environmentId, definition._id, documentId, '').length)
          if (target.files === null) {
            skippedFiles++
            continue
          }
          const file = `files/${createHash('sha256').update(key).digest('hex')}`
          const contentType = await copyOut(files, key, join(target.files, file))
          if (contentType === null) continue // a record of an upload that never completed
          const line: Line = { type: 'file', definitionId: definition._id, documentId, attachmentId, file, contentType }
          await write(JSON.stringify(line))
          counts.files++
        }
      }

      const users = await USERS_COLLECTIONS.users
        .in(store)
        .find({ environmentIds: environmentId }, { sort: { _id: 1 } })
      for (const user of users) {
        const entry = user.profile.environments[environmentId]
        if (!entry) continue
        const line: Line = {
          type: 'user',
          _id: user._id,
          username: user.username,
          globalEmails: user.globalEmails,
          entry,
        }
        await write(JSON.stringify(line))
        counts.users++
      }
      await write(JSON.stringify({ type: 'end', counts }))
    }),
  ).finally(() => out?.end())
  if (out) await once(out, 'close')
  print(
    io,
    `exported "${environmentId}" to ${target.ndjson}: ${counts.definitions} definitions, ${counts.documents} ` +
      `documents, ${counts.files} files, ${counts.users} users`,
  )
  if (skippedFiles > 0) print(io, `${skippedFiles} attachment files left out: export to a directory to include them`)
}

/** Writes a stored file's bytes to `path`; its content type, or null when the store has no such file. */
async function copyOut(files: FileStore, key: string, path: string): Promise<string | null> {
  const info = await files.stat(key)
  if (!info) return null
  await mkdir(dirname(path), { recursive: true, mode: DIR_MODE })
  const { stream } = await files.get(key)
  await pipeline(stream, createWriteStream(path, { mode: FILE_MODE }))
  return info.contentType
}

async function* readLines(path: string): AsyncGenerator<Line> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity })
  for await (const line of lines) if (line.trim() !== '') yield JSON.parse(line) as Line
}

export async function importEnvironment(io: Io, path: string, options: { as?: string }): Promise<void> {
  const config = readConfig(io)
  const source = locate(path)
  if (!(await stat(source.ndjson).catch(() => null))) throw new CliError(`there is no ${source.ndjson}`)
  // A first pass checks the file whole before anything is written.
  let header: Extract<Line, { type: 'quire-export' }> | undefined
  let end: Counts | undefined
  let lineCount = 0
  for await (const line of readLines(source.ndjson)) {
    if (lineCount++ === 0 && line.type === 'quire-export') header = line
    if (line.type === 'end') end = line.counts
  }
  if (!header || header.format !== 1) throw new CliError(`${source.ndjson} is not an export made by \`quire export\``)
  if (!end) throw new CliError(`${source.ndjson} is truncated (no end line)`)
  const environmentId = options.as ?? header.environment._id

  const counts: Counts = { definitions: 0, documents: 0, files: 0, users: 0 }
  let missingFiles = 0
  await withStore(config, (store) =>
    withFiles(config, async (files) => {
      await ensureUsersIndexes(store)
      await ensureDocumentsIndexes(store)
      const environments = USERS_COLLECTIONS.environments.in(store)
      if (await environments.findOne({ _id: environmentId })) {
        throw new CliError(`the environment "${environmentId}" exists: import into a new one (--as <environmentId>)`)
      }
      const definitionIds = new Map<string, DefinitionRecord>()
      const users = await usersOf(store)
      const bar = progress(io, `import into ${environmentId}`, lineCount)
      let pending: Promise<unknown>[] = []
      const flush = async () => {
        await Promise.all(pending)
        pending = []
      }
      const now = new Date().toISOString()
      const name = options.as ?? String(header!.environment.name ?? environmentId)
      await environments.insertOne({
        ...header!.environment,
        _id: environmentId,
        name,
        _createdOn: now,
        _createdByUserId: ACTOR,
      })

      for await (const line of readLines(source.ndjson)) {
        bar.tick()
        switch (line.type) {
          case 'definition': {
            const definition = await importDefinition(store, line.record, environmentId)
            definitionIds.set(line.record._id, definition)
            counts.definitions++
            break
          }
          case 'document': {
            const definition = definitionIds.get(line.definitionId)
            if (!definition) throw new CliError(`a document of an unknown definition ${line.definitionId}`)
            const record = { ...line.record, _environmentId: environmentId, _documentDefinitionId: definition._id }
            // Concurrent inserts share the store's commits.
            pending.push(store.collection(documentsCollection(definition).name).insertOne(record))
            if (pending.length >= PAGE) await flush()
            counts.documents++
            break
          }
          case 'file': {
            await flush()
            const definition = definitionIds.get(line.definitionId)
            if (!definition) throw new CliError(`a file of an unknown definition ${line.definitionId}`)
            if (source.files === null) {
              missingFiles++
              break
            }
            const bytes = join(source.files, line.file)
            const size = (await stat(bytes)).size
            const key = keyOf(environmentId, definition._id, line.documentId, line.attachmentId)
            // As the service does: the record first, so a stored file always has one.
            await DOCUMENTS_COLLECTIONS.attachmentFiles
              .in(store)
              .insertOne({ _id: key, definitionId: definition._id, documentId: line.documentId, _createdOn: now })
            await files.put(key, createReadStream(bytes), { size, contentType: line.contentType })
            counts.files++
            break
          }
          case 'user':
            await flush()
            await users.addEntry(line, environmentId)
            counts.users++
            break
          default:
            break
        }
      }
      await flush()
      bar.stop()
    }),
  )
  print(
    io,
    `imported into "${environmentId}": ${counts.definitions} definitions, ${counts.documents} documents, ` +
      `${counts.files} files, ${counts.users} users`,
  )
  if (missingFiles > 0) print(io, `${missingFiles} attachment files were not in the export; their bytes are missing`)
}

/** The definition under the target environment; a new `_id` when the store holds it already (import beside it). */
async function importDefinition(
  store: RecordStore,
  exported: DefinitionRecord,
  environmentId: string,
): Promise<DefinitionRecord> {
  const definitions = DOCUMENTS_COLLECTIONS.definitions.in(store)
  const taken = (await definitions.findOne({ _id: exported._id }, { projection: { _id: 1 } })) !== null
  const definition: DefinitionRecord = {
    ...exported,
    _id: taken ? newObjectId() : exported._id,
    _environmentId: environmentId,
  }
  const spec = documentsCollection(definition)
  const documents = spec.in(store)
  for (const index of [...spec.indexes, ...(definition.indexes ?? []).map(declaredIndex)]) {
    await documents.ensureIndex(index)
  }
  await definitions.insertOne(definition)
  return definition
}

/**
 * Users' entries go to the same account (by `_id`, else by username) through the users service's own
 * repository; an account the store lacks is created without credentials (`quire password reset` gives one).
 */
async function usersOf(store: RecordStore) {
  const instance = Fastify({ logger: false })
  await instance.register(usersRepositoryPlugin, { store })
  await instance.ready()
  const users = USERS_COLLECTIONS.users.in(store)
  return {
    async addEntry(line: Extract<Line, { type: 'user' }>, environmentId: string): Promise<void> {
      const existing = (await users.findOne({ _id: line._id })) ?? (await users.findOne({ username: line.username }))
      if (existing) {
        await instance.users.updateEntry(existing, environmentId, line.entry, ACTOR)
        return
      }
      const now = new Date().toISOString()
      const environments = { [environmentId]: line.entry }
      await users.insertOne({
        _id: line._id,
        username: line.username,
        profile: { environments },
        globalEmails: line.globalEmails,
        environmentIds: [environmentId],
        activeEnvironmentIds: line.entry.active ? [environmentId] : [],
        authentication: {},
        _createdOn: now,
        _createdByUserId: ACTOR,
        _lastModifiedOn: now,
        _lastModifiedByUserId: ACTOR,
      })
    },
  }
}
