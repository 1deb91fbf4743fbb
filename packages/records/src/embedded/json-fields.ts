import { getPath } from '../sort-order.js'

const QUOTE = 34
const BACKSLASH = 92
const COMMA = 44
const COLON = 58
const OPEN_OBJECT = 123
const CLOSE_OBJECT = 125
const OPEN_ARRAY = 91
const CLOSE_ARRAY = 93

/** The text is not what this reader expects (`JSON.stringify`'s layout): decode it whole instead. */
const UNREADABLE = Symbol('unreadable')

/** The index just past the string opening at `start` (escaped quotes included in it). */
function stringEnd(json: string, start: number): number {
  let from = start + 1
  for (;;) {
    const quote = json.indexOf('"', from)
    if (quote < 0) return json.length
    let backslashes = 0
    while (json.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return quote + 1
    from = quote + 1
  }
}

/** The index just past the value starting at `start`. */
function valueEnd(json: string, start: number): number {
  const first = json.charCodeAt(start)
  if (first === QUOTE) return stringEnd(json, start)
  if (first === OPEN_OBJECT || first === OPEN_ARRAY) {
    let depth = 0
    for (let i = start; i < json.length; i++) {
      const code = json.charCodeAt(i)
      if (code === QUOTE) i = stringEnd(json, i) - 1
      else if (code === OPEN_OBJECT || code === OPEN_ARRAY) depth++
      else if ((code === CLOSE_OBJECT || code === CLOSE_ARRAY) && --depth === 0) return i + 1
    }
    return json.length
  }
  let i = start
  while (i < json.length) {
    const code = json.charCodeAt(i)
    if (code === COMMA || code === CLOSE_OBJECT || code === CLOSE_ARRAY) break
    i++
  }
  return i
}

/** The JSON value in `json` from `start` to `end`, read in place when it is a scalar. */
function valueAt(json: string, start: number, end: number): unknown {
  const first = json.charCodeAt(start)
  if (first === QUOTE) {
    const text = json.slice(start + 1, end - 1)
    return text.includes('\\') ? JSON.parse(json.slice(start, end)) : text
  }
  if (first === OPEN_OBJECT || first === OPEN_ARRAY) return JSON.parse(json.slice(start, end))
  const text = json.slice(start, end)
  if (text === 'true') return true
  if (text === 'false') return false
  if (text === 'null') return null
  const number = Number(text)
  return Number.isNaN(number) ? UNREADABLE : number
}

/** Whether `JSON.stringify` writes the field name as it is (nothing escaped), so its key text is the name. */
function plain(name: string): boolean {
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i)
    if (code < 0x20 || code === QUOTE || code === BACKSLASH || (code >= 0xd800 && code < 0xe000)) return false
  }
  return true
}

/** A top-level field of the record text, undefined when missing: its keys walked, passing over others' values. */
function topLevel(json: string, name: string): unknown {
  if (json.charCodeAt(0) !== OPEN_OBJECT) return UNREADABLE
  let i = 1
  if (json.charCodeAt(i) === CLOSE_OBJECT) return undefined
  for (;;) {
    if (json.charCodeAt(i) !== QUOTE) return UNREADABLE
    const keyEnd = stringEnd(json, i)
    if (json.charCodeAt(keyEnd) !== COLON) return UNREADABLE
    // A key of the name's length starting with it is the name (the name holds no escape).
    const matches = keyEnd - i - 2 === name.length && json.startsWith(name, i + 1)
    const end = valueEnd(json, keyEnd + 1)
    if (matches) return valueAt(json, keyEnd + 1, end)
    const next = json.charCodeAt(end)
    if (next === CLOSE_OBJECT) return undefined
    if (next !== COMMA) return UNREADABLE
    i = end + 1
  }
}

/**
 * The value at a dot path of a record given as its JSON text, as `getPath` reads it from the decoded record,
 * without decoding the record: the top-level field is found by skipping over the others, a scalar is read in
 * place, and only an object or array along the path is decoded (itself alone). A field name `JSON.stringify`
 * would escape, or a text not laid out as it writes, is read from the decoded record.
 */
export function pathInText(json: string, path: string): unknown {
  const dot = path.indexOf('.')
  const head = dot < 0 ? path : path.slice(0, dot)
  const value = plain(head) ? topLevel(json, head) : UNREADABLE
  if (value === UNREADABLE) return getPath(JSON.parse(json), path)
  return dot < 0 ? value : getPath(value, path.slice(dot + 1))
}
