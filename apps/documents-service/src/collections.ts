import type {
  AccessGroup,
  Action,
  ActionRun,
  ActionTrigger,
  BulkResult,
  Definition,
  Document,
  IndexDeclaration,
  DeliveryAttempt,
  DeliveryState,
  WebhookEvent,
} from '@quire/contracts'
import {
  defineCollection,
  ensureIndexes,
  type CollectionSpec,
  type IndexSpec,
  type RecordStore,
  type StoredRecord,
} from '@quire/records'

/**
 * A definition as stored: the wire shape without `_permissions` (computed for each caller), with its indexes as
 * declared (their `state` is the store's, read for each answer) and its actions whole (sources included).
 */
export type DefinitionRecord = Omit<Definition, '_permissions' | 'indexes' | 'actions'> & {
  indexes?: IndexDeclaration[]
  actions?: Action[]
}

/**
 * A document as stored, never with `_permissions`. Its stored text ends with `_hash` (see lib/stored-text.ts).
 */
export interface DocumentRecord extends StoredRecord {
  _createdOn: string
  _createdByUserId: string
  _lastModifiedOn: string
  _lastModifiedByUserId: string
  _documentDefinitionId: string
  _environmentId: string
  status: string
  accessGroups: AccessGroup[]
  externalId?: string
  _hash: string
}

/** User fields of a document: everything but the system fields. */
export type DocumentFields = Record<string, unknown>

/** The results of a bulk call, kept as one created document is for a replay (`_hash`: a hash of the call). */
export interface BulkRecord {
  _hash: string
  results: BulkResult[]
}

/** The first result of a create (or a bulk call) sent with an `Idempotency-Key`, kept for a replay. */
export interface IdempotencyRecord extends StoredRecord {
  /** The result's `_hash`: a record replaced when its key expired is deleted at the version that was read. */
  _hash: string
  bodyHash: string
  document: DocumentRecord | BulkRecord
  expiresOn: string
}

/**
 * An attachment of a document, by its key (`<environment>/<definition>/<document>/<attachment>`), with the
 * document holding it and the stored file it reads.
 */
export interface AttachmentFileRecord extends StoredRecord {
  definitionId: string
  documentId: string
  _createdOn: string
  /** The key of the stored file when it is another attachment's (a copy shares it); absent: `_id` itself. */
  file?: string
  /** Written when a copy starts sharing this attachment's file, so a removal racing the copy conflicts with it. */
  sharedOn?: string
  /** Its file is being removed (it was the last reference): a copy can no longer share it. */
  removing?: true
}

/** How many attachments read one stored file, kept only while more than one does (absent: one). */
export interface SharedFileRecord extends StoredRecord {
  references: number
}

/**
 * A run of an action as stored (`GET .../action-runs` answers them as they are); `writes` is absent from runs
 * recorded before it was.
 */
export type ActionRunRecord = Omit<ActionRun, 'writes'> & Partial<Pick<ActionRun, 'writes'>> & StoredRecord

/**
 * An after-write action waiting to run, written in the transaction of the write that set it off. `dueOn` is when
 * it may run next: a runner claims it by moving `dueOn` past its lease (a conditional write on `_hash`), so one
 * runner holds it at a time, and a runner that dies leaves it due again once the lease ends.
 */
export interface ActionJobRecord extends StoredRecord {
  _hash: string
  environmentId: string
  definitionId: string
  documentId: string
  action: string
  trigger: ActionTrigger
  /** Who wrote: the action runs as them. */
  userId: string
  /** The depth its run acts at (the write's own depth + 1). */
  depth: number
  /**
   * The action's source when the write committed: the job runs it, not one saved since. Absent from jobs queued
   * before it was kept (they run the current source).
   */
  source?: string
  /** The committed document (the deleted one for `afterDelete`) as its writer read it, `_permissions` included. */
  document: Document
  /** For `afterUpdate` and `afterDelete`: the document before the write. */
  previous: Document | null
  /** Runs started so far. */
  attempt: number
  dueOn: string
  createdOn: string
}

/** A webhook as stored: its secret sealed (lib/sealed.ts), its query as JSON text (`$` keys never stored as names). */
export interface WebhookRecord extends StoredRecord {
  _hash: string
  environmentId: string
  url: string
  events: WebhookEvent[]
  definitionId?: string
  query?: string
  paused: boolean
  secret: string
  _createdOn: string
  _lastModifiedOn: string
}

/**
 * A change to tell one webhook, written in the change's transaction. Claimed as after-write jobs are (`dueOn`
 * moved past a lease by a write on `_hash`); `dueOn` is absent once it is delivered or has failed for good.
 */
export interface WebhookDeliveryRecord extends StoredRecord {
  _hash: string
  environmentId: string
  webhookId: string
  eventId: string
  type: WebhookEvent
  definitionId: string
  /** Absent for a definition event. */
  documentId?: string
  /** The body sent, fixed when the change committed: every attempt and a redelivery send the same bytes. */
  body: string
  state: DeliveryState
  dueOn?: string
  /** Retries stop past it (the first attempt plus the retry window). */
  retryUntil: string
  attempts: DeliveryAttempt[]
  /** Failed attempts since the last success or redelivery: the backoff's exponent. */
  failures?: number
  _createdOn: string
  /** Set when it is delivered or has failed: swept past it. */
  expiresOn?: string
}

