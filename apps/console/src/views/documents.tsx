import { useEffect, useRef, useState } from 'preact/hooks'
import { dataOf, q, quire, raw, type Page } from '../api.js'
import { useChanges, useCoalesced } from '../live.js'
import { Link, navigate } from '../router.js'
import { ErrorText, parseJson, Title, useAction, useLoad } from '../ui.js'
import { describe, FilterBuilder, toFilter, type Condition } from './filters.js'
import { transferLink } from './transfer.js'

export type Doc = Record<string, unknown> & { _id: string; externalId?: string }

const SHOWN_SYSTEM = ['_id', 'externalId']
/** The columns: `_id`, `externalId`, then every other top-level field the page holds (system fields left out). */
function columnsOf(rows: Doc[]): string[] {
  const names = new Set<string>()
  for (const row of rows) {
    for (const key of Object.keys(row)) if (!key.startsWith('_') && key !== 'externalId') names.add(key)
  }
  return [...SHOWN_SYSTEM, ...names]
}

function cell(value: unknown): string {
  if (value === undefined) return ''
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  return text.length > 80 ? `${text.slice(0, 79)}…` : text
}

/** The sort box's JSON, when it is a plain `{field: 1 | -1}`; else nothing is marked. */
function parseSort(text: string): Record<string, number> | null {
  try {
    const value: unknown = JSON.parse(text)
    return value && typeof value === 'object' ? (value as Record<string, number>) : null
  } catch {
    return null
  }
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The search box's filter: the words, case-insensitive, in any of the text fields. */
const searchFilter = (text: string, fields: string[]) => ({
  $or: fields.map((field) => ({ [field]: { $regex: escapeRegex(text), $options: 'i' } })),
})

/** The API's list: a search box over the text fields, `query`, `sort`, `fields` as typed, then `pagination.next` for each further page. */
export function Documents({ dd }: { dd: string }) {
  const core = `/api/v2/document-definitions/${q(dd)}/documents`
  const definition = useLoad(
    () => dataOf(quire.GET('/api/v2/document-definitions/{ddId}', { params: { path: { ddId: dd } } })),
    [dd],
  )
  // The boxes start from the address, so a reload or a shared link shows the same list.
  const [initial] = useState(() => new URLSearchParams(location.search))
  const [search, setSearch] = useState(initial.get('search') ?? '')
  const [query, setQuery] = useState(initial.get('query') ?? '')
  const [sort, setSort] = useState(initial.get('sort') ?? '')
  const [fields, setFields] = useState(initial.get('fields') ?? '')
  const [limit, setLimit] = useState(initial.get('limit') ?? '20')
  const [hidden, setHidden] = useState<string[]>(() => initial.get('hide')?.split(',').filter(Boolean) ?? [])
  const [conditions, setConditions] = useState<Condition[]>(() => {
    try {
      return JSON.parse(initial.get('filters') ?? '[]') as Condition[]
    } catch {
      return []
    }
  })
  const [page, setPage] = useState<Page<Doc> | null>(null)
  // Query strings of the pages before this one, for "Previous".
  const [trail, setTrail] = useState<string[]>([])
  const [shown, setShown] = useState('')
  // Counted with the first page only (`count=true`): the next pages list the same filter, so the total holds.
  const [total, setTotal] = useState<number | null>(null)
  const action = useAction()

  // The last load started, the one shown: a reload on a change may overtake an earlier load.
  const latestLoad = useRef<{ search: string; trail: string[] } | null>(null)
  const load = (search: string, nextTrail: string[]) =>
    action.run(async () => {
      const mine = { search, trail: nextTrail }
      latestLoad.current = mine
      // `raw`: the search is built as text and `pagination.next` comes back as a ready query string.
      const answer = await raw<Page<Doc>>(`${core}?${search}`)
      if (latestLoad.current !== mine) return
      setPage(answer)
      if (typeof answer.pagination?.total === 'number') setTotal(answer.pagination.total)
      setShown(search)
      setTrail(nextTrail)
    })

  const rows = page?.data ?? []
  const available = columnsOf(rows)
  const columns = available.filter((name) => name === '_id' || !hidden.includes(name))
  /** The address keeps what is shown (`replaceState`): a reload or a shared link shows the same. */
  const keepInAddress = (boxes: Record<string, string>) => {
    const params = new URLSearchParams(location.search)
    for (const [name, value] of Object.entries(boxes)) {
      if (value) params.set(name, value)
      else params.delete(name)
    }
    const kept = params.toString()
    history.replaceState(null, '', location.pathname + (kept ? `?${kept}` : ''))
  }
  const toggleColumn = (name: string, shown: boolean) => {
    const next = shown ? hidden.filter((column) => column !== name) : [...hidden, name]
    setHidden(next)
    keepInAddress({ hide: next.join(',') })
  }
  // Declared text fields; without declarations, the text columns of the page shown.
  const textFields = definition.value?.fields
    ? Object.entries(definition.value.fields)
        .filter(([, spec]) => spec.type === 'string')
        .map(([name]) => name)
    : available.filter((name) => name === 'externalId' || rows.some((row) => typeof row[name] === 'string'))

  const declaredType = (field: string) => definition.value?.fields?.[field]?.type
  const firstPage = (sortText: string, list: Condition[]) => {
    const params = new URLSearchParams({ limit: limit || '20', count: 'true' })
    const typed = parseJson('query', query)
    const words = search.trim()
    const parts = [
      ...(typed === undefined ? [] : [typed]),
      ...(words && textFields.length > 0 ? [searchFilter(words, textFields)] : []),
      ...list.map((condition) => toFilter(condition, declaredType(condition.field))),
    ]
    const filter = parts.length === 0 ? undefined : parts.length === 1 ? parts[0] : { $and: parts }
    if (filter !== undefined) params.set('query', JSON.stringify(filter))
    for (const [name, text] of [
      ['sort', sortText],
      ['fields', fields],
    ] as const) {
      const value = parseJson(name, text)
      if (value !== undefined) params.set(name, JSON.stringify(value))
    }
    return params.toString()
  }
  const apply = (event?: Event, sortText = sort, list = conditions) => {
    event?.preventDefault()
    try {
      load(firstPage(sortText, list), [])
      const boxes = {
        search,
        query,
        filters: list.length ? JSON.stringify(list) : '',
        sort: sortText,
        fields,
        limit: limit === '20' ? '' : limit,
      }
      keepInAddress(boxes)
    } catch (err) {
      action.setError(err)
    }
  }
  /** A column header's click: ascending, then descending, by that column alone. */
  const sortBy = (column: string) => {
    const current = parseSort(sort)
    const next = JSON.stringify({ [column]: current?.[column] === 1 ? -1 : 1 })
    setSort(next)
    apply(undefined, next)
  }
  const sorted = parseSort(sort)
  // Live: a change anywhere in the definition reloads the page shown, as it is (same filter, same page).
  const reloadSoon = useCoalesced(() => {
    if (latestLoad.current) load(latestLoad.current.search, latestLoad.current.trail)
  })
  const live = useChanges(dd, reloadSoon)
  // The first load waits for the definition: a search from the address needs its text fields.
  useEffect(() => {
    if (definition.value || definition.error) apply()
  }, [dd, definition.value, definition.error])

  return (
    <section>
      <p>
        <Link href="/definitions">← Definitions</Link> · <Link href={`/definitions/${q(dd)}`}>Edit definition</Link> ·{' '}
        <Link href={transferLink(dd, shown)}>Import and export</Link>
      </p>
      <Title text={`Documents of ${dd}`} />
      <form class="panel filters" onSubmit={apply}>
        <label>
          Search
          <input
            type="search"
            name="search"
            placeholder={textFields.length ? `Words in ${textFields.join(', ')}` : 'No text fields'}
            value={search}
            onInput={(e) => setSearch(e.currentTarget.value)}
          />
        </label>
        <label>
          Query (JSON)
          <input
            name="query"
            placeholder='{"price": {"$gt": 10}}'
            value={query}
            onInput={(e) => setQuery(e.currentTarget.value)}
          />
        </label>
        <label>
          Sort (JSON)
          <input name="sort" placeholder='{"title": 1}' value={sort} onInput={(e) => setSort(e.currentTarget.value)} />
        </label>
        <label>
          Fields (JSON)
          <input
            name="fields"
            placeholder='{"title": 1}'
            value={fields}
            onInput={(e) => setFields(e.currentTarget.value)}
          />
        </label>
        <label class="narrow">
          Per page
          <input
            name="limit"
            type="number"
            min={1}
            max={800}
            value={limit}
            onInput={(e) => setLimit(e.currentTarget.value)}
          />
        </label>
        <button type="submit">Apply</button>
        <button type="button" onClick={() => navigate(`/definitions/${q(dd)}/documents/new`)}>
          New document
        </button>
      </form>
      <div class="panel">
        <FilterBuilder
          fields={[
            ...(definition.value?.fields ? Object.keys(definition.value.fields) : available.slice(1)),
            ...(definition.value?.fields ? ['externalId'] : []),
          ]}
          onAdd={(condition) => {
            const next = [...conditions, condition]
            setConditions(next)
            apply(undefined, sort, next)
          }}
        />
        {conditions.length > 0 && (
          <ul class="conditions" aria-label="Filters">
            {conditions.map((condition, i) => (
              <li key={i}>
                {describe(condition)}{' '}
                <button
                  type="button"
                  aria-label={`Remove filter ${describe(condition)}`}
                  onClick={() => {
                    const next = conditions.filter((_, j) => j !== i)
                    setConditions(next)
                    apply(undefined, sort, next)
                  }}
                >
                  ×
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
      <details class="columns">
        <summary>Columns</summary>
        <fieldset>
          <legend>Columns shown</legend>
          {available.slice(1).map((name) => (
            <label key={name} class="check">
              <input
                type="checkbox"
                checked={!hidden.includes(name)}
                onChange={(e) => toggleColumn(name, e.currentTarget.checked)}
              />
              {name}
            </label>
          ))}
        </fieldset>
      </details>
      <ErrorText error={action.error} />
      <div class="table-wrap">
        <table class="documents" aria-busy={action.busy}>
          <thead>
            <tr>
              {columns.map((name) => (
                <th
                  key={name}
                  scope="col"
                  aria-sort={sorted?.[name] === 1 ? 'ascending' : sorted?.[name] === -1 ? 'descending' : undefined}
                >
                  <button type="button" class="sort" onClick={() => sortBy(name)}>
                    {name}
                    {sorted?.[name] === 1 ? ' ▲' : sorted?.[name] === -1 ? ' ▼' : ''}
                  </button>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row._id}>
                {columns.map((name) =>
                  name === '_id' ? (
                    <th key={name} scope="row">
                      <Link href={`/definitions/${q(dd)}/documents/${q(row._id)}`}>{row._id}</Link>
                    </th>
                  ) : (
                    <td key={name}>{cell(row[name])}</td>
                  ),
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {page && rows.length === 0 && <p>No documents match.</p>}
      <nav class="pager" aria-label="Pages">
        <button
          type="button"
          disabled={trail.length === 0}
          onClick={() => load(trail[trail.length - 1] ?? '', trail.slice(0, -1))}
        >
          Previous page
        </button>
        <span>
          <span class="live" data-testid="live" title="Changes made elsewhere show here as they happen">
            {live ? 'Live' : 'Not live'}
          </span>{' '}
          Page {trail.length + 1}
          {rows.length > 0 ? ` · ${rows.length} shown` : ''}
          {total !== null && (
            <>
              {' · '}
              <span data-testid="total">{total === 1 ? '1 document' : `${total} documents`}</span> in all
            </>
          )}
        </span>
        <button
          type="button"
          disabled={!page?.pagination?.next}
          onClick={() => load(page?.pagination?.next ?? '', [...trail, shown])}
        >
          Next page
        </button>
      </nav>
    </section>
  )
}
