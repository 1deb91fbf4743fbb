import type { Scope } from '@quire/auth'
import type {
  CreateDefinitionBody,
  Definition,
  DefinitionBody,
  DefinitionPatch,
  ListedDefinition,
  Pagination,
} from '@quire/contracts'
import { ConflictError, DuplicateKeyError, newObjectId, type RecordStore } from '@quire/records'
import { fail } from '@quire/service-kit'
import { declaredIndex, DOCUMENTS_COLLECTIONS, type DefinitionRecord } from '../collections.js'
import { checkRunLasts, visibleActions } from '../lib/actions.js'
import { ifMatchAccepts } from '../lib/if-match.js'
import { hashed } from '../lib/stored-text.js'
import { permissionsOf } from '../lib/visibility.js'
import type { AttachmentFiles } from './attachment-files.js'
import type { ChangeLog, ChangesPort } from './change-log.js'
import { isoTime, type ActionsPort, type Clock, type WebhooksPort } from './deps.js'
import type { DocumentCollections } from './document-collections.js'

export interface Definitions {
  /** By `_id`, then by `name`, always inside the caller's environment; 404 otherwise. Briefly cached. */
  resolve(scope: Scope, idOrName: string): Promise<DefinitionRecord>
  /** `exclude`: top-level fields left out of each item (never `_id`); the page's `next` carries it on. */
  list(
    scope: Scope,
    page: { limit: number; after?: string; exclude: string[] },
  ): Promise<{ data: ListedDefinition[]; pagination: Pagination }>
  get(scope: Scope, idOrName: string): Promise<Definition>
  /** 400 without a `name`. */
  create(scope: Scope, body: CreateDefinitionBody): Promise<Definition>
  /**
   * Copies settings and fields (the body's take precedence), not documents; the name defaults to
   * "<source> (copy)", numbered when taken.
   */
  copy(scope: Scope, sourceIdOrName: string, body: CreateDefinitionBody): Promise<Definition>
  /** `ifMatch`: the `If-Match` header; 412 unless it names the stored `_hash` (or is `*`). */
  replace(scope: Scope, idOrName: string, body: DefinitionBody, ifMatch?: string): Promise<Definition>
  patch(scope: Scope, idOrName: string, patch: DefinitionPatch, ifMatch?: string): Promise<Definition>
  /** Refused while documents exist unless `force`, which drops them too. */
  remove(scope: Scope, idOrName: string, force: boolean, ifMatch?: string): Promise<DefinitionRecord>
}

const SETTINGS = ['label', 'description', 'fields', 'indexes', 'actions'] as const
/** Other processes may change a definition: a cached one is trusted this long (changes here clear it). */
const CACHE_TTL_MS = 2000
const MAX_CACHED = 10_000
const MAX_COPY_NUMBER = 100

type Settings = Pick<DefinitionRecord, 'name' | (typeof SETTINGS)[number]>

/** 412: `If-Match` names a version the definition no longer has. */
function checkIfMatch(definition: DefinitionRecord, ifMatch: string | undefined): void {
  if (ifMatch === undefined || ifMatchAccepts(ifMatch, definition._hash)) return
  throw fail(
    'precondition_failed',
    `Document definition "${definition.name}" changed since the given If-Match version`,
    'The definition was changed by someone else; reload it',
  )
}

const withoutFields = (item: Definition, left: ReadonlySet<string>): ListedDefinition => ({
  ...Object.fromEntries(Object.entries(item).filter(([field]) => !left.has(field))),
  _id: item._id,
})

const notFound = (idOrName: string, environmentId: string) =>
  fail(
    'document_definition_not_found_for_id_or_name',
    `Document definition not found for id or name "${idOrName}" in environment "${environmentId}"`,
    `There is no document definition "${idOrName}" in environment "${environmentId}"`,
  )

const duplicateName = (name: string) =>
  fail(
    'duplicate_name',
    `A document definition named "${name}" already exists in this environment`,
    'This name is already taken',
  )

