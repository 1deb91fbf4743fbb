import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { IdSchema, LimitSchema, ObjectIdSchema, PRINTABLE_PATTERN, TimestampSchema } from './common.js'

/** Top-level names the server maintains; a client sending them is ignored (the platform spec, "Documents"). */
export const DOCUMENT_SYSTEM_FIELDS = [
  '_id',
  '_createdOn',
  '_createdByUserId',
  '_lastModifiedOn',
  '_lastModifiedByUserId',
  '_documentDefinitionId',
  '_environmentId',
  '_hash',
  '_permissions',
] as const

/**
 * `T` or `null` as one JSON Schema `type` list rather than `anyOf`: with Ajv's type coercion an `anyOf`
 * would turn `null` into `""` in its string branch, and a merge patch's `null` must stay `null`.
 */
const Nullable = <T extends TSchema & { type: string }>(schema: T) =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, 'null'] })

/** `{ddId}`: a definition `_id` or `name`. */
export const DefinitionParamsSchema = Type.Object({ ddId: IdSchema })
/** `{id}`: a document `_id` or `externalId`. */
export const DocumentParamsSchema = Type.Object({ ddId: IdSchema, id: IdSchema })

export const PermissionsSchema = Type.Object({
  fullPermissions: Type.Boolean(),
  userActionPermissions: Type.Array(Type.String()),
})
export type Permissions = Static<typeof PermissionsSchema>

// ---------------------------------------------------------------------------------------------------------
// Document definitions

/** A definition's own field names: plain identifiers, never system (`_`) or operator (`$`) names. */
export const FIELD_NAME_PATTERN = '^[A-Za-z][A-Za-z0-9_-]{0,127}$'

export const FIELD_TYPES = ['string', 'number', 'boolean', 'date', 'object', 'array', 'attachment', 'location'] as const
export type FieldType = (typeof FIELD_TYPES)[number]

