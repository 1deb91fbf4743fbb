import { Type, type Static } from '@sinclair/typebox'
import { IdSchema, Ok, TimestampSchema } from './common.js'
import { DeletedSchema, DocumentSchema } from './documents.js'

/** One file as the attachment field holds it (the platform spec, "Attachments"). `_sha256` is our addition. */
export const AttachmentSchema = Type.Object({
  _id: IdSchema,
  _fileName: Type.String(),
  _size: Type.Integer({ minimum: 0 }),
  _contentType: Type.String(),
  store: Type.Union([Type.Literal('file'), Type.Literal('image')]),
  _width: Type.Optional(Type.Integer({ minimum: 0 })),
  _height: Type.Optional(Type.Integer({ minimum: 0 })),
  /** Hex sha256 of the bytes, measured while the upload streamed in. */
  _sha256: Type.Optional(Type.String({ pattern: '^[0-9a-f]{64}$' })),
  _createdOn: TimestampSchema,
  _createdByUserId: Type.String(),
})
export type Attachment = Static<typeof AttachmentSchema>

/** Dot path into the document, numeric segments index arrays (`list.0.files`); checked by the service. */
export const ValuePathSchema = Type.String({ minLength: 1, maxLength: 1024 })

/** A pattern matching any of `words` in any letter case (JSON Schema patterns take no flags). */
const anyCase = (words: string[]) =>
  `^(?:${words.map((word) => [...word].map((c) => `[${c.toLowerCase()}${c.toUpperCase()}]`).join('')).join('|')})$`

export const ATTACHMENT_ACTIONS = ['upload', 'append', 'replace'] as const

export const AttachmentsParamsSchema = Type.Object({ ddId: IdSchema, id: IdSchema })
export const AttachmentParamsSchema = Type.Object({ ddId: IdSchema, id: IdSchema, attachmentId: IdSchema })

/** Save: `actionType` `Upload` (default, appends) or `Replace`, any case; `append`/`replace` too. */
export const SaveAttachmentsQuerystringSchema = Type.Object({
  valuePath: ValuePathSchema,
  actionType: Type.String({ pattern: anyCase([...ATTACHMENT_ACTIONS]), default: 'Upload' }),
  shouldUpdateDocument: Type.Boolean({ default: true }),
})
export type SaveAttachmentsQuerystring = Static<typeof SaveAttachmentsQuerystringSchema>

/** `document` is there when the metadata was written into it (`shouldUpdateDocument`). */
export const SavedAttachmentsSchema = Ok(
  Type.Object({ attachments: Type.Array(AttachmentSchema), document: Type.Optional(DocumentSchema) }),
)

/** A file's bytes: in a form part, or a download (a stream, never serialized). */
const BytesSchema = Type.Unsafe<unknown>({ type: 'string', format: 'binary' })

/**
 * Save: a `multipart/form-data` form, read part by part by the handler (the route validates no body). Every file
 * part is stored, in order, whatever its field name; `file` is the one a client names.
 */
export const UploadFormSchema = Type.Object({ file: Type.Union([BytesSchema, Type.Array(BytesSchema)]) })

/** Download: the bytes, whole (200) or one range (206), in the type the file was uploaded with. */
export const attachmentBytes = (description: string) => ({
  description,
  content: { '*/*': { schema: BytesSchema } },
})

export const RemovedAttachmentSchema = Ok(Type.Composite([DeletedSchema, Type.Object({ document: DocumentSchema })]))

const DocumentReference = {
  ddName: IdSchema,
  _id: Type.Optional(IdSchema),
  externalId: Type.Optional(IdSchema),
  valuePath: ValuePathSchema,
}

/** Source and target each need `_id` or `externalId` (checked by the service, which names the item). */
export const CopySourceSchema = Type.Object(
  {
    ...DocumentReference,
    fileNames: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), { maxItems: 1000 })),
    fileIds: Type.Optional(Type.Array(IdSchema, { maxItems: 1000 })),
  },
  { additionalProperties: false },
)
export type CopySource = Static<typeof CopySourceSchema>
export const CopyTargetSchema = Type.Object(DocumentReference, { additionalProperties: false })
export type CopyTarget = Static<typeof CopyTargetSchema>

export const MAX_COPY_ITEMS = 100

export const CopyAttachmentsBodySchema = Type.Array(
  Type.Object({ source: CopySourceSchema, target: CopyTargetSchema }, { additionalProperties: false }),
  { minItems: 1, maxItems: MAX_COPY_ITEMS },
)
export type CopyAttachmentsBody = Static<typeof CopyAttachmentsBodySchema>

/** Per item: the references with the resolved `_id`s, and the new metadata appended at the target. */
export const CopiedAttachmentsSchema = Type.Object({
  source: CopySourceSchema,
  target: CopyTargetSchema,
  attachments: Type.Array(AttachmentSchema),
})
export type CopiedAttachments = Static<typeof CopiedAttachmentsSchema>
export const CopyAttachmentsResponseSchema = Ok(Type.Array(CopiedAttachmentsSchema))

/** Download: one byte range (`bytes=0-99`, `bytes=100-`, `bytes=-100`), honoured while `If-Range` matches. */
export const DownloadHeadersSchema = Type.Object({
  range: Type.Optional(Type.String({ maxLength: 200 })),
  'if-range': Type.Optional(Type.String({ maxLength: 200 })),
})
