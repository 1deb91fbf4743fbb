import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { ERROR_CODES } from './errors.js'

/** Any record id: new ones are 24-hex ObjectIds, lookups accept any non-empty id string. */
/** A display name or label: any text but control characters (NUL, escapes, line breaks) that garble logs and screens. */
export const PRINTABLE_PATTERN = '^[^\\u0000-\\u001f\\u007f-\\u009f]*$'

export const IdSchema = Type.String({ minLength: 1, maxLength: 256 })
export const ObjectIdSchema = Type.String({ pattern: '^[0-9a-f]{24}$' })
/** ISO 8601 UTC with milliseconds. */
export const TimestampSchema = Type.String({ format: 'date-time' })
/** Environment ids are readable slugs. */
export const ENVIRONMENT_ID_PATTERN = '^[a-z0-9][a-z0-9_-]{0,63}$'
export const EnvironmentIdSchema = Type.String({ pattern: ENVIRONMENT_ID_PATTERN })

export const ErrorBodySchema = Type.Object(
  {
    status: Type.Literal('error'),
    error: Type.Union(ERROR_CODES.map((code) => Type.Literal(code))),
    description: Type.String(),
    userDescription: Type.String(),
    message: Type.String(),
  },
  { $id: 'ErrorBody' },
)
export type ErrorBody = Static<typeof ErrorBodySchema>

export const PaginationSchema = Type.Object({
  hasPrevious: Type.Boolean(),
  hasNext: Type.Boolean(),
  type: Type.Literal('cursor'),
  next: Type.Optional(Type.String()),
  total: Type.Optional(Type.Integer({ minimum: 0 })),
})
export type Pagination = Static<typeof PaginationSchema>

/** `{status: 'ok', data}`. */
export const Ok = <T extends TSchema>(data: T) => Type.Object({ status: Type.Literal('ok'), data })
/** `{status: 'ok', data: [...], pagination}`. */
export const Page = <T extends TSchema>(item: T) =>
  Type.Object({ status: Type.Literal('ok'), data: Type.Array(item), pagination: PaginationSchema })

/** Page size as the list endpoints accept it. */
export const LimitSchema = Type.Integer({ minimum: 1, maximum: 800, default: 100 })

/** Headers of every `/api/v2` call that is scoped to an environment. */
export const EnvironmentHeadersSchema = Type.Object({
  'environment-id': Type.Optional(Type.String()),
})
