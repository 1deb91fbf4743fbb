import type { operations } from '@quire/client'
import { useState } from 'preact/hooks'

type DeclaredFields = NonNullable<
  NonNullable<operations['createDefinition']['requestBody']>['content']['application/json']['fields']
>
type DeclaredIndex = NonNullable<
  NonNullable<operations['createDefinition']['requestBody']>['content']['application/json']['indexes']
>[number]
export type FieldType = DeclaredFields[string]['type']

/** Every field type the API knows, in words: `satisfies` fails the build when the API gains or drops one. */
const TYPES = {
  string: 'Text',
  number: 'Number',
  boolean: 'Yes / no',
  date: 'Date and time',
  location: 'Location',
  object: 'Object (nested fields)',
  array: 'List',
  attachment: 'Files and images',
} satisfies Record<FieldType, string>

interface FieldRow {
  name: string
  type: FieldType
  required: boolean
}
interface IndexRow {
  keys: { field: string; direction: 1 | -1 }[]
  unique: boolean
}
/** The builder's state: fields in their order, indexes over them. The JSON view reads and writes the same. */
export interface Schema {
  fields: FieldRow[]
  indexes: IndexRow[]
}

export const toSchema = (
  fields: DeclaredFields | undefined,
  indexes: readonly DeclaredIndex[] | undefined,
): Schema => ({
  fields: Object.entries(fields ?? {}).map(([name, spec]) => ({
    name,
    type: spec.type,
    required: spec.required === true,
  })),
  indexes: (indexes ?? []).map((index) => ({
    keys: Object.entries(index.fields).map(([field, direction]) => ({ field, direction })),
    unique: index.unique === true,
  })),
})

/** What the API takes: `fields` as a map (a row without a name is left out), `indexes` as Mongo spells them. */
export function fromSchema(schema: Schema): { fields: DeclaredFields; indexes: DeclaredIndex[] } {
  const fields: DeclaredFields = {}
  for (const row of schema.fields) {
    if (row.name) fields[row.name] = row.required ? { type: row.type, required: true } : { type: row.type }
  }
  const indexes = schema.indexes
    .filter((index) => index.keys.length > 0)
    .map((index) => ({
      fields: Object.fromEntries(index.keys.map((key) => [key.field, key.direction])),
      ...(index.unique ? { unique: true } : {}),
    }))
  return { fields, indexes }
}

const move = <T,>(list: T[], from: number, to: number): T[] => {
  const next = [...list]
  const [item] = next.splice(from, 1)
  if (item !== undefined) next.splice(to, 0, item)
  return next
}

/** A JSON text box over part of the schema: a syntax error stays beside it, a valid text updates the schema. */
function JsonBox(props: { label: string; value: unknown; rows: number; onValid: (parsed: unknown) => void }) {
  const [draft, setDraft] = useState<string | null>(null)
  const [error, setError] = useState('')
  const id = `json-${props.label.split(' ')[0]!.toLowerCase()}`
  return (
    <label>
      {props.label}
      <textarea
        name={id}
        rows={props.rows}
        spellcheck={false}
        value={draft ?? JSON.stringify(props.value, null, 2)}
        aria-invalid={Boolean(error)}
        aria-describedby={error ? `${id}-error` : undefined}
        onInput={(e) => {
          const text = e.currentTarget.value
          setDraft(text)
          try {
            props.onValid(text.trim() ? JSON.parse(text) : undefined)
            setError('')
          } catch (err) {
            setError(err instanceof SyntaxError ? err.message : String(err))
          }
        }}
        // Reformatted from the schema once left, unless it still does not parse.
        onBlur={() => !error && setDraft(null)}
      />
      {error && (
        <span class="field-error" id={`${id}-error`} role="alert">
          {error}
        </span>
      )}
    </label>
  )
}

/**
 * Fields with a type picker (add, rename, reorder, remove) and indexes chosen from the fields; "Advanced: JSON"
 * shows the same state as the API's JSON and edits it.
 */
