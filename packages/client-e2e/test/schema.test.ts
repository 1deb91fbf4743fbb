import t from 'tap'
import { readFile } from 'node:fs/promises'
import { generate, OPENAPI_FILE, SCHEMA_FILE } from '../scripts/generate.mjs'

const STALE = 'when stale, run `npm run openapi` and commit openapi.json and packages/client/src/schema.ts'

t.test('openapi.json and packages/client/src/schema.ts are what the OpenAPI document generates today', async (t) => {
  const fresh = await generate()
  t.ok((await readFile(OPENAPI_FILE, 'utf8')) === fresh.openApi, `openapi.json is current (${STALE})`)
  t.ok((await readFile(SCHEMA_FILE, 'utf8')) === fresh.schema, `packages/client/src/schema.ts is current (${STALE})`)
})
