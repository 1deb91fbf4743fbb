import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import type { Definition } from './definitions.js'

type Values = Record<string, unknown>
/** A field as the definition declares it. */
type Declared = NonNullable<Definition['fields']>[string]

/** `2030-01-02T03:04:05Z` as a `datetime-local` input shows it, in the browser's time zone. */
function toLocalInput(value: unknown): string {
  if (typeof value !== 'string' || !value) return ''
  const date = new Date(value)
  if (Number.isNaN(date.getTime())) return ''
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000)
  return local.toISOString().slice(0, 16)
}

/** Nested objects and lists: JSON in their own box, a syntax error beside it. */
function JsonField(props: { id: string; value: unknown; empty: string; onChange: (value: unknown) => void }) {
  const [draft, setDraft] = useState<string | null>(null)
  const [error, setError] = useState('')
  return (
    <>
      <textarea
        id={props.id}
        rows={3}
        spellcheck={false}
        value={draft ?? (props.value === undefined ? '' : JSON.stringify(props.value))}
        placeholder={props.empty}
        aria-invalid={Boolean(error)}
        onInput={(e) => {
          const text = e.currentTarget.value
          setDraft(text)
          try {
            props.onChange(text.trim() ? JSON.parse(text) : undefined)
            setError('')
          } catch (err) {
            setError((err as Error).message)
          }
        }}
        onBlur={() => !error && setDraft(null)}
      />
      {error && <span class="field-error">{error}</span>}
    </>
  )
}

function Input({
  name,
  spec,
  value,
  onChange,
}: {
  name: string
  spec: Declared
  value: unknown
  onChange: (v: unknown) => void
}) {
  const id = `field-${name}`
  switch (spec.type) {
    case 'number':
      return (
        <input
          id={id}
          type="number"
          step="any"
          value={typeof value === 'number' ? String(value) : ''}
          onInput={(e) => onChange(e.currentTarget.value === '' ? undefined : e.currentTarget.valueAsNumber)}
        />
      )
    case 'boolean':
      return (
        <input id={id} type="checkbox" checked={value === true} onChange={(e) => onChange(e.currentTarget.checked)} />
      )
    case 'date':
      return (
        <input
          id={id}
          type="datetime-local"
          value={toLocalInput(value)}
          onInput={(e) => onChange(e.currentTarget.value ? new Date(e.currentTarget.value).toISOString() : undefined)}
        />
      )
    case 'location': {
      const place = (value ?? {}) as { latitude?: number; longitude?: number; formattedAddress?: string }
      const set = (patch: Partial<typeof place>) => {
        const next = { ...place, ...patch }
        onChange(next.latitude === undefined && next.longitude === undefined ? undefined : next)
      }
      const coordinate = (key: 'latitude' | 'longitude', min: number, max: number) => (
        <label>
          {key === 'latitude' ? 'Latitude' : 'Longitude'}
          <input
            type="number"
            step="any"
            min={min}
            max={max}
            value={place[key] === undefined ? '' : String(place[key])}
            onInput={(e) => set({ [key]: e.currentTarget.value === '' ? undefined : e.currentTarget.valueAsNumber })}
          />
        </label>
      )
      return (
        <fieldset id={id} class="location">
          {coordinate('latitude', -90, 90)}
          {coordinate('longitude', -180, 180)}
          <label>
            Address
            <input
              value={place.formattedAddress ?? ''}
              onInput={(e) => set({ formattedAddress: e.currentTarget.value || undefined })}
            />
          </label>
        </fieldset>
      )
    }
    case 'object':
      return <JsonField id={id} value={value} empty="{}" onChange={onChange} />
    case 'array':
      return <JsonField id={id} value={value} empty="[]" onChange={onChange} />
    default:
      return (
        <input
          id={id}
          value={typeof value === 'string' ? value : ''}
          onInput={(e) => onChange(e.currentTarget.value === '' ? undefined : e.currentTarget.value)}
        />
      )
  }
}

/**
 * A form generated from the definition's declared fields: one input per type, the API's reason beside the field
 * it names. Undeclared fields are kept and edited in the JSON view.
 */
export function DocumentForm(props: {
  declared: [string, Declared][]
  value: Values
  onChange: (value: Values) => void
  errorField: string | null
  errorText: string
  /** An attachment field's own input: its files are stored by upload, not by saving the form. */
  attachment: (name: string) => ComponentChildren
}) {
  const set = (name: string, next: unknown) => {
    const copy = { ...props.value }
    if (next === undefined) delete copy[name]
    else copy[name] = next
    props.onChange(copy)
  }
  return (
    <ul class="form-fields">
      {props.declared.map(([name, spec]) => (
        <li key={name} data-field={name} class={props.errorField === name ? 'invalid' : ''}>
          {spec.type === 'attachment' ? (
            // Nothing to edit here: a label would name no input.
            <span class="label">{name}</span>
          ) : (
            <label for={`field-${name}`}>
              {name}
              {spec.required ? ' (required)' : ''}
            </label>
          )}
          {spec.type === 'attachment' ? (
            props.attachment(name)
          ) : (
            <Input name={name} spec={spec} value={props.value[name]} onChange={(next) => set(name, next)} />
          )}
          {props.errorField === name && (
            <span class="field-error" id={`error-${name}`} role="alert">
              {props.errorText}
            </span>
          )}
        </li>
      ))}
    </ul>
  )
}
