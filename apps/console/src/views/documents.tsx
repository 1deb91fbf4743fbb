import { useEffect, useState } from 'preact/hooks'
import { q, raw, type Page } from '../api.js'
import { Link, navigate } from '../router.js'
import { ErrorText, parseJson, useAction } from '../ui.js'

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

/** The API's list: `query`, `sort`, `fields` as typed, then `pagination.next` for each further page. */
export function Documents({ dd }: { dd: string }) {
  const core = `/api/v2/document-definitions/${q(dd)}/documents`
  const [query, setQuery] = useState('')
  const [sort, setSort] = useState('')
  const [fields, setFields] = useState('')
  const [limit, setLimit] = useState('20')
  const [page, setPage] = useState<Page<Doc> | null>(null)
  // Query strings of the pages before this one, for "Previous".
  const [trail, setTrail] = useState<string[]>([])
  const [shown, setShown] = useState('')
  const action = useAction()

  const load = (search: string, nextTrail: string[]) =>
    action.run(async () => {
      setPage(await raw<Page<Doc>>('GET', `${core}?${search}`))
      setShown(search)
      setTrail(nextTrail)
    })

  const firstPage = () => {
    const params = new URLSearchParams({ limit: limit || '20' })
    for (const [name, text] of [
      ['query', query],
      ['sort', sort],
      ['fields', fields],
    ] as const) {
      const value = parseJson(name, text)
      if (value !== undefined) params.set(name, JSON.stringify(value))
    }
    return params.toString()
  }
  const apply = (event?: Event) => {
    event?.preventDefault()
    try {
      load(firstPage(), [])
    } catch (err) {
      action.setError(err)
    }
  }
  useEffect(() => apply(), [dd])

  const rows = page?.data ?? []
  const columns = columnsOf(rows)
  return (
    <section>
      <p>
        <Link href="/definitions">← Definitions</Link> · <Link href={`/definitions/${q(dd)}`}>Edit definition</Link>
      </p>
      <h1>Documents of {dd}</h1>
      <form class="panel filters" onSubmit={apply}>
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
      <ErrorText error={action.error} />
      <div class="table-wrap">
        <table class="documents" aria-busy={action.busy}>
          <thead>
            <tr>
              {columns.map((name) => (
                <th key={name} scope="col">
                  {name}
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
          Page {trail.length + 1}
          {rows.length > 0 ? ` · ${rows.length} shown` : ''}
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