export const FieldSpecSchema = Type.Object(
  {
    type: Type.Union(FIELD_TYPES.map((type) => Type.Literal(type))),
    required: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)
export type FieldSpec = Static<typeof FieldSpecSchema>

/** `fields`: field name → type. When present, document writes are validated against it. */
export const FieldsSchema = Type.Record(Type.String({ pattern: FIELD_NAME_PATTERN }), FieldSpecSchema, {
  maxProperties: 500,
})

/** A declared index, as Mongo spells it: `{"fields": {"category": 1, "price": -1}, "unique"?: true}`. */
export const IndexDeclarationSchema = Type.Object(
  {
    fields: Type.Record(
      Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_-]*(\\.[A-Za-z0-9_-]+)*$', maxLength: 256 }),
      Type.Union([Type.Literal(1), Type.Literal(-1)]),
      { minProperties: 1, maxProperties: 8 },
    ),
    unique: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)
export type IndexDeclaration = Static<typeof IndexDeclarationSchema>

/**
 * A declared index in a definition's answer: `state` is `building` while the store is still adding the existing
 * documents to it (queries do not use it yet), `ready` after; absent when the store does not hold it.
 */
const DefinitionIndexSchema = Type.Object({
  ...IndexDeclarationSchema.properties,
  state: Type.Optional(Type.Union([Type.Literal('building'), Type.Literal('ready')])),
})

// ---------------------------------------------------------------------------------------------------------
// Actions: server scripts a definition declares (docs/API.md, "Actions")

/** When an action runs: on demand (`POST .../actions/{name}`), before a write (may refuse or change it), after one. */
export const ACTION_TRIGGERS = [
  'manual',
  'beforeCreate',
  'beforeUpdate',
  'beforeDelete',
  'afterCreate',
  'afterUpdate',
  'afterDelete',
] as const
export type ActionTrigger = (typeof ACTION_TRIGGERS)[number]

export const ACTION_NAME_PATTERN = '^[A-Za-z][A-Za-z0-9_-]{0,63}$'
/** The largest script, in characters (the engine also refuses more than 64 KiB of UTF-8). */
const ACTION_SOURCE_MAX = 64 * 1024
const MAX_ACTIONS = 32

const ActionTriggersSchema = Type.Array(Type.Union(ACTION_TRIGGERS.map((trigger) => Type.Literal(trigger))), {
  minItems: 1,
  maxItems: ACTION_TRIGGERS.length,
  uniqueItems: true,
})
const actionFields = {
  name: Type.String({ pattern: ACTION_NAME_PATTERN }),
  triggers: ActionTriggersSchema,
  description: Type.Optional(Type.String({ maxLength: 5000 })),
}

/** An action as declared: `source` is the body of an async function (its `return` is the result). */
export const ActionSchema = Type.Object(
  { ...actionFields, source: Type.String({ maxLength: ACTION_SOURCE_MAX }) },
  { additionalProperties: false },
)
export type Action = Static<typeof ActionSchema>
const ActionsSchema = Type.Array(ActionSchema, { maxItems: MAX_ACTIONS })

/** An action in a definition's answer: `source` only for administrators. */
const DefinitionActionSchema = Type.Object({ ...actionFields, source: Type.Optional(Type.String()) })

const NameSchema = Type.String({ minLength: 1, maxLength: 200, pattern: PRINTABLE_PATTERN })
const definitionSettings = {
  label: Type.Optional(Type.String({ maxLength: 500 })),
  description: Type.Optional(Type.String({ maxLength: 5000 })),
  fields: Type.Optional(FieldsSchema),
  indexes: Type.Optional(Type.Array(IndexDeclarationSchema, { maxItems: 32 })),
  actions: Type.Optional(ActionsSchema),
}

/** `PUT /document-definitions/{ddId}`: the whole definition. */
export const DefinitionBodySchema = Type.Object(
  { name: NameSchema, ...definitionSettings },
  { additionalProperties: false },
)
export type DefinitionBody = Static<typeof DefinitionBodySchema>

/** `PATCH /document-definitions/{ddId}`: a merge patch; `null` removes an optional setting. */
export const DefinitionPatchSchema = Type.Object(
  {
    name: Type.Optional(NameSchema),
    label: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    description: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
    fields: Type.Optional(Nullable(FieldsSchema)),
    indexes: Type.Optional(Nullable(Type.Array(IndexDeclarationSchema, { maxItems: 32 }))),
    actions: Type.Optional(Nullable(ActionsSchema)),
  },
  { additionalProperties: false },
)
export type DefinitionPatch = Static<typeof DefinitionPatchSchema>

const Reference = Type.Object({ id: Type.Optional(Type.String()) })

/**
 * `POST /document-definitions`: without `sourceId` a new definition (`name` required); with it a copy, which
 * accepts the spec's names (context of the calling action, all optional: an action's `context`, `input` and
 * `previous` included, may be sent as is; none of them is stored) and takes the given settings over the source's.
 */
export const CreateDefinitionBodySchema = Type.Object(
  {
    name: Type.Optional(NameSchema),
    ...definitionSettings,
    clientDocument: Type.Optional(Reference),
    actionInfo: Type.Optional(Reference),
    actionType: Type.Optional(Type.String({ maxLength: 200 })),
    ddId: Type.Optional(Type.String({ maxLength: 256 })),
    workflowId: Type.Optional(Type.String({ maxLength: 256 })),
    value: Type.Optional(Reference),
    documentDefinitions: Type.Optional(Type.Unknown()),
    input: Type.Optional(Type.Unknown()),
    previous: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
)
export type CreateDefinitionBody = Static<typeof CreateDefinitionBodySchema>

export const CreateDefinitionQuerystringSchema = Type.Object({ sourceId: Type.Optional(IdSchema) })
export const DeleteDefinitionQuerystringSchema = Type.Object({ force: Type.Boolean({ default: false }) })

const systemFields = {
  _id: IdSchema,
  _createdOn: TimestampSchema,
  _createdByUserId: Type.String(),
  _lastModifiedOn: TimestampSchema,
  _lastModifiedByUserId: Type.String(),
  _environmentId: Type.String(),
  _hash: Type.String(),
  status: Type.String(),
}

/** A definition on the wire: shaped like a Document (spec, "Copy of a document definition"). */
export const DefinitionSchema = Type.Object({
  ...systemFields,
  name: Type.String(),
  ...definitionSettings,
  indexes: Type.Optional(Type.Array(DefinitionIndexSchema)),
  actions: Type.Optional(Type.Array(DefinitionActionSchema)),
  _permissions: PermissionsSchema,
})
export type Definition = Static<typeof DefinitionSchema>
/** A listed definition: `exclude` may leave out any field but `_id`. */
export const ListedDefinitionSchema = Type.Object({ ...Type.Partial(DefinitionSchema).properties, _id: IdSchema })
export type ListedDefinition = Static<typeof ListedDefinitionSchema>
/** `GET /api/v2/document-definitions`: `exclude` is a URL-encoded JSON array of top-level field names. */
export const DefinitionsQuerystringSchema = Type.Object({
  limit: LimitSchema,
  after: Type.Optional(IdSchema),
  exclude: Type.Optional(Type.String({ maxLength: 8192 })),
})

// ---------------------------------------------------------------------------------------------------------
// Documents

const GroupIdsSchema = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 1000 })
/**
 * An access group as the platform stores it: its members by user id and by group, and related access groups.
 * Kept as sent (other fields too); `memberUserIds` and `memberGroupIds` decide who sees the document.
 */
