// The repository's `openapi.json` and the typed client's `packages/client/src/schema.ts`, generated from the OpenAPI document the
// all-in-one gateway serves at /docs/json. It starts nothing: the gateway is built in this process on a throwaway
// store and asked with inject. `npm run openapi` at the root rewrites both files; test/schema.test.ts
// fails while either is stale.
import { writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import openapiTS, { astToString } from 'openapi-typescript'
import ts from 'typescript'
import prettier from 'prettier'
import { app, ConfigSchema, upstreamsFrom } from '@quire/gateway'
import { createServer, loadConfig } from '@quire/service-kit'
import { testResources } from '@quire/testing'

export const SCHEMA_FILE = fileURLToPath(new URL('../../client/src/schema.ts', import.meta.url))
export const OPENAPI_FILE = fileURLToPath(new URL('../../../openapi.json', import.meta.url))

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

/** A file's bytes (`format: binary`) are a `Blob`: what a form part takes, and what a download is read as. */
const BLOB = ts.factory.createTypeReferenceNode(ts.factory.createIdentifier('Blob'))
const transform = (schema) => (schema.format === 'binary' ? BLOB : undefined)

/** `text`, as prettier lays out the file `filepath`. */
const format = async (text, filepath) =>
  prettier.format(text, { ...(await prettier.resolveConfig(filepath)), filepath })

/** The text of `openapi.json` and of `src/schema.ts`. */
export async function generate() {
  const document = await openApiDocument()
  const types = astToString(await openapiTS(document, { transform }))
  return {
    openApi: await format(JSON.stringify(document), OPENAPI_FILE),
    schema: await format(
      `// Generated from the gateway's OpenAPI document by scripts/generate.mjs: do not edit.\n\n${types}`,
      SCHEMA_FILE,
    ),
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { openApi, schema } = await generate()
  await writeFile(OPENAPI_FILE, openApi)
  await writeFile(SCHEMA_FILE, schema)
}
