import { Type, type TObject, type TSchema } from '@sinclair/typebox'
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
import type { FieldSpec, FieldType } from '@quire/contracts'
import { fail } from '@quire/service-kit'
import type { DefinitionRecord } from '../collections.js'

const ISO_DATE = '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:?\\d{2})?)?$'

const FIELD_SCHEMAS: Record<FieldType, () => TSchema> = {
  string: () => Type.String(),
  number: () => Type.Number(),
  boolean: () => Type.Boolean(),
  date: () => Type.String({ pattern: ISO_DATE }),
  object: () => Type.Object({}),
  array: () => Type.Array(Type.Unknown()),
  attachment: () => Type.Array(Type.Object({ _id: Type.String(), _fileName: Type.String() })),
  location: () =>
    Type.Object({ longitude: Type.Number(), latitude: Type.Number(), formattedAddress: Type.Optional(Type.String()) }),
}

function compile(fields: Record<string, FieldSpec>): TypeCheck<TObject> {
  const properties: Record<string, TSchema> = {}
  for (const [name, spec] of Object.entries(fields)) {
    const schema = FIELD_SCHEMAS[spec.type]()
    properties[name] = spec.required ? schema : Type.Optional(schema)
  }
  // Undeclared fields stay allowed: `fields` types what it names, it does not close the document.
  return TypeCompiler.Compile(Type.Object(properties))
}

const MAX_CACHED = 10_000
/** Definition `_id` → its validator and the definition `_hash` it was compiled from. */
const cache = new Map<string, { hash: string; check: TypeCheck<TObject> }>()

/**
 * Throws 400 `validation_error` naming the first bad field when `document` does not fit the definition's
 * typed `fields`. The compiled check is cached per definition and rebuilt when the definition changes.
 */
export function validateFields(definition: DefinitionRecord, document: Record<string, unknown>): void {
  if (!definition.fields) return
  let entry = cache.get(definition._id)
  if (entry?.hash !== definition._hash) {
    if (cache.size >= MAX_CACHED) cache.clear()
    entry = { hash: definition._hash, check: compile(definition.fields) }
    cache.set(definition._id, entry)
  }
  if (entry.check.Check(document)) return
  const error = entry.check.Errors(document).First()
  throw fail('validation_error', `body${error?.path ?? ''}: ${error?.message ?? 'does not fit the definition'}`)
}
