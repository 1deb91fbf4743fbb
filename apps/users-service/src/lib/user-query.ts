import type { UserListQuery } from '@quire/contracts'
import { checkFilter, InvalidQueryError, type Filter } from '@quire/records'
import { fail } from '@quire/service-kit'

/** Fields a client query may never touch: secrets, and what would tell about other environments. */
const HIDDEN_FIELDS = new Set(['authentication', 'environmentIds', 'activeEnvironmentIds', 'loginKeys'])
const LOGICAL_OPERATORS = new Set(['$and', '$or', '$nor'])
/** Always left out of user lists; `pagination.next` carries it, as the spec's example shows. */
const ALWAYS_EXCLUDED = 'authentication'

function parseJson(name: string, raw: string): unknown {
  try {
    return JSON.parse(raw)
  } catch {
    throw fail('invalid_query', `${name} is not valid JSON`)
  }
}

/** A field path the caller may filter on: nothing hidden, and only its own environment's entry. */
function readable(path: string, environmentId: string): boolean {
  const [top, second, third] = path.split('.')
  if (top === undefined || HIDDEN_FIELDS.has(top)) return false
  if (top !== 'profile') return true
  if (second === undefined) return false
  return second !== 'environments' || third === environmentId
}

function checkFields(node: unknown, environmentId: string): void {
  if (Array.isArray(node)) {
    for (const item of node) checkFields(item, environmentId)
    return
  }
  if (node === null || typeof node !== 'object') return
  for (const [key, value] of Object.entries(node)) {
    if (LOGICAL_OPERATORS.has(key)) checkFields(value, environmentId)
    else if (!key.startsWith('$') && !readable(key, environmentId)) {
      throw fail('invalid_query', `query: the field ${key} cannot be queried`)
    }
  }
}

/** The client's `query`, checked for allowed operators (no operator injection) and readable fields. */
export function parseUserQuery(raw: string | undefined, environmentId: string): Filter {
  if (raw === undefined) return {}
  let filter: Filter
  try {
    filter = checkFilter(parseJson('query', raw))
  } catch (err) {
    if (err instanceof InvalidQueryError) throw fail('invalid_query', `query: ${err.message}`)
    throw err
  }
  checkFields(filter, environmentId)
  return filter
}

/** `exclude`: a JSON array of top-level field names; `authentication` is always among them. */
export function parseExclude(raw: string | undefined): string[] {
  const value = raw === undefined ? [] : parseJson('exclude', raw)
  if (
    !Array.isArray(value) ||
    !value.every((field) => typeof field === 'string' && /^[A-Za-z_][\w]{0,63}$/.test(field))
  ) {
    throw fail('invalid_query', 'exclude must be a JSON array of top-level field names')
  }
  if (value.includes('_id')) throw fail('invalid_query', 'exclude cannot leave out _id')
  return [...new Set([ALWAYS_EXCLUDED, ...(value as string[])])]
}

/** The ready query string of the next page, as the spec shows it: `limit`, `exclude`, `after` (and `query`). */
export function nextPage({ limit, query }: UserListQuery, exclude: string[], after: string): string {
  const next = new URLSearchParams({ limit: String(limit), exclude: JSON.stringify(exclude), after })
  if (query !== undefined) next.set('query', query)
  // URLSearchParams writes spaces as `+`; the spec's example is plain percent-encoding.
  return next.toString().replaceAll('+', '%20')
}
