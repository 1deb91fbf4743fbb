import { useState } from 'preact/hooks'
import type { operations } from '@quire/client'
import { ok, q, quire } from '../api.js'
import { Link } from '../router.js'
import { ErrorText, Notice, parseJson, Title, useAction } from '../ui.js'

type Format = 'csv' | 'json' | 'ndjson'
const FORMATS: { format: Format; label: string; type: string }[] = [
  { format: 'csv', label: 'CSV', type: 'text/csv' },
  { format: 'json', label: 'JSON', type: 'application/json' },
  { format: 'ndjson', label: 'NDJSON', type: 'application/x-ndjson' },
]
/** The list parameters an export takes, carried over from the documents page. */
const FILTERS = ['query', 'sort', 'fields'] as const

/** What an import answers: the first row errors only; `failed` counts them all. */
type ImportSummary = operations['importDocuments']['responses'][200]['content']['application/json']['data']

/** This page's address with the documents list's filter (`query`, `sort`, `fields` of its last query string). */
export function transferLink(dd: string, listQuery: string): string {
  const from = new URLSearchParams(listQuery)
  const kept = new URLSearchParams()
  for (const name of FILTERS) {
    const value = from.get(name)
    if (value) kept.set(name, value)
  }
  const search = kept.toString()
  return `/definitions/${q(dd)}/transfer${search ? `?${search}` : ''}`
}

/** The import's format, by the file's extension or type. */
function formatOf(file: File): Format | undefined {
  const extension = file.name.toLowerCase().split('.').pop()
  if (extension === 'ndjson' || extension === 'jsonl') return 'ndjson'
  return FORMATS.find(({ format, type }) => extension === format || file.type === type)?.format
}

/** The bearer token rides in a header, so a plain link cannot download: fetch the file and hand it over. */
function save(blob: Blob, name: string) {
  const href = URL.createObjectURL(blob)
  const link = document.createElement('a')
  link.href = href
  link.download = name
  link.click()
  setTimeout(() => URL.revokeObjectURL(href), 10_000)
}

/** Export a definition's documents (the list's filter) as CSV, JSON or NDJSON; import a file and see what it did. */
export function Transfer({ dd }: { dd: string }) {
  const [initial] = useState(() => new URLSearchParams(location.search))
  const [filters, setFilters] = useState(() =>
    Object.fromEntries(FILTERS.map((name) => [name, initial.get(name) ?? ''])),
  )
  const [file, setFile] = useState<File | null>(null)
  const [summary, setSummary] = useState<ImportSummary | null>(null)
  const exporting = useAction()
  const importing = useAction()

  // Through the typed client, so a 401 gets the same silent renewal and single retry as every other call.
  const exportAs = (format: Format) =>
    exporting.run(async () => {
      const query: Partial<Record<(typeof FILTERS)[number], string>> = {}
      for (const name of FILTERS) {
        const value = parseJson(name, filters[name] ?? '')
        if (value !== undefined) query[name] = JSON.stringify(value)
      }
      const blob = await ok(
        quire.GET('/api/v2/document-definitions/{ddId}/documents/export', {
          params: { path: { ddId: dd }, query: { format, ...query } },
          parseAs: 'blob',
        }),
      )
      save(blob, `${dd}.${format}`)
    })

  const importFile = (event: Event) => {
    event.preventDefault()
    importing.run(async () => {
      setSummary(null)
      if (!file) throw new Error('Choose a file to import first')
      const format = formatOf(file)
      const type = FORMATS.find((known) => known.format === format)?.type
      if (!type) throw new Error('The file must be .csv, .json or .ndjson')
      const answer = await ok(
        quire.POST('/api/v2/document-definitions/{ddId}/documents/import', {
          params: { path: { ddId: dd } },
          headers: { 'content-type': type },
          body: file,
          // The file goes as it is, streamed from disk, in its format's type.
          bodySerializer: (body) => body as File,
        }),
      )
      setSummary(answer.data)
    })
  }

  return (
    <section>
      <p>
        <Link href={`/definitions/${q(dd)}/documents`}>← Documents of {dd}</Link>
      </p>
      <Title text={`Import and export: ${dd}`} />
      <form class="panel filters" aria-label="Export" onSubmit={(event) => event.preventDefault()}>
        <h2>Export</h2>
        {FILTERS.map((name) => (
          <label key={name}>
            {`${name[0]?.toUpperCase()}${name.slice(1)} (JSON)`}
            <input
              name={name}
              value={filters[name]}
              onInput={(event) => setFilters({ ...filters, [name]: event.currentTarget.value })}
            />
          </label>
        ))}
        {FORMATS.map(({ format, label }) => (
          <button key={format} type="button" disabled={exporting.busy} onClick={() => exportAs(format)}>
            Export {label}
          </button>
        ))}
      </form>
      <ErrorText error={exporting.error} />
      <form class="panel" aria-label="Import" onSubmit={importFile}>
        <h2>Import</h2>
        <p>
          One document per record: CSV with a header row of field names, a JSON array of objects, or NDJSON. Records
          that cannot be documents are listed below; the others are created.
        </p>
        <label>
          File to import
          <input
            type="file"
            name="file"
            accept=".csv,.json,.ndjson,.jsonl,text/csv,application/json,application/x-ndjson"
            onChange={(event) => setFile(event.currentTarget.files?.[0] ?? null)}
          />
        </label>
        <button type="submit" disabled={importing.busy}>
          Import
        </button>
      </form>
      <ErrorText error={importing.error} />
      {summary && (
        <Notice>
          {summary.created} created, {summary.failed} failed
        </Notice>
      )}
      {summary && summary.errors.length > 0 && (
        <div class="table-wrap">
          <table class="documents" aria-label="Refused records">
            <thead>
              <tr>
                <th scope="col">Row</th>
                <th scope="col">Code</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {summary.errors.map((error) => (
                <tr key={error.row}>
                  <th scope="row">{error.row}</th>
                  <td>{error.code}</td>
                  <td>{error.description}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {summary.failed > summary.errors.length && (
            <p>and {summary.failed - summary.errors.length} more not listed</p>
          )}
        </div>
      )}
    </section>
  )
}
