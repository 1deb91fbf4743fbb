import { createHash, randomBytes } from 'node:crypto'
import { constants, createReadStream, createWriteStream, type WriteStream } from 'node:fs'
import { lstat, mkdir, open, rename, rm, stat } from 'node:fs/promises'
import { once } from 'node:events'
import { dirname, join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { pipeline } from 'node:stream/promises'
import { Type, type TSchema } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import {
  CreateEnvironmentBodySchema,
  DefinitionBodySchema,
  EnvironmentEntrySchema,
  IdSchema,
  ObjectIdSchema,
} from '@quire/contracts'
import { admin as documentsAdmin, type DefinitionRecord, type DocumentsAdmin } from '@quire/documents-service'
import type { StoredRecord } from '@quire/records'
import { ApiError } from '@quire/service-kit'
import { admin as usersAdmin, type ExportedMember } from '@quire/users-service'
import { ACTOR, readConfig, withFiles, withStore } from '../context.js'
import { CliError, print, type Io } from '../io.js'
import { progress } from '../progress.js'

/**
 * One environment as NDJSON, one object a line, in this order: the header (with the environment), its
 * definitions, their documents (as stored), the attachments' files, the users' entries for it (account name and
 * addresses, never credentials), and an end line with the counts, so a truncated file is refused. A file's bytes
 * sit under `files/` beside the NDJSON, named by their sha256 (format 2; format 1 named them by a hash of the
 * stored key): attachments sharing a stored file (copies) name the same one.
 */
type Line =
  | {
      type: 'quire-export'
      format: 1 | 2
      exportedOn: string
      environment: StoredRecord & { name?: string; active?: boolean }
    }
  | { type: 'definition'; record: DefinitionRecord }
  | { type: 'document'; definitionId: string; record: StoredRecord }
  | { type: 'file'; definitionId: string; documentId: string; attachmentId: string; file: string; contentType: string }
  | ({ type: 'user' } & ExportedMember)
  | { type: 'end'; counts: Counts }

interface Counts {
  definitions: number
  documents: number
  files: number
  users: number
}

const FORMAT = 2
const NDJSON = 'environment.ndjson'
const FILES = 'files'
/** The only file names an import reads: what an export writes. */
const FILE_NAME = /^files\/[0-9a-f]{64}$/
const CONTENT_TYPE = '^[\\w.+-]+\\/[\\w.+-]+$'
const PAGE = 500
/** An export holds an environment's documents, files and users: what it creates is its owner's alone. */
const DIR_MODE = 0o700
const FILE_MODE = 0o600

const LINE_SCHEMAS: Record<Line['type'], TSchema> = {
  'quire-export': Type.Object({
    format: Type.Union([Type.Literal(1), Type.Literal(2)]),
    environment: Type.Object({
      _id: IdSchema,
      name: Type.Optional(Type.String()),
      active: Type.Optional(Type.Boolean()),
    }),
  }),
  definition: Type.Object({ record: Type.Object({ _id: IdSchema }) }),
  document: Type.Object({ definitionId: IdSchema, record: Type.Object({ _id: IdSchema, _hash: Type.String() }) }),
  file: Type.Object({
    definitionId: IdSchema,
    documentId: IdSchema,
    attachmentId: ObjectIdSchema,
    file: Type.String(),
    contentType: Type.String({ pattern: CONTENT_TYPE, maxLength: 255 }),
  }),
  user: Type.Object({
    _id: IdSchema,
    username: Type.String({ minLength: 1, maxLength: 320 }),
    globalEmails: Type.Array(Type.Object({ address: Type.String({ maxLength: 320 }) }), { maxItems: 100 }),
    entry: EnvironmentEntrySchema,
  }),
  end: Type.Object({
    counts: Type.Object({
      definitions: Type.Integer(),
      documents: Type.Integer(),
      files: Type.Integer(),
      users: Type.Integer(),
    }),
  }),
}
const LINE_CHECKS = Object.fromEntries(
  Object.entries(LINE_SCHEMAS).map(([type, schema]) => [type, TypeCompiler.Compile(schema)]),
)
/** A definition as its `PUT` would be checked: what it declares, without the system fields. */
const DEFINITION_BODY = TypeCompiler.Compile(DefinitionBodySchema)
const ENVIRONMENT_BODY = TypeCompiler.Compile(CreateEnvironmentBodySchema)

/** Where the NDJSON goes (or comes from) and where the attachment files sit; no files beside a lone `.ndjson`. */
function locate(path: string): { ndjson: string; files: string | null } {
  const full = resolve(path)
  return full.endsWith('.ndjson') ? { ndjson: full, files: null } : { ndjson: join(full, NDJSON), files: full }
}

export async function exportEnvironment(io: Io, environmentId: string, path: string): Promise<void> {
  const config = readConfig(io)
  const target = locate(path)
  if (await stat(target.ndjson).catch(() => null)) throw new CliError(`${target.ndjson} exists`)
  let out: WriteStream | undefined
  const counts: Counts = { definitions: 0, documents: 0, files: 0, users: 0 }
  let skippedFiles = 0
  await withStore(config, (store) =>
    withFiles(config, async (files) => {
      const documents = documentsAdmin(store, files)
      const environment = await usersAdmin(store, ACTOR).environment(environmentId)
      if (!environment) throw new CliError(`there is no environment "${environmentId}"`)
      await mkdir(dirname(target.ndjson), { recursive: true, mode: DIR_MODE })
      const stream = createWriteStream(target.ndjson, { flags: 'wx', mode: FILE_MODE })
      out = stream
      const write = async (text: string) => {
        if (!stream.write(`${text}\n`)) await once(stream, 'drain')
      }
      const header: Line = { type: 'quire-export', format: FORMAT, exportedOn: new Date().toISOString(), environment }
      await write(JSON.stringify(header))
      const definitions = await documents.definitions(environmentId)
      for (const record of definitions) await write(JSON.stringify({ type: 'definition', record }))
      counts.definitions = definitions.length
      /** Stored file key → its name in the export: a file copies share is written once. */
      const written = new Map<string, { file: string; contentType: string } | null>()

      for (const definition of definitions) {
        const bar = progress(io, `documents of ${definition.name}`, await documents.countDocuments(definition))
        // As stored, not decoded and encoded again.
        const prefix = `{"type":"document","definitionId":${JSON.stringify(definition._id)},"record":`
        for await (const page of documents.documentTexts(definition, PAGE)) {
          for (const json of page) await write(`${prefix}${json}}`)
          bar.tick(page.length)
          counts.documents += page.length
        }
        bar.stop()

        for await (const { documentId, attachmentId, file: stored } of documents.attachments(definition)) {
          if (target.files === null) {
            skippedFiles++
            continue
          }
          if (!written.has(stored)) written.set(stored, await copyOut(documents, stored, target.files))
          const copied = written.get(stored)
          if (!copied) continue // its file is gone (a removal racing the export)
          const line: Line = { type: 'file', definitionId: definition._id, documentId, attachmentId, ...copied }
          await write(JSON.stringify(line))
          counts.files++
        }
      }

      for (const member of await usersAdmin(store, ACTOR).members(environmentId)) {
        await write(JSON.stringify({ type: 'user', ...member } satisfies Line))
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

/**
 * Writes a stored file's bytes into `root`'s `files/` under their sha256; its name and content type, or null when
 * the store has no such file.
 */
async function copyOut(
  documents: DocumentsAdmin,
  key: string,
  root: string,
): Promise<{ file: string; contentType: string } | null> {
  const stored = await documents.readFile(key)
  if (!stored) return null
  await mkdir(join(root, FILES), { recursive: true, mode: DIR_MODE }).catch((err: unknown) => {
    stored.stream.destroy()
    throw err
  })
  const partial = join(root, FILES, `.${randomBytes(8).toString('hex')}.partial`)
  const hash = createHash('sha256')
  try {
    await pipeline(
      stored.stream,
      async function* (chunks: AsyncIterable<Buffer>) {
        for await (const chunk of chunks) {
          hash.update(chunk)
          yield chunk
        }
      },
      createWriteStream(partial, { mode: FILE_MODE }),
    )
    const file = `${FILES}/${hash.digest('hex')}`
    // The same bytes under another key (two uploads of one file) are the same export file.
    await rename(partial, join(root, file))
    return { file, contentType: stored.contentType }
  } finally {
    await rm(partial, { force: true })
  }
}

/** An export's line: the reason it is refused names it (`<file> line <n>`), and nothing was imported. */
const refuse = (where: string, why: string) => new CliError(`${where}: ${why}; nothing was imported`)

/** Each line of the NDJSON, parsed and checked against its type's schema, with its number. */
async function* readLines(path: string): AsyncGenerator<{ number: number; line: Line }> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity })
  let number = 0
  for await (const text of lines) {
    number++
    if (text.trim() === '') continue
    let line: Line
    try {
      line = JSON.parse(text) as Line
    } catch {
      throw refuse(`${path} line ${number}`, 'not JSON (the file is damaged or was cut short)')
    }
    const check = typeof line === 'object' && line !== null ? LINE_CHECKS[line.type] : undefined
    if (!check) throw refuse(`${path} line ${number}`, 'not a line `quire export` writes')
    const error = check.Errors(line).First()
    if (error) throw refuse(`${path} line ${number}`, `${line.type}${error.path} ${error.message}`)
    yield { number, line }
  }
}

/** A file line's bytes: one `files/<sha256>` the export wrote, a plain file (no link), with those bytes. */
async function checkFile(root: string, name: string, format: number): Promise<{ path: string; size: number }> {
  if (!FILE_NAME.test(name)) throw new Error(`"${name}" is not a file \`quire export\` writes`)
  const folder = await lstat(join(root, FILES)).catch(() => null)
  if (!folder?.isDirectory()) throw new Error(`${join(root, FILES)} is missing or not a folder`)
  const path = join(root, name)
  let handle
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    throw new Error(code === 'ENOENT' ? `${name} is missing` : `${name} is not a plain file (${code})`)
  }
  try {
    const info = await handle.stat()
    if (!info.isFile()) throw new Error(`${name} is not a plain file`)
    if (format >= 2) {
      const hash = createHash('sha256')
      for await (const chunk of handle.createReadStream({ autoClose: false })) hash.update(chunk as Buffer)
      if (`${FILES}/${hash.digest('hex')}` !== name) throw new Error(`${name} does not hold the bytes it was made with`)
    }
    return { path, size: info.size }
  } finally {
    await handle.close()
  }
}

interface Checked {
  header: Extract<Line, { type: 'quire-export' }>
  lines: number
  /** Export file name → where it is and its size. */
  files: Map<string, { path: string; size: number }>
}

/** The first pass: the whole NDJSON and every file it names checked before anything is written. */
async function checkExport(source: { ndjson: string; files: string | null }): Promise<Checked> {
  let header: Checked['header'] | undefined
  let end: Counts | undefined
  let lines = 0
  const seen: Counts = { definitions: 0, documents: 0, files: 0, users: 0 }
  const definitions = new Set<string>()
  const files = new Map<string, { path: string; size: number }>()
  for await (const { number, line } of readLines(source.ndjson)) {
    const where = `${source.ndjson} line ${number}`
    lines++
    if (lines === 1) {
      if (line.type !== 'quire-export') throw new CliError(`${source.ndjson} is not an export made by \`quire export\``)
      header = line
      continue
    }
    if (end) throw refuse(where, 'a line after the end line')
    switch (line.type) {
      case 'definition': {
        const { name, label, description, fields, indexes, actions } = line.record
        const body = Object.fromEntries(
          Object.entries({ name, label, description, fields, indexes, actions }).filter(([, v]) => v !== undefined),
        )
        const error = DEFINITION_BODY.Errors(body).First()
        if (error) throw refuse(where, `definition${error.path} ${error.message}`)
        definitions.add(line.record._id)
        seen.definitions++
        break
      }
      case 'document':
        if (!definitions.has(line.definitionId)) throw refuse(where, `no definition ${line.definitionId} before it`)
        seen.documents++
        break
      case 'file':
        if (!definitions.has(line.definitionId)) throw refuse(where, `no definition ${line.definitionId} before it`)
        if (source.files !== null && !files.has(line.file)) {
          try {
            files.set(line.file, await checkFile(source.files, line.file, header?.format ?? FORMAT))
          } catch (err) {
            throw refuse(where, (err as Error).message)
          }
        }
        seen.files++
        break
      case 'user':
        seen.users++
        break
      case 'end':
        end = line.counts
        break
      default:
        throw refuse(where, `a second header`)
    }
  }
  if (!header) throw new CliError(`${source.ndjson} is not an export made by \`quire export\``)
  if (!end) throw refuse(source.ndjson, `it is truncated (no end line after line ${lines})`)
  for (const kind of ['definitions', 'documents', 'files', 'users'] as const) {
    if (seen[kind] !== end[kind]) {
      throw refuse(source.ndjson, `its end line counts ${end[kind]} ${kind}, it has ${seen[kind]}`)
    }
  }
  return { header, lines, files }
}

/**
 * Into a new environment, atomically: the export is checked whole (every line, every file's bytes) before
 * anything is written, and the environment itself is created last, so no one can reach it half-imported; any
 * failure on the way removes what was written. Accounts are matched by `_id` only (and must have the exported
 * username); a new one goes through the users service's rules, and one whose username or address another
 * account holds stops the import.
 */
export async function importEnvironment(io: Io, path: string, options: { as?: string }): Promise<void> {
  const config = readConfig(io)
  const source = locate(path)
  if (!(await stat(source.ndjson).catch(() => null))) throw new CliError(`there is no ${source.ndjson}`)
  const { header, lines, files: exported } = await checkExport(source)
  const environmentId = options.as ?? header.environment._id
  const environmentBody = { _id: environmentId, name: options.as ?? header.environment.name ?? environmentId }
  const invalid = ENVIRONMENT_BODY.Errors(environmentBody).First()
  if (invalid) throw refuse(`${source.ndjson} line 1`, `environment${invalid.path} ${invalid.message}`)

  const counts: Counts = { definitions: 0, documents: 0, files: 0, users: 0 }
  let missingFiles = 0
  await withStore(config, (store) =>
    withFiles(config, async (files) => {
      const users = usersAdmin(store, ACTOR)
      const documents = documentsAdmin(store, files)
      await users.ensureIndexes()
      await documents.ensureIndexes()
      const into = { users: users.importInto(environmentId), documents: documents.importInto(environmentId) }
      if (await into.users.taken()) {
        throw new CliError(`the environment "${environmentId}" exists or existed: import into a new one (--as <id>)`)
      }
      const discard = async () => {
        const documents = await into.documents.discard()
        return (await into.users.discard()) || documents
      }
      if (await discard()) print(io, `removed what an interrupted import left of "${environmentId}"`)
      const bar = progress(io, `import into ${environmentId}`, lines)
      // Inserts in flight, each settling with its line's failure (never rejecting while nobody awaits it).
      let pending: Promise<LineError | undefined>[] = []
      const flush = async () => {
        const failed = (await Promise.all(pending)).find((failure) => failure !== undefined)
        pending = []
        if (failed) throw failed
      }
      let at = 1
      try {
        for await (const { number, line } of readLines(source.ndjson)) {
          at = number
          bar.tick()
          switch (line.type) {
            case 'definition':
              await into.documents.definition(line.record)
              counts.definitions++
              break
            case 'document': {
              // Concurrent inserts share the store's commits; a failure names its own line.
              const insert = into.documents.document(line.definitionId, line.record)
              pending.push(
                insert.then(
                  () => undefined,
                  (err: unknown) => new LineError(number, err),
                ),
              )
              if (pending.length >= PAGE) await flush()
              counts.documents++
              break
            }
            case 'file': {
              await flush()
              const bytes = exported.get(line.file)
              if (bytes) {
                await into.documents.file(line, { size: bytes.size, open: () => createReadStream(bytes.path) })
              } else missingFiles++
              counts.files++
              break
            }
            case 'user': {
              await flush()
              const { type: _, ...member } = line
              await into.users.member(member)
              counts.users++
              break
            }
            default:
              break
          }
        }
        await flush()
        at = lines
        await into.documents.finish()
        // Last: until the environment exists, nobody can reach what was written into it.
        at = 1
        await into.users.open(environmentBody, header.environment.active !== false)
      } catch (err) {
        await Promise.all(pending)
        bar.stop()
        const number = err instanceof LineError ? err.line : at
        const cause = err instanceof LineError ? err.cause : err
        try {
          await discard()
        } catch (failure) {
          // Not reachable (the environment does not exist); the next import of it removes the rest first.
          throw new CliError(
            `${source.ndjson} line ${number}: ${reason(cause)}; removing what was written failed too ` +
              `(${reason(failure)}): run the import again to remove it`,
          )
        }
        throw refuse(`${source.ndjson} line ${number}`, reason(cause))
      }
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

/** A write of one line that failed, with the line's number. */
class LineError extends Error {
  constructor(
    readonly line: number,
    override readonly cause: unknown,
  ) {
    super(reason(cause))
  }
}

/** The first line of what went wrong: a service's refusal as it words it, anything else by its message. */
function reason(err: unknown): string {
  if (err instanceof ApiError) return err.message
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? ''
}
