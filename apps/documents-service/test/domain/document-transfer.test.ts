import { PassThrough } from 'node:stream'
import t from 'tap'
import type { Scope } from '@quire/auth'
import type { Pagination } from '@quire/contracts'
import type { RecordText } from '@quire/records'
import type { DefinitionRecord } from '../../src/collections.js'
import { createDocumentTransfer } from '../../src/domain/document-transfer.js'
import type { ListQuery } from '../../src/lib/list-query.js'
import { localCounts } from '@quire/service-kit'

const scope: Scope = {
  userId: 'u1',
  via: 'access-token',
  superAdministrator: false,
  actionDepth: 0,
  environmentId: 'env_a',
  administrator: true,
  groups: [],
}
const definitionOf = (environmentId: string) =>
  ({ _id: 'd1', _environmentId: environmentId, name: 'books', _hash: 'h' }) as unknown as DefinitionRecord

/** Three pages of one document each; `reads` records the `after` of each page asked for. */
function transferWith(t: { testdir(): string }, perEnvironment: number) {
  const reads: (string | undefined)[] = []
  const documents = {
    async list(_scope: Scope, _definition: DefinitionRecord, query: ListQuery) {
      reads.push(query.after)
      const index = query.after === undefined ? 0 : Number(query.after.slice(1)) + 1
      const items: RecordText[] = [{ _id: `d${index}`, json: JSON.stringify({ _id: `d${index}`, title: `t${index}` }) }]
      const pagination: Pagination = { hasPrevious: index > 0, hasNext: index < 2, type: 'cursor' }
      if (index < 2) pagination.next = `limit=200&after=d${index}`
      return { items, pagination }
    },
    async bulk() {
      return { results: [], replayed: false }
    },
  }
  const limits = { bodyLimit: 1024, maxRows: 10, perEnvironment, queueLimit: 8 }
  const transfer = createDocumentTransfer({
    documents,
    spoolDir: t.testdir(),
    limits,
    counts: localCounts(),
    clock: Date.now,
  })
  return { transfer, reads }
}

t.test('an export reads a page when the client takes it, not before', async (t) => {
  const { transfer, reads } = transferWith(t, 1)
  const stream = await transfer.exportDocuments(scope, definitionOf('env_a'), {}, 'ndjson')
  t.same(reads, [undefined], 'only the first page before anything is sent')
  let text = ''
  for await (const chunk of stream) text += String(chunk)
  t.same(reads, [undefined, 'd0', 'd1'], 'each next page after the last one sent')
  t.same(
    text
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { title: string }).title),
    ['t0', 't1', 't2'],
  )
})

t.test('an environment has a bounded number of imports and exports in progress; others are not held up', async (t) => {
  const { transfer } = transferWith(t, 1)
  const held = await transfer.exportDocuments(scope, definitionOf('env_a'), {}, 'csv')
  await t.rejects(transfer.exportDocuments(scope, definitionOf('env_a'), {}, 'json'), {
    code: 'rate_limited',
    statusCode: 429,
  })
  await t.rejects(transfer.importDocuments(scope, definitionOf('env_a'), new PassThrough(), 'ndjson'), {
    code: 'rate_limited',
  })
  const other = await transfer.exportDocuments(scope, definitionOf('env_b'), {}, 'json')
  other.destroy()

  // A client that goes away gives its place back.
  held.destroy()
  await new Promise((resolve) => held.once('close', resolve))
  const body = new PassThrough()
  const importing = transfer.importDocuments(scope, definitionOf('env_a'), body, 'ndjson')
  await t.rejects(transfer.exportDocuments(scope, definitionOf('env_a'), {}, 'json'), { code: 'rate_limited' })
  body.end('{"title":"x"}\n')
  t.match(await importing, { summary: { created: 1, failed: 0 } })
  const after = await transfer.exportDocuments(scope, definitionOf('env_a'), {}, 'json')
  let text = ''
  for await (const chunk of after) text += String(chunk)
  t.same(
    (JSON.parse(text) as { _id: string }[]).map((item) => item._id),
    ['d0', 'd1', 'd2'],
  )
})
