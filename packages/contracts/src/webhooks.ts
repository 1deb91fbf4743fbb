import { Type, type Static } from '@sinclair/typebox'
import { IdSchema, LimitSchema, ObjectIdSchema, TimestampSchema } from './common.js'

/** A document of the webhook's definition (or of any) created, updated or deleted; `query` filters these. */
export const DOCUMENT_EVENTS = ['document.create', 'document.update', 'document.delete'] as const
/** A definition created, changed or deleted; `query` never applies to them, `ddId` does (but for a creation). */
export const DEFINITION_EVENTS = ['definition.create', 'definition.update', 'definition.delete'] as const
/** What a webhook can be told. */
export const WEBHOOK_EVENTS = [...DOCUMENT_EVENTS, ...DEFINITION_EVENTS] as const
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number]
export type DocumentEvent = (typeof DOCUMENT_EVENTS)[number]
export type DefinitionEvent = (typeof DEFINITION_EVENTS)[number]
export const WebhookEventSchema = Type.Union(WEBHOOK_EVENTS.map((event) => Type.Literal(event)))

/** An http(s) URL; where it may point (no private ranges) is the service's check, at registration and delivery. */
export const WebhookUrlSchema = Type.String({ minLength: 8, maxLength: 2048, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' })
const EventsSchema = Type.Array(WebhookEventSchema, { minItems: 1, maxItems: WEBHOOK_EVENTS.length, uniqueItems: true })
/** The list's filter language, evaluated on the changed document. */
const WebhookQuerySchema = Type.Record(Type.String(), Type.Unknown())

export const WebhookParamsSchema = Type.Object({ webhookId: IdSchema })
export const DeliveryParamsSchema = Type.Object({ webhookId: IdSchema, deliveryId: IdSchema })

/** `POST /api/v2/webhooks`. */
export const CreateWebhookBodySchema = Type.Object(
  {
    url: WebhookUrlSchema,
    events: EventsSchema,
    /** A definition `_id` or name: only its documents; absent: every definition of the environment. */
    ddId: Type.Optional(IdSchema),
    query: Type.Optional(WebhookQuerySchema),
    paused: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)
export type CreateWebhookBody = Static<typeof CreateWebhookBodySchema>

/** `PATCH /api/v2/webhooks/{webhookId}`: the fields given change; `null` removes `ddId` or `query`. */
export const WebhookPatchSchema = Type.Object(
  {
    url: Type.Optional(WebhookUrlSchema),
    events: Type.Optional(EventsSchema),
    ddId: Type.Optional(Type.Union([IdSchema, Type.Null()])),
    query: Type.Optional(Type.Union([WebhookQuerySchema, Type.Null()])),
    paused: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)
export type WebhookPatch = Static<typeof WebhookPatchSchema>

/** A webhook as answered: never its secret (the create and rotate answers alone carry it). */
export const WebhookSchema = Type.Object({
  _id: ObjectIdSchema,
  url: Type.String(),
  events: Type.Array(WebhookEventSchema),
  /** The definition's `_id`, when it is limited to one. */
  ddId: Type.Optional(Type.String()),
  query: Type.Optional(WebhookQuerySchema),
  paused: Type.Boolean(),
  _createdOn: TimestampSchema,
  _lastModifiedOn: TimestampSchema,
})
export type Webhook = Static<typeof WebhookSchema>

/** The signing secret (`whsec_...`), shown only here: at creation and rotation. */
export const WebhookCreatedSchema = Type.Composite([WebhookSchema, Type.Object({ secret: Type.String() })])
export const WebhookSecretSchema = Type.Object({ _id: ObjectIdSchema, secret: Type.String() })

export const WebhooksQuerystringSchema = Type.Object({ limit: LimitSchema, after: Type.Optional(IdSchema) })

export const DELIVERY_STATES = ['waiting', 'delivered', 'failed'] as const
export type DeliveryState = (typeof DELIVERY_STATES)[number]

/** One try at sending a delivery: the answer's status, or the error that stopped it. */
export const DeliveryAttemptSchema = Type.Object({
  attempt: Type.Integer({ minimum: 1 }),
  at: TimestampSchema,
  durationMs: Type.Integer({ minimum: 0 }),
  status: Type.Optional(Type.Integer()),
  error: Type.Optional(Type.String()),
})
export type DeliveryAttempt = Static<typeof DeliveryAttemptSchema>

export const DeliverySchema = Type.Object({
  _id: ObjectIdSchema,
  webhookId: ObjectIdSchema,
  /** The body's `id`: one per change, the same for every webhook it is sent to and for a redelivery. */
  eventId: ObjectIdSchema,
  type: WebhookEventSchema,
  ddId: Type.String(),
  /** The document told of; absent for a definition event. */
  documentId: Type.Optional(Type.String()),
  state: Type.Union(DELIVERY_STATES.map((state) => Type.Literal(state))),
  /** When a waiting delivery is tried next. */
  nextAttemptOn: Type.Optional(TimestampSchema),
  attempts: Type.Array(DeliveryAttemptSchema),
  _createdOn: TimestampSchema,
})
export type Delivery = Static<typeof DeliverySchema>

export const DeliveriesQuerystringSchema = Type.Object({
  state: Type.Optional(Type.Union(DELIVERY_STATES.map((state) => Type.Literal(state)))),
  limit: LimitSchema,
  after: Type.Optional(IdSchema),
})
export type DeliveriesQuerystring = Static<typeof DeliveriesQuerystringSchema>
