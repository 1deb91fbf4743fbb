import { useState } from 'preact/hooks'
import type { FieldType } from './schema.js'

/** One condition of the filter builder, as kept in the address. */
export interface Condition {
  field: string
  op: keyof typeof OPERATORS
  value: string
}

const OPERATORS = {
  eq: 'is',
  ne: 'is not',
  gt: 'more than',
  gte: 'at least',
  lt: 'less than',
  lte: 'at most',
  contains: 'contains',
  exists: 'is set',
} as const

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The condition as the API's filter: the value typed after the field's declared type. */
export function toFilter(condition: Condition, type: FieldType | undefined): Record<string, unknown> {
  const { field, op, value } = condition
  if (op === 'exists') return { [field]: { $exists: true } }
  if (op === 'contains') return { [field]: { $regex: escapeRegex(value), $options: 'i' } }
  const typed = type === 'number' ? Number(value) : type === 'boolean' ? value === 'true' : value
  return { [field]: op === 'eq' ? typed : { [`$${op}`]: typed } }
}

export const describe = (condition: Condition) =>
  `${condition.field} ${OPERATORS[condition.op]}${condition.op === 'exists' ? '' : ` ${condition.value}`}`

/** Field, operator, value: a condition added to the list, beside the JSON query. */
export function FilterBuilder({ fields, onAdd }: { fields: string[]; onAdd: (condition: Condition) => void }) {
  const [field, setField] = useState('')
  const [op, setOp] = useState<Condition['op']>('eq')
  const [value, setValue] = useState('')
  const chosen = field || fields[0] || ''
  return (
    <div class="filter-builder" role="group" aria-label="Add a filter">
      <label>
        Filter field
        <select value={chosen} onChange={(e) => setField(e.currentTarget.value)}>
          {fields.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Operator
        <select value={op} onChange={(e) => setOp(e.currentTarget.value as Condition['op'])}>
          {Object.entries(OPERATORS).map(([key, words]) => (
            <option key={key} value={key}>
              {words}
            </option>
          ))}
        </select>
      </label>
      {op !== 'exists' && (
        <label>
          Value
          <input value={value} onInput={(e) => setValue(e.currentTarget.value)} />
        </label>
      )}
      <button
        type="button"
        disabled={!chosen}
        onClick={() => {
          onAdd({ field: chosen, op, value })
          setValue('')
        }}
      >
        Add filter
      </button>
    </div>
  )
}
