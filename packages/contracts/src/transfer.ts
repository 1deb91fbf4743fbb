import { Type, type Static } from '@sinclair/typebox'
import { ListQuerystringSchema } from './documents.js'

/** The formats a definition's documents are exported in and imported from. */
export const TRANSFER_FORMATS = ['ndjson', 'json', 'csv'] as const
export type TransferFormat = (typeof TRANSFER_FORMATS)[number]

/** The media type each format is sent and read as. */
export const TRANSFER_MEDIA_TYPES: Readonly<Record<TransferFormat, string>> = {
  ndjson: 'application/x-ndjson',
  json: 'application/json',
  csv: 'text/csv',
}

/**
 * `GET {core}/export`: the list's `query`, `sort` and `fields` (JSON, URL-encoded), every matching document the
 * caller may see, in `format` (default `ndjson`).
 */
export const ExportQuerystringSchema = Type.Object({
  format: Type.Optional(Type.Union(TRANSFER_FORMATS.map((format) => Type.Literal(format)))),
  query: ListQuerystringSchema.properties.query,
  sort: ListQuerystringSchema.properties.sort,
  fields: ListQuerystringSchema.properties.fields,
})
export type ExportQuerystring = Static<typeof ExportQuerystringSchema>

const ExportedSchema = Type.Unsafe<unknown>({ type: 'string', format: 'binary' })

/** The export's answer: a file in the format asked for, streamed. */
export const ExportResponseSchema = {
  description:
    'The documents, streamed as an attachment: one JSON document a line (`ndjson`), a JSON array (`json`), ' +
    "or CSV with a header row of the definition's fields (`csv`)",
  content: Object.fromEntries(Object.values(TRANSFER_MEDIA_TYPES).map((type) => [type, { schema: ExportedSchema }])),
}

/**
 * `POST {core}/import`: the rows as NDJSON, a JSON array of objects or CSV with a header row, by `Content-Type`;
 * read by the handler as a stream (the route validates no body).
 */
export const ImportBodySchema = Type.Unsafe<unknown>({
  description:
    'The documents to create: NDJSON (one JSON object a line), a JSON array of objects, or CSV with a header row ' +
    "of field names (cells typed by the definition's fields)",
})

/** The most row errors an import's answer lists; `failed` counts them all. */
export const IMPORT_MAX_ERRORS = 100

export const ImportRowErrorSchema = Type.Object({
  /** 1-based position of the record in the file (a CSV's header row is not counted). */
  row: Type.Integer({ minimum: 1 }),
  code: Type.String(),
  description: Type.String(),
})
export type ImportRowError = Static<typeof ImportRowErrorSchema>

/** What an import did: documents created, rows refused, and why (the first `IMPORT_MAX_ERRORS`). */
export const ImportSummarySchema = Type.Object({
  created: Type.Integer({ minimum: 0 }),
  failed: Type.Integer({ minimum: 0 }),
  errors: Type.Array(ImportRowErrorSchema, { maxItems: IMPORT_MAX_ERRORS }),
})
export type ImportSummary = Static<typeof ImportSummarySchema>
