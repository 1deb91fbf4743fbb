/**
 * The guest function that formats `console` arguments like Node does for strings and JSON values (on one line).
 * It is compiled in a run only when the run logs something other than strings.
 */
export const INSPECT = String.raw`(function () {
  'use strict'
  const { keys } = Object
  const isArray = Array.isArray
  const ident = /^[A-Za-z_$][\w$]*$/
  const quote = (s) => "'" + s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n') + "'"
  const inspect = (value, depth, seen) => {
    switch (typeof value) {
      case 'string': return depth === 0 ? value : quote(value)
      case 'bigint': return value + 'n'
      case 'symbol': return value.toString()
      case 'function': return '[Function: ' + (value.name || '(anonymous)') + ']'
      case 'object': break
      default: return Object.is(value, -0) ? '-0' : String(value)
    }
    if (value === null) return 'null'
    if (seen.includes(value)) return '[Circular]'
    if (value instanceof Error) {
      const head = String(value.name) + ': ' + String(value.message)
      return depth === 0 && value.stack ? head + '\n' + String(value.stack).trimEnd() : head
    }
    if (value instanceof Date) return value.toISOString()
    if (isArray(value)) {
      if (value.length === 0) return '[]'
      if (depth > 2) return '[Array]'
      const items = []
      for (let i = 0; i < value.length && i < 100; i++) items.push(inspect(value[i], depth + 1, [...seen, value]))
      if (value.length > 100) items.push('... ' + (value.length - 100) + ' more items')
      return '[ ' + items.join(', ') + ' ]'
    }
    const names = keys(value)
    if (names.length === 0) return '{}'
    if (depth > 2) return '[Object]'
    const entries = names.map((k) => (ident.test(k) ? k : quote(k)) + ': ' + inspect(value[k], depth + 1, [...seen, value]))
    return '{ ' + entries.join(', ') + ' }'
  }
  return (...args) => args.map((a) => inspect(a, 0, [])).join(' ')
})()`

/** The file name errors' stacks give the user's source. */
export const FILE_NAME = 'script.js'

/** The source is the body of an async function; the wrapper adds no line, so error lines are the user's lines. */
export const wrap = (source: string): string => `(async function () {${source}\n})()`

/** The line of the user's source an error's stack points at. */
export const lineOf = (stack: string): number | undefined => {
  const match = /script\.js:(\d+)/.exec(stack)
  return match ? Number(match[1]) : undefined
}
