// The typed client's `src/schema.ts`, generated from the OpenAPI document the all-in-one gateway serves at
// /docs/json. It starts nothing: the gateway is built in this process on a throwaway store and asked with inject.
// `pnpm --filter @quire/client generate` rewrites the file; test/schema.test.ts fails while it is stale.
import { writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import openapiTS, { astToString } from 'openapi-typescript'
import prettier from 'prettier'
import { app, ConfigSchema, upstreamsFrom } from '@quire/gateway'
import { createServer, loadConfig } from '@quire/service-kit'
import { testResources } from '@quire/testing'

export const SCHEMA_FILE = fileURLToPath(new URL('../src/schema.ts', import.meta.url))

/** The gateway's OpenAPI document, every service mounted in this process. */
async function openApiDocument() {
  const teardowns = []
  try {
    const resources = await testResources({ teardown: (fn) => teardowns.push(fn) })
    const config = loadConfig(ConfigSchema, {
      QUIRE_DATA_DIR: resources.dataDir,
      QUIRE_ADMIN_PASSWORD: 'generate only',
    })
    const server = createServer({ logLevel: 'silent' })
    teardowns.push(() => server.close())
    await server.register(app, { config, upstreams: upstreamsFrom(config), local: resources })
    const res = await server.inject({ method: 'GET', url: '/docs/json' })
    if (res.statusCode !== 200) throw new Error(`/docs/json answered ${res.statusCode}`)
    return res.json()
  } finally {
    for (const teardown of teardowns.reverse()) await teardown()
  }
}

/** The text of `src/schema.ts`, as prettier lays it out. */
export async function generateSchema() {
  const types = astToString(await openapiTS(await openApiDocument()))
  const text = `// Generated from the gateway's OpenAPI document by scripts/generate.mjs: do not edit.\n\n${types}`
  return prettier.format(text, { ...(await prettier.resolveConfig(SCHEMA_FILE)), filepath: SCHEMA_FILE })
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await writeFile(SCHEMA_FILE, await generateSchema())
}