const AccessGroupObjectSchema = Type.Object(
  {
    _id: Type.String({ minLength: 1, maxLength: 200 }),
    memberUserIds: Type.Optional(GroupIdsSchema),
    memberGroupIds: Type.Optional(GroupIdsSchema),
    memberRelatedAccessGroupIds: Type.Optional(GroupIdsSchema),
  },
  { additionalProperties: true, maxProperties: 20 },
)
/** One entry of `accessGroups`: a group's name, or an access-group object. */
const AccessGroupSchema = Type.Union([Type.String({ minLength: 1, maxLength: 200 }), AccessGroupObjectSchema])
export type AccessGroup = Static<typeof AccessGroupSchema>
const GroupsSchema = Type.Array(AccessGroupSchema, { maxItems: 200 })

/** A document on the wire: system fields, `status`, `accessGroups`, `externalId?`, and its own fields. */
export const DocumentSchema = Type.Object(
  {
    ...systemFields,
    _documentDefinitionId: Type.String(),
    accessGroups: Type.Array(AccessGroupSchema),
    externalId: Type.Optional(Type.String()),
    _permissions: PermissionsSchema,
  },
  { additionalProperties: true },
)

/** The schema's fields and the document's own. */
export type Document = Static<typeof DocumentSchema> & { [field: string]: unknown }

/** A projected list item: only `_id` is sure to be there. */
export const ListedDocumentSchema = Type.Object({ _id: IdSchema }, { additionalProperties: true })

const ExternalIdSchema = Type.String({ minLength: 1, maxLength: 256 })

/** POST `.../new` and PUT: the document's user fields. System names are ignored; the rest is kept as sent. */
export const DocumentBodySchema = Type.Object(
  {
    status: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    accessGroups: Type.Optional(GroupsSchema),
    externalId: Type.Optional(ExternalIdSchema),
  },
  { additionalProperties: true, maxProperties: 1000 },
)
export type DocumentBody = Static<typeof DocumentBodySchema>

/** PATCH: a JSON merge patch of top-level fields; `null` removes one (and resets `status`/`accessGroups`). */
export const DocumentPatchSchema = Type.Object(
  {
    status: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100 }))),
    accessGroups: Type.Optional(Nullable(GroupsSchema)),
    externalId: Type.Optional(Nullable(ExternalIdSchema)),
  },
  { additionalProperties: true, maxProperties: 1000 },
)
export type DocumentPatch = Static<typeof DocumentPatchSchema>

const IfMatchSchema = Type.String({ maxLength: 2048 })

/** The most operations of one bulk call. */
const BULK_MAX_OPERATIONS = 1000

/**
 * One operation of `POST {core}/bulk`: `create` (body optional, as `.../new`), `update` (a PUT: the whole
 * body), `patch` (a merge patch), `delete`; `id` is an `_id` or `externalId`; `ifMatch` pins the version.
 */
