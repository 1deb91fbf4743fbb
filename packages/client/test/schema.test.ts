import t from 'tap'
import { readFile } from 'node:fs/promises'
import { generateSchema, SCHEMA_FILE } from '../scripts/generate.mjs'

t.test('src/schema.ts is what the OpenAPI document generates today', async (t) => {
  const committed = await readFile(SCHEMA_FILE, 'utf8')
  const fresh = await generateSchema()
  t.ok(committed === fresh, 'stale: run `pnpm --filter @quire/client generate` and commit src/schema.ts')
})