/**
 * One entry of an environment's change log (domain/change-log.ts), appended in the write's own transaction:
 * `_id` `<environment>:<seq>`, `seq` numbered in commit order. A document write keeps the versions the feed
 * needs to tell each subscriber what it saw: `document` (created, updated, or the one deleted) and, for an
 * update, `previous`.
 */
export interface ChangeRecord extends StoredRecord {
  seq: number
  environmentId: string
  definitionId: string
  target: 'document' | 'definition'
  operation: 'create' | 'update' | 'delete'
  at: string
  document?: DocumentRecord
  previous?: DocumentRecord
}

/**
 * The documents service's collections, the only place their names are written. A definition's name is unique
 * in its environment (listing by environment uses the same index).
 */
export const DOCUMENTS_COLLECTIONS = {
  definitions: defineCollection<DefinitionRecord>('document_definitions', [
    { name: 'environment_name', fields: { _environmentId: 1, name: 1 }, unique: true },
  ]),
  /** `_id`: a hash of environment, definition, user and key (plugins/idempotency.ts); swept past `expiresOn`. */
  idempotencyKeys: defineCollection<IdempotencyRecord>('idempotency_keys', [
    { name: 'expires', fields: { expiresOn: 1 } },
  ]),
  /**
   * Every stored file, written before the file is, so a file whose document is deleted (or whose definition is
   * dropped) can always be found and removed, even one stored with `shouldUpdateDocument=false` or left by a crash.
   */
  attachmentFiles: defineCollection<AttachmentFileRecord>('attachment_files', [
    { name: 'definition_document', fields: { definitionId: 1, documentId: 1 } },
  ]),
  /** `_id`: a stored file's key. A file is removed from the file store with its last reference. */
  sharedFiles: defineCollection<SharedFileRecord>('shared_files'),
  /** Listed per definition, newest first (`_id`s are time-ordered); swept past `expiresOn`. */
  actionRuns: defineCollection<ActionRunRecord>('action_runs', [
    { name: 'definition', fields: { environmentId: 1, definitionId: 1 } },
    { name: 'expires', fields: { expiresOn: 1 } },
  ]),
  /** Read per environment in `_id` (commit) order; swept past its retention by `at`. */
  changes: defineCollection<ChangeRecord>('changes', [{ name: 'at', fields: { at: 1 } }]),
  /** Claimed in `dueOn` order; counted and dropped per definition. */
  actionJobs: defineCollection<ActionJobRecord>('action_jobs', [
    { name: 'due', fields: { dueOn: 1 } },
    { name: 'definition', fields: { definitionId: 1 } },
  ]),
  webhooks: defineCollection<WebhookRecord>('webhooks', [{ name: 'environment', fields: { environmentId: 1 } }]),
  /** Claimed in `dueOn` order; listed per webhook, newest first; counted waiting per environment; swept past `expiresOn`. */
  webhookDeliveries: defineCollection<WebhookDeliveryRecord>('webhook_deliveries', [
    { name: 'due', fields: { dueOn: 1 } },
    { name: 'webhook', fields: { webhookId: 1 } },
    { name: 'environment_state', fields: { environmentId: 1, state: 1 } },
    { name: 'expires', fields: { expiresOn: 1 } },
  ]),
} as const

/** Creates the missing indexes of the fixed collections (idempotent); app.ts calls it once at start. */
export async function ensureDocumentsIndexes(store: RecordStore): Promise<void> {
  await ensureIndexes(store, Object.values(DOCUMENTS_COLLECTIONS))
}

/** `externalId` is unique among a definition's documents (when present). */
export const EXTERNAL_ID_INDEX: IndexSpec = {
  name: 'externalId',
  fields: { externalId: 1 },
  unique: true,
  partial: { externalId: { $exists: true } },
}

/**
 * A definition's documents: one collection per definition, so environments never share one. Its indexes are
 * `EXTERNAL_ID_INDEX` and the definition's declared ones (`declaredIndex`), kept in step with the definition.
 */
export const documentsCollection = (
  definition: Pick<DefinitionRecord, '_id' | '_environmentId'>,
): CollectionSpec<DocumentRecord> =>
  defineCollection<DocumentRecord>(`documents.${definition._environmentId}.${definition._id}`, [EXTERNAL_ID_INDEX])

/** The index an entry of a definition's `indexes` declares: `dd_<field>_<direction>...[_unique]`. */
export function declaredIndex(declaration: IndexDeclaration): IndexSpec {
  const key = Object.entries(declaration.fields)
    .map(([field, direction]) => `${field}_${direction}`)
    .join('_')
  return {
    name: `dd_${key}${declaration.unique ? '_unique' : ''}`,
    fields: declaration.fields,
    unique: declaration.unique ?? false,
  }
}
