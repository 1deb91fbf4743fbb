/**
 * What runs inside QuickJS before the user's source: it installs `REST`, `console`, `refuse` and the globals, and
 * answers the function that settles a run. Everything it needs from the guest's built-ins is taken before user code
 * runs, so a script that replaces `JSON` or `Promise.prototype.then` only fools itself. Host functions take and
 * give strings (JSON), so the host never evaluates anything the guest built.
 */
export const PREAMBLE = String.raw`(function (hostRest, hostLog, hostRefuse, hostDone, hostFail, globalsJson) {
  'use strict'
  const { parse, stringify } = JSON
  const { defineProperty, keys } = Object
  const then = Promise.prototype.then
  const call = Function.prototype.call.bind(Function.prototype.call)
  const isArray = Array.isArray
  const ident = /^[A-Za-z_$][\w$]*$/

  const globals = parse(globalsJson)
  for (const name of keys(globals)) defineProperty(globalThis, name, { value: globals[name], enumerable: true })

  // Like Node's console for strings and JSON values, on one line.
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
    if (value instanceof Error) return String(value.name) + ': ' + String(value.message) + (depth === 0 && value.stack ? '\n' + value.stack.trimEnd() : '')
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
  const logger = (level) => function (...args) {
    hostLog(level, args.map((a) => inspect(a, 0, [])).join(' '))
  }
  const console = { log: logger('log'), info: logger('info'), warn: logger('warn'), error: logger('error') }
  defineProperty(globalThis, 'console', { value: Object.freeze(console), enumerable: false })

  const REST = {
    lastStatus: undefined,
    lastHeaders: undefined,
    call(endpoint, method = 'GET', headers = {}, body = undefined) {
      const sent = call(then, hostRest(String(endpoint), String(method), stringify(headers ?? {}), body === undefined ? undefined : stringify(body)), (json) => {
        const answer = parse(json)
        REST.lastStatus = answer.status
        REST.lastHeaders = answer.headers
        return answer.body
      })
      return sent
    },
  }
  defineProperty(globalThis, 'REST', { value: REST, enumerable: false })
  defineProperty(globalThis, 'refuse', { value: function refuse(message, code) { hostRefuse(message, code) }, enumerable: false })

  const describe = (error) => {
    try {
      if (error instanceof Error) return [String(error.name) + ': ' + String(error.message), String(error.stack ?? '')]
      return ['Uncaught ' + inspect(error, 1, []), '']
    } catch {
      return ['Uncaught exception', '']
    }
  }
  return function settle(promise) {
    call(then, promise, (value) => {
      let json
      try {
        json = stringify(value)
      } catch (error) {
        hostFail('The result is not JSON: ' + describe(error)[0], '')
        return
      }
      hostDone(json)
    }, (error) => {
      const [message, stack] = describe(error)
      hostFail(message, stack)
    })
  }
})`

/** The file name errors' stacks give the user's source. */
export const FILE_NAME = 'script.js'

/** The source is the body of an async function; the wrapper adds no line, so error lines are the user's lines. */
export const wrap = (source: string): string => `(async function () {${source}\n})()`

/** The line of the user's source an error's stack points at. */
export const lineOf = (stack: string): number | undefined => {
  const match = /script\.js:(\d+)/.exec(stack)
  return match ? Number(match[1]) : undefined
}