/** Only the settings a definition has: no `undefined` members reach the store. */
function settingsOf(source: Partial<Settings>): Partial<Omit<Settings, 'name'>> {
  const settings: Partial<Omit<Settings, 'name'>> = {}
  for (const key of SETTINGS) if (source[key] !== undefined) Object.assign(settings, { [key]: source[key] })
  return settings
}

export function createDefinitions(deps: {
  store: RecordStore
  actions: Pick<ActionsPort, 'check' | 'drop'>
  collections: DocumentCollections
  attachmentFiles: Pick<AttachmentFiles, 'dropDefinition'>
  changes: Pick<ChangeLog, 'definition'> & Pick<ChangesPort, 'committed'>
  /** Definition events are queued in the change's transaction, and looked for once it commits. */
  webhooks: Pick<WebhooksPort, 'enqueueDefinition' | 'settle'>
  clock: Clock
}): Definitions {
  const { store, actions, collections, attachmentFiles, changes, webhooks, clock } = deps
  const definitions = DOCUMENTS_COLLECTIONS.definitions.in(store)
  const cache = new Map<string, { definition: DefinitionRecord; expires: number }>()

  /**
   * The caller's permissions, and each declared index with the store's build state. A write's answer passes
   * `written`: every index it declares was built before its write committed, so none is read again (a store
   * failure then would turn a committed write into an error).
   */
  async function present(scope: Scope, stored: DefinitionRecord, written = false): Promise<Definition> {
    const record = stored.actions ? { ...stored, actions: visibleActions(stored.actions, scope.administrator) } : stored
    if (!record.indexes?.length) return { ...record, _permissions: permissionsOf(scope) }
    if (written) {
      const indexes = record.indexes.map((declaration) => ({ ...declaration, state: 'ready' as const }))
      return { ...record, indexes, _permissions: permissionsOf(scope) }
    }
    const states = new Map((await collections.indexStates(stored)).map((index) => [index.name, index.state]))
    const indexes = record.indexes.map((declaration) => {
      const state = states.get(declaredIndex(declaration).name)
      return state ? { ...declaration, state } : declaration
    })
    return { ...record, indexes, _permissions: permissionsOf(scope) }
  }

  /** 409 before anything is built when another definition of the environment has the name. */
  async function checkFreeName(environmentId: string, name: string, self?: string): Promise<void> {
    const holder = await definitions.findOne({ _environmentId: environmentId, name }, { projection: { _id: 1 } })
    if (holder && holder._id !== self) throw duplicateName(name)
  }

  /**
   * Drops the indexes a failed definition write created, but not one the stored definition declares (a concurrent
   * write that did commit may have declared the same index).
   */
  async function rollBackIndexes(definition: DefinitionRecord, created: string[]): Promise<void> {
    if (created.length === 0) return
    const stored = await definitions.findOne({ _id: definition._id, _environmentId: definition._environmentId })
    const kept = new Set((stored?.indexes ?? []).map((declaration) => declaredIndex(declaration).name))
    await collections.dropIndexes(
      definition,
      created.filter((name) => !kept.has(name)),
    )
  }

  function forget(environmentId: string): void {
    const prefix = `${environmentId}\0`
    for (const key of cache.keys()) if (key.startsWith(prefix)) cache.delete(key)
  }

  async function load(environmentId: string, idOrName: string): Promise<DefinitionRecord> {
    const definition =
      (await definitions.findOne({ _id: idOrName, _environmentId: environmentId })) ??
      (await definitions.findOne({ _environmentId: environmentId, name: idOrName }))
    if (!definition) throw notFound(idOrName, environmentId)
    return definition
  }

  async function resolve(scope: Scope, idOrName: string): Promise<DefinitionRecord> {
    const key = `${scope.environmentId}\0${idOrName}`
    const now = clock()
    const hit = cache.get(key)
    if (hit && hit.expires > now) return hit.definition
    const definition = Object.freeze(await load(scope.environmentId, idOrName))
    if (cache.size >= MAX_CACHED) cache.clear()
    cache.set(key, { definition, expires: now + CACHE_TTL_MS })
    return definition
  }

  async function insert(scope: Scope, settings: Settings): Promise<DefinitionRecord> {
    const now = isoTime(clock)
    const definition = hashed<DefinitionRecord>({
      _id: newObjectId(),
      _createdOn: now,
      _createdByUserId: scope.userId,
      _lastModifiedOn: now,
      _lastModifiedByUserId: scope.userId,
      _environmentId: scope.environmentId,
      status: 'ready',
      name: settings.name,
      ...settingsOf(settings),
      _hash: '',
    })
    // Nothing is created for a request that is refused: the name is checked before the collection's indexes.
    await checkFreeName(scope.environmentId, settings.name)
    await collections.addIndexes(definition)
    try {
      checkRunLasts(scope)
      await store.transaction(async (tx) => {
        await DOCUMENTS_COLLECTIONS.definitions.in(tx).insertOne(definition)
        await changes.definition(tx, 'create', definition)
        await webhooks.enqueueDefinition(tx, 'create', definition)
      })
    } catch (error) {
      // Its collection is new: dropping it removes exactly what this call created.
      await collections.drop(definition)
      throw error instanceof DuplicateKeyError ? duplicateName(settings.name) : error
    }
    webhooks.settle()
    return definition
  }

  /** Writes `settings` over the stored definition, unless it changed since it was read (then 412). */
  async function update(
    scope: Scope,
    idOrName: string,
    settings: (current: DefinitionRecord) => Settings,
    ifMatch: string | undefined,
  ): Promise<Definition> {
    const current = await load(scope.environmentId, idOrName)
    checkIfMatch(current, ifMatch)
    const next = settings(current)
    if (next.actions !== current.actions) await actions.check(next.actions)
    const definition = hashed<DefinitionRecord>({
      _id: current._id,
      _createdOn: current._createdOn,
      _createdByUserId: current._createdByUserId,
      _lastModifiedOn: isoTime(clock),
      _lastModifiedByUserId: scope.userId,
      _environmentId: current._environmentId,
      status: current.status,
      name: next.name,
      ...settingsOf(next),
      _hash: '',
    })
    if (next.name !== current.name) await checkFreeName(scope.environmentId, next.name, current._id)
    // New indexes are built first (a definition never declares an index its documents lack); they are dropped
    // again if the write fails, and the ones it no longer declares go only once it is written.
    const created = await collections.addIndexes(definition, current.indexes)
    const { _id, ...replacement } = definition
    let updated: DefinitionRecord | null
    try {
      checkRunLasts(scope)
      updated = await store.transaction(async (tx) => {
        const written = await DOCUMENTS_COLLECTIONS.definitions
          .in(tx)
          .updateOne({ _id, _environmentId: scope.environmentId }, replacement, { expectedHash: current._hash })
        if (written) {
          await changes.definition(tx, 'update', written)
          await webhooks.enqueueDefinition(tx, 'update', written)
        }
        return written
      })
      if (!updated) throw notFound(idOrName, scope.environmentId)
      webhooks.settle()
    } catch (error) {
      await rollBackIndexes(definition, created)
      if (error instanceof DuplicateKeyError) throw duplicateName(next.name)
      if (error instanceof ConflictError) {
        throw fail(
          'precondition_failed',
          `Document definition "${idOrName}" changed concurrently`,
          'The definition was changed by someone else; reload it',
        )
      }
      throw error
    } finally {
      forget(scope.environmentId)
    }
    await collections.removeIndexes(updated, current.indexes ?? [])
    return present(scope, updated, true)
  }

  async function freeCopyName(environmentId: string, source: string): Promise<string> {
    for (let number = 1; number <= MAX_COPY_NUMBER; number++) {
      const name = number === 1 ? `${source} (copy)` : `${source} (copy ${number})`
      if (!(await definitions.findOne({ _environmentId: environmentId, name }, { projection: { _id: 1 } }))) return name
    }
    throw duplicateName(`${source} (copy ${MAX_COPY_NUMBER})`)
  }

  return {
    resolve,

    async list(scope, { limit, after, exclude }) {
      // `after` names a definition of the caller's environment (another's position is not theirs to know).
      const own = { _environmentId: scope.environmentId }
      if (after !== undefined && !(await definitions.findOne({ ...own, _id: after }, { projection: { _id: 1 } }))) {
        throw fail('invalid_query', `after: no document definition ${after}`, 'The list parameter "after" is not valid')
      }
      const items = await definitions.find(own, { limit: limit + 1, after })
      const hasNext = items.length > limit
      if (hasNext) items.length = limit
      const pagination: Pagination = { hasPrevious: after !== undefined, hasNext, type: 'cursor' }
      const last = items.at(-1)
      if (hasNext && last) {
        pagination.next = new URLSearchParams({
          limit: String(limit),
          exclude: JSON.stringify(exclude),
          after: last._id,
        })
          .toString()
          .replaceAll('+', '%20')
      }
      const left = new Set(exclude)
      const data = await Promise.all(items.map((item) => present(scope, item)))
      const shown = left.size === 0 ? data : data.map((item) => withoutFields(item, left))
      return { data: shown, pagination }
    },

    async get(scope, idOrName) {
      return present(scope, await load(scope.environmentId, idOrName))
    },

    async create(scope, body) {
      if (body.name === undefined) {
        throw fail('validation_error', 'body/name is required to create a document definition')
      }
      await actions.check(body.actions)
      return present(scope, await insert(scope, { ...settingsOf(body), name: body.name }), true)
    },

    async copy(scope, sourceIdOrName, body) {
      const source = await load(scope.environmentId, sourceIdOrName)
      await actions.check(body.actions)
      const name = body.name ?? (await freeCopyName(scope.environmentId, source.name))
      return present(scope, await insert(scope, { ...settingsOf(source), ...settingsOf(body), name }), true)
    },

    replace(scope, idOrName, body, ifMatch) {
      return update(scope, idOrName, () => body, ifMatch)
    },

    patch(scope, idOrName, patch, ifMatch) {
      return update(
        scope,
        idOrName,
        (current) => {
          const merged: Partial<Settings> = { name: current.name, ...settingsOf(current) }
          for (const [key, value] of Object.entries(patch)) Object.assign(merged, { [key]: value ?? undefined })
          return { ...merged, name: merged.name ?? current.name }
        },
        ifMatch,
      )
    },

    async remove(scope, idOrName, force, ifMatch) {
      const definition = await load(scope.environmentId, idOrName)
      checkIfMatch(definition, ifMatch)
      const count = await collections.count(definition)
      if (count > 0 && !force) {
        throw fail(
          'validation_error',
          `force: document definition "${definition.name}" still holds ${count} documents; delete with ?force=true`,
          'Delete the documents first, or force the deletion',
        )
      }
      // The definition goes first, so no new document can be written into the collection being dropped.
      checkRunLasts(scope)
      await store.transaction(async (tx) => {
        const removed = await DOCUMENTS_COLLECTIONS.definitions
          .in(tx)
          .deleteOne({ _id: definition._id, _environmentId: scope.environmentId })
        if (removed) {
          await changes.definition(tx, 'delete', definition)
          await webhooks.enqueueDefinition(tx, 'delete', definition)
        }
      })
      changes.committed(scope.environmentId)
      webhooks.settle()
      forget(scope.environmentId)
      await collections.drop(definition)
      await attachmentFiles.dropDefinition(definition)
      await actions.drop(definition)
      return definition
    },
  }
}