const BulkOperationSchema = Type.Union([
  Type.Object({ op: Type.Literal('create'), body: Type.Optional(DocumentBodySchema) }, { additionalProperties: false }),
  Type.Object(
    { op: Type.Literal('update'), id: IdSchema, body: DocumentBodySchema, ifMatch: Type.Optional(IfMatchSchema) },
    { additionalProperties: false },
  ),
  Type.Object(
    { op: Type.Literal('patch'), id: IdSchema, body: DocumentPatchSchema, ifMatch: Type.Optional(IfMatchSchema) },
    { additionalProperties: false },
  ),
  Type.Object(
    { op: Type.Literal('delete'), id: IdSchema, ifMatch: Type.Optional(IfMatchSchema) },
    { additionalProperties: false },
  ),
])
export type BulkOperation = Static<typeof BulkOperationSchema>

export const BulkBodySchema = Type.Object(
  { operations: Type.Array(BulkOperationSchema, { minItems: 1, maxItems: BULK_MAX_OPERATIONS }) },
  { additionalProperties: false },
)

/** One result per operation, in order: the document's `_id` and new `_hash` (its `ETag`), or `deleted`. */
export const BulkResultSchema = Type.Object({
  op: Type.Union([Type.Literal('create'), Type.Literal('update'), Type.Literal('patch'), Type.Literal('delete')]),
  _id: IdSchema,
  _hash: Type.Optional(Type.String()),
  deleted: Type.Optional(Type.Literal(true)),
})
export type BulkResult = Static<typeof BulkResultSchema>

export const IdempotencyHeadersSchema = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
})

export const DeletedSchema = Type.Object({ _id: IdSchema, deleted: Type.Literal(true) })

/**
 * `GET {core}`: JSON values arrive URL-encoded as strings and are parsed (and checked) by the service, so a
 * malformed one is `invalid_query` naming the parameter. Unknown parameters (cache busters) are ignored.
 */
export const ListQuerystringSchema = Type.Object({
  query: Type.Optional(Type.String({ maxLength: 16_384 })),
  sort: Type.Optional(Type.String({ maxLength: 2048 })),
  fields: Type.Optional(Type.String({ maxLength: 8192 })),
  exclude: Type.Optional(Type.String({ maxLength: 8192 })),
  options: Type.Optional(Type.String({ maxLength: 16_384 })),
  limit: Type.Optional(Type.Integer({ minimum: LimitSchema.minimum, maximum: LimitSchema.maximum })),
  skip: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  /** An `_id`, or the cursor a `next` carries under another sort than `_id`'s. */
  after: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  count: Type.Optional(Type.Boolean()),
})
export type ListQuerystring = Static<typeof ListQuerystringSchema>

/** `GET .../documents/changes`: the list's `query` and `fields`, evaluated on each changed document. */
export const ChangesQuerystringSchema = Type.Pick(ListQuerystringSchema, ['query', 'fields'])
export type ChangesQuerystring = Static<typeof ChangesQuerystringSchema>

/** The id of the last event a subscriber read: the stream resumes after it. */
export const ChangesHeadersSchema = Type.Object({ 'last-event-id': Type.Optional(Type.String({ maxLength: 256 })) })

/** The `data` of a change event: the document as its subscriber would GET it, except for a `delete`. */
export const ChangeEventSchema = Type.Object({
  _id: Type.String(),
  operation: Type.Union([Type.Literal('create'), Type.Literal('update'), Type.Literal('delete')]),
  document: Type.Optional(DocumentSchema),
})
export type ChangeEvent = Static<typeof ChangeEventSchema>

/** The stream as OpenAPI shows it: `text/event-stream` of events whose `data` is a `ChangeEvent`. */
export const ChangeStreamSchema = Type.String({
  description:
    'text/event-stream: `id` (resume token), `event` (create, update, delete; a final `resume` for a reader too ' +
    'slow for its buffer), `data` (a ChangeEvent as JSON); comment lines are heartbeats',
})