export function SchemaBuilder({ schema, onChange }: { schema: Schema; onChange: (schema: Schema) => void }) {
  const setField = (i: number, patch: Partial<FieldRow>) =>
    onChange({ ...schema, fields: schema.fields.map((row, j) => (j === i ? { ...row, ...patch } : row)) })
  const setIndex = (i: number, patch: Partial<IndexRow>) =>
    onChange({ ...schema, indexes: schema.indexes.map((row, j) => (j === i ? { ...row, ...patch } : row)) })
  const names = schema.fields.map((row) => row.name).filter(Boolean)
  const json = fromSchema(schema)

  return (
    <div class="schema">
      <fieldset>
        <legend>Fields</legend>
        {schema.fields.length === 0 && <p class="hint">No fields yet: documents may hold anything.</p>}
        <ol class="schema-fields">
          {schema.fields.map((row, i) => (
            <li key={i} data-field-row={i}>
              <label>
                Field name
                <input
                  value={row.name}
                  required
                  pattern="[A-Za-z][A-Za-z0-9_\-]{0,127}"
                  title="A letter, then letters, digits, _ or -"
                  onInput={(e) => setField(i, { name: e.currentTarget.value })}
                />
              </label>
              <label>
                Type
                <select value={row.type} onChange={(e) => setField(i, { type: e.currentTarget.value as FieldType })}>
                  {Object.entries(TYPES).map(([type, words]) => (
                    <option key={type} value={type}>
                      {words}
                    </option>
                  ))}
                </select>
              </label>
              <label class="check">
                <input
                  type="checkbox"
                  checked={row.required}
                  onChange={(e) => setField(i, { required: e.currentTarget.checked })}
                />
                Required
              </label>
              <span class="actions">
                <button
                  type="button"
                  aria-label={`Move ${row.name || 'field'} up`}
                  disabled={i === 0}
                  onClick={() => onChange({ ...schema, fields: move(schema.fields, i, i - 1) })}
                >
                  ↑
                </button>
                <button
                  type="button"
                  aria-label={`Move ${row.name || 'field'} down`}
                  disabled={i === schema.fields.length - 1}
                  onClick={() => onChange({ ...schema, fields: move(schema.fields, i, i + 1) })}
                >
                  ↓
                </button>
                <button
                  type="button"
                  class="danger"
                  aria-label={`Remove ${row.name || 'field'}`}
                  onClick={() => onChange({ ...schema, fields: schema.fields.filter((_, j) => j !== i) })}
                >
                  Remove
                </button>
              </span>
            </li>
          ))}
        </ol>
        <button
          type="button"
          onClick={() =>
            onChange({ ...schema, fields: [...schema.fields, { name: '', type: 'string', required: false }] })
          }
        >
          Add field
        </button>
      </fieldset>
      <fieldset>
        <legend>Indexes</legend>
        <p class="hint">Faster sorting and filtering on these fields; “unique” refuses two documents with one value.</p>
        <ol class="schema-indexes">
          {schema.indexes.map((index, i) => (
            <li key={i}>
              {index.keys.map((key, k) => (
                <span key={k} class="index-key">
                  <label>
                    Index {i + 1} field {k + 1}
                    <select
                      value={key.field}
                      onChange={(e) =>
                        setIndex(i, {
                          keys: index.keys.map((old, m) => (m === k ? { ...old, field: e.currentTarget.value } : old)),
                        })
                      }
                    >
                      {!names.includes(key.field) && <option value={key.field}>{key.field}</option>}
                      {names.map((name) => (
                        <option key={name} value={name}>
                          {name}
                        </option>
                      ))}
                    </select>
                  </label>
                  <label>
                    Order
                    <select
                      value={String(key.direction)}
                      onChange={(e) =>
                        setIndex(i, {
                          keys: index.keys.map((old, m) =>
                            m === k ? { ...old, direction: e.currentTarget.value === '-1' ? -1 : 1 } : old,
                          ),
                        })
                      }
                    >
                      <option value="1">ascending</option>
                      <option value="-1">descending</option>
                    </select>
                  </label>
                </span>
              ))}
              <label class="check">
                <input
                  type="checkbox"
                  checked={index.unique}
                  onChange={(e) => setIndex(i, { unique: e.currentTarget.checked })}
                />
                Unique
              </label>
              <span class="actions">
                <button
                  type="button"
                  disabled={names.length === 0}
                  onClick={() => setIndex(i, { keys: [...index.keys, { field: names[0] ?? '', direction: 1 }] })}
                >
                  Add a field to index {i + 1}
                </button>
                <button
                  type="button"
                  class="danger"
                  onClick={() => onChange({ ...schema, indexes: schema.indexes.filter((_, j) => j !== i) })}
                >
                  Remove index {i + 1}
                </button>
              </span>
            </li>
          ))}
        </ol>
        <button
          type="button"
          disabled={names.length === 0}
          onClick={() =>
            onChange({
              ...schema,
              indexes: [...schema.indexes, { keys: [{ field: names[0] ?? '', direction: 1 }], unique: false }],
            })
          }
        >
          Add index
        </button>
      </fieldset>
      <details>
        <summary>Advanced: JSON</summary>
        <JsonBox
          label="Fields (JSON, optional)"
          rows={8}
          value={json.fields}
          onValid={(parsed) =>
            onChange({ ...schema, fields: toSchema((parsed ?? {}) as DeclaredFields, undefined).fields })
          }
        />
        <JsonBox
          label="Indexes (JSON, optional)"
          rows={5}
          value={json.indexes}
          onValid={(parsed) =>
            onChange({ ...schema, indexes: toSchema(undefined, (parsed ?? []) as DeclaredIndex[]).indexes })
          }
        />
      </details>
    </div>
  )
}
