import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'

/** The parts of an OpenAPI document that merging touches. */
export interface OpenApiDocument {
  paths?: Record<string, unknown>
  components?: { schemas?: Record<string, unknown> } & Record<string, unknown>
  [key: string]: unknown
}

export interface OpenApiOptions {
  title: string
  /** Documents of services this process does not host (the gateway's proxied ones), fetched per request. */
  remotes?: () => Promise<OpenApiDocument[]>
}

function merge(base: OpenApiDocument, others: OpenApiDocument[]): OpenApiDocument {
  const merged: OpenApiDocument = {
    ...base,
    paths: { ...base.paths },
    components: { ...base.components, schemas: { ...base.components?.schemas } },
  }
  for (const other of others) {
    Object.assign(merged.paths as object, other.paths)
    Object.assign(merged.components?.schemas as object, other.components?.schemas)
  }
  return merged
}

/**
 * OpenAPI 3 generated from the route schemas, at `/docs/json`, with a UI at `/docs`. Register it before the
 * routes it should describe.
 */
async function openApi(app: FastifyInstance, options: OpenApiOptions) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: options.title, version: '2.0.0' },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          environment: { type: 'apiKey', in: 'header', name: 'environment-id' },
        },
      },
      security: [{ bearer: [], environment: [] }],
    },
  })
  let remote: OpenApiDocument[] = []
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiHooks: {
      onRequest: async (request) => {
        if (options.remotes && request.url.startsWith('/docs/json')) remote = await options.remotes()
      },
    },
    transformSpecification: (spec) => (options.remotes ? merge(spec as OpenApiDocument, remote) : spec),
  })
}

export const openApiPlugin = fp(openApi, { name: '@quire/openapi', fastify: '5.x' })
