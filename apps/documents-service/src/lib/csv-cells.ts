import type { FieldType } from '@quire/contracts'

/**
 * Text a spreadsheet would run as a formula (OWASP "CSV injection": `=`, `+`, `-`, `@`, tab, CR), and the quote
 * that neutralises it; a text already starting with the quote gets one more, so that an import takes exactly one
 * away and a round trip gives back the text as it was.
 */
const NEUTRALISED = /^[=+\-@\t\r']/
const ESCAPED = /^'[=+\-@\t\r']/

/** A document's value as a CSV cell: text neutralised, numbers and booleans as written, the rest as JSON. */
export function csvCell(value: unknown): string {
  if (value === undefined || value === null) return ''
  if (typeof value === 'string') return NEUTRALISED.test(value) ? `'${value}` : value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return JSON.stringify(value)
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/
const BOOLEANS: Readonly<Record<string, boolean>> = {
  true: true,
  false: false,
  yes: true,
  no: false,
  1: true,
  0: false,
}
/** Fields kept as JSON whatever the definition says: `accessGroups` is a list. */
const JSON_COLUMNS = new Set(['accessGroups'])

/** Why a cell could not be read as its column's type. */
export class CellError extends Error {}

function json(text: string, type: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw new CellError(`"${text.slice(0, 40)}" is not valid JSON (the field is of type ${type})`)
  }
}

/**
 * A CSV cell as the value of `column`, typed by its declared `type` (undeclared: text); `undefined` for an empty
 * cell (the field is left out). Throws `CellError` when the text does not read as the type.
 */
export function fromCsvCell(column: string, text: string, type: FieldType | undefined): unknown {
  if (text === '') return undefined
  const plain = ESCAPED.test(text) ? text.slice(1) : text
  if (JSON_COLUMNS.has(column)) return json(plain, 'array')
  switch (type) {
    case 'number': {
      if (!NUMBER.test(plain.trim())) throw new CellError(`"${plain.slice(0, 40)}" is not a number`)
      return Number(plain)
    }
    case 'boolean': {
      const value = BOOLEANS[plain.trim().toLowerCase()]
      if (value === undefined) throw new CellError(`"${plain.slice(0, 40)}" is not true or false`)
      return value
    }
    case 'object':
    case 'array':
    case 'location':
    case 'attachment':
      return json(plain, type)
    default:
      return plain
  }
}