/** `If-None-Match` on GET of a document or an attachment: the tags the client holds; a current one is 304. */
export const IfNoneMatchHeadersSchema = Type.Object({
  'if-none-match': Type.Optional(Type.String({ maxLength: 2048 })),
})

/** 304: the client's copy (named by `If-None-Match`) is current; no body. */
export const NotModifiedSchema = Type.Null({ description: 'Not modified: the copy named by If-None-Match is current' })

/** `If-Match` on PUT, PATCH and DELETE: the `ETag` (`_hash`) the client last saw. */
export const IfMatchHeadersSchema = Type.Object({ 'if-match': Type.Optional(Type.String({ maxLength: 2048 })) })

// ---------------------------------------------------------------------------------------------------------
// Running actions

/** `POST {core}/{id}/actions/{name}`. */
export const ActionParamsSchema = Type.Object({ ddId: IdSchema, id: IdSchema, name: Type.String({ maxLength: 64 }) })
/** The manual call's body, a JSON object given to the script as `context.input` (no body: `null`). */
export const ActionInputSchema = Type.Unsafe<Record<string, unknown> | null>({
  type: ['object', 'null'],
  additionalProperties: true,
  maxProperties: 1000,
})
/** The largest body of a manual call, in bytes. */
export const ACTION_INPUT_LIMIT = 64 * 1024
/** A manual run's answer: its run record's `_id` and the script's return value (`null` for none). */
export const ActionResultSchema = Type.Object({ runId: ObjectIdSchema, result: Type.Unknown() })

export const ACTION_RUN_STATUSES = ['succeeded', 'refused', 'failed'] as const

/** A write an action's REST.call made that committed: its method, the path it was sent to, the answer's status. */
export const ActionRunWriteSchema = Type.Object({
  method: Type.String(),
  path: Type.String(),
  status: Type.Integer(),
})
export type ActionRunWrite = Static<typeof ActionRunWriteSchema>

/**
 * One run of an action (manual, before or after a write), kept for the retention period. `error.kind`: the
 * engine's (`exception`, `cpu`, `memory`, `rest_calls`, `output`, `wall`, `crash`), `result` (a before-write
 * action returned something other than an object), `queue_full` (an after-write job was not queued), or
 * `refused` with the script's code when an after-write action refused.
 */
export const ActionRunSchema = Type.Object({
  _id: ObjectIdSchema,
  environmentId: Type.String(),
  definitionId: Type.String(),
  documentId: Type.String(),
  action: Type.String(),
  trigger: Type.Union(ACTION_TRIGGERS.map((trigger) => Type.Literal(trigger))),
  status: Type.Union(ACTION_RUN_STATUSES.map((status) => Type.Literal(status))),
  error: Type.Optional(
    Type.Object({ kind: Type.String(), message: Type.String(), code: Type.Optional(Type.String()) }),
  ),
  logs: Type.Array(
    Type.Object({
      level: Type.Union([Type.Literal('log'), Type.Literal('info'), Type.Literal('warn'), Type.Literal('error')]),
      message: Type.String(),
    }),
  ),
  /** The writes its REST.calls made that committed, in the order they were answered (none for a before-write run). */
  writes: Type.Array(ActionRunWriteSchema),
  durationMs: Type.Number({ minimum: 0 }),
  attempt: Type.Integer({ minimum: 1 }),
  userId: Type.String(),
  createdOn: TimestampSchema,
  expiresOn: TimestampSchema,
})
export type ActionRun = Static<typeof ActionRunSchema>

/** `GET /document-definitions/{ddId}/action-runs`: newest first; `after` is the `_id` of the previous page's last. */
export const ActionRunsQuerystringSchema = Type.Object({
  action: Type.Optional(Type.String({ maxLength: 64 })),
  documentId: Type.Optional(IdSchema),
  status: Type.Optional(Type.Union(ACTION_RUN_STATUSES.map((status) => Type.Literal(status)))),
  limit: LimitSchema,
  after: Type.Optional(IdSchema),
})
export type ActionRunsQuerystring = Static<typeof ActionRunsQuerystringSchema>
