import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance, RouteOptions } from 'fastify'
import { ErrorBodySchema } from '@quire/contracts'

/**
 * What a route's caller must send, as its OpenAPI operation says: nothing, a bearer token, or a bearer token and
 * the `environment-id` header. Routes say it through `config.auth`; unset means `environment`, the rule of `/api/v2`.
 */
export type RouteAuth = 'none' | 'bearer' | 'environment'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The credentials the route's hooks require, for its OpenAPI operation (see `describeRoutes`). */
    auth?: RouteAuth
    /** The OpenAPI tag, when the last static segment of the route's prefix is not its resource. */
    tag?: string
    /** Left out of the OpenAPI document (the gateway's pass-through routes: the service behind describes them). */
    hide?: boolean
  }
  interface FastifySchema {
    /** For the OpenAPI document: the body may be left out (the route's hook supplies its default). */
    bodyOptional?: boolean
    /** For the OpenAPI document: the `multipart/form-data` form of an upload, whose parts the handler reads itself. */
    multipart?: unknown
    /** For the OpenAPI document: the media types the body is read from (same schema), when not JSON alone. */
    bodyMediaTypes?: string[]
  }
}

/**
 * Declares `config.auth` / `config.tag` / `config.hide` for every route the plugin `app` (and its children) registers: one line per
 * route plugin, beside the hooks that enforce it. A child plugin's declaration overrides its parent's.
 */
export function describeRoutes(app: FastifyInstance, config: { auth?: RouteAuth; tag?: string; hide?: boolean }): void {
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, ...config }
  })
}

/** The parts of an OpenAPI document that merging touches. */
export interface OpenApiDocument {
  paths?: Record<string, Record<string, Operation>>
  components?: { schemas?: Record<string, unknown> } & Record<string, unknown>
  [key: string]: unknown
}

interface Operation {
  operationId?: string
  summary?: string
  tags?: string[]
  security?: Record<string, string[]>[]
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>
  [key: string]: unknown
}

export interface OpenApiOptions {
  title: string
  /** Documents of services this process does not host (the gateway's proxied ones), fetched per request. */
  remotes?: () => Promise<OpenApiDocument[]>
}

const SECURITY: Record<RouteAuth, Record<string, string[]>[]> = {
  none: [],
  bearer: [{ bearer: [] }],
  environment: [{ bearer: [], environment: [] }],
}

const AUTH_TEXT: Record<RouteAuth, string> = {
  none: 'No credentials.',
  bearer: 'Needs a bearer token.',
  environment: 'Needs a bearer token and the `environment-id` header.',
}

/** `bodyOptional`, carried from the route to `finishDocument` as an extension of the operation. */
const OPTIONAL_BODY = 'x-quire-body-optional'

const ERROR_REF = { $ref: '#/components/schemas/ErrorBody' }
const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: ERROR_REF } },
})

const isParam = (segment: string) => segment.startsWith(':') || segment.startsWith('{')
const pascal = (words: string[]) =>
  words.map((word) => word.replace(/[^A-Za-z0-9]/g, '')).map((word) => word.charAt(0).toUpperCase() + word.slice(1))

/** `listDocuments` → `List documents`. */
const summaryOf = (name: string): string => {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

/** The resource a route belongs to: the last static segment of its plugin's prefix (`/api/v2/users` → `users`). */
const tagOf = (route: RouteOptions): string => {
  const from = (path: string) =>
    path
      .split('/')
      .filter((segment) => segment !== '' && !isParam(segment))
      .at(-1)
  // Fastify sets `prefix` on the options it hands to onRoute hooks; its type does not declare it.
  const { prefix } = route as RouteOptions & { prefix?: string }
  return route.config?.tag ?? from(prefix ?? '') ?? from(route.url) ?? 'default'
}

/**
 * Per route: the spec's path (a route registered as `/` under a prefix ends in a slash the spec has not; the
 * server answers both), and what a generator names and groups it by: `operationId` from the handler's name (every
 * handler is a named function; made unique for the whole document later), a summary in words, a tag, security.
 * A route's own `schema` fields win.
 */
function describeRoute({ schema, url, route }: { schema: RouteOptions['schema']; url: string; route: RouteOptions }) {
  const name = route.handler.name.replace(/^bound /, '')
  const { bodyOptional, multipart, bodyMediaTypes, ...own } = (schema ?? {}) as NonNullable<RouteOptions['schema']>
  const auth = route.config?.auth ?? 'environment'
  const summary = own.summary ?? (name ? summaryOf(name) : undefined)
  return {
    url: url.length > 1 ? url.replace(/\/$/, '') : url,
    schema: {
      ...own,
      ...(bodyMediaTypes === undefined ? {} : { consumes: bodyMediaTypes }),
      ...(multipart === undefined ? {} : { body: multipart, consumes: ['multipart/form-data'] }),
      ...(bodyOptional === true ? { [OPTIONAL_BODY]: true } : {}),
      ...(route.config?.hide === true ? { hide: true } : {}),
      operationId: own.operationId ?? (name || undefined),
      summary,
      description: own.description ?? [summary && `${summary}.`, AUTH_TEXT[auth]].filter(Boolean).join(' '),
      tags: own.tags ?? [tagOf(route)],
      security: SECURITY[auth],
    },
  }
}

/**
 * Makes every `operationId` unique: the first keeps its name; a method sharing another's handler on the same path
 * gets its method's name (`downloadAttachmentHead`); the same route mounted again under another prefix
 * (`/api/v2/auth/login` beside `/auth/login`) gets the segments its path has before theirs (`loginApiV2`); anything
 * left, a number. Operations shared between methods are copied first.
 */
function uniqueOperationIds(document: OpenApiDocument): void {
  const firstPath = new Map<string, string[]>()
  const staticSegments = (path: string) => path.split('/').filter((segment) => segment !== '' && !isParam(segment))
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const [method, shared] of Object.entries(operations)) {
      const operation = { ...shared }
      operations[method] = operation
      const base = operation.operationId
      if (base === undefined) continue
      const segments = staticSegments(path)
      const first = firstPath.get(base)
      const samePath = Object.values(operations).some((other) => other !== operation && other.operationId === base)
      const mountedAgain =
        first !== undefined &&
        first.length < segments.length &&
        segments.slice(-first.length).join('/') === first.join('/')
      const candidates = [
        base,
        ...(samePath ? [`${base}${pascal([method]).join('')}`] : []),
        ...(mountedAgain ? [`${base}${pascal(segments.slice(0, segments.length - first.length)).join('')}`] : []),
      ]
      let id = candidates.find((candidate) => !firstPath.has(candidate))
      for (let n = 2; id === undefined; n++) if (!firstPath.has(`${base}${n}`)) id = `${base}${n}`
      firstPath.set(id, segments)
      operation.operationId = id
    }
  }
}

/** Every 4xx/5xx answer of every operation is the error envelope, `#/components/schemas/ErrorBody`. */
function referenceErrors(document: OpenApiDocument): void {
  const { $id: _id, ...errorBody } = ErrorBodySchema
  document.components = { ...document.components, schemas: { ...document.components?.schemas, ErrorBody: errorBody } }
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      const responses = { ...operation.responses }
      for (const status of Object.keys(responses)) {
        if (/^[45]/.test(status)) responses[status] = errorResponse(responses[status]?.description ?? 'Error')
      }
      responses['4XX'] ??= errorResponse('The request was refused: see `error` for why')
      responses['5XX'] ??= errorResponse('The server failed or is unavailable')
      operation.responses = responses
    }
  }
}

interface JsonSchemaObject {
  default?: unknown
  required?: string[]
  properties?: Record<string, JsonSchemaObject>
}

/**
 * What has a default (Ajv fills it in) is optional to the client, though the route's schema requires it after
 * defaults: a query parameter like `limit`, a top-level field of a JSON body.
 */
function defaultsOptional(document: OpenApiDocument): void {
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      const parameters = operation.parameters as { required?: boolean; schema?: JsonSchemaObject }[] | undefined
      for (const parameter of parameters ?? []) {
        if (parameter.schema?.default !== undefined) parameter.required = false
      }
      const body = (operation.requestBody as { content?: Record<string, { schema?: JsonSchemaObject }> } | undefined)
        ?.content?.['application/json']?.schema
      if (body?.required && body.properties) {
        const { properties } = body
        body.required = body.required.filter((name) => properties[name]?.default === undefined)
      }
    }
  }
}

/** A body the route lets the client leave out is not `required` (Fastify's swagger marks every body so). */
function optionalBodies(document: OpenApiDocument): void {
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      if (operation[OPTIONAL_BODY] !== true) continue
      delete operation[OPTIONAL_BODY]
      operation.requestBody = { ...(operation.requestBody as object), required: false }
    }
  }
}

/**
 * The document as a generator takes it: unique operation ids, errors referenced, defaults and optional bodies
 * optional. Idempotent.
 */
function finishDocument(document: OpenApiDocument): OpenApiDocument {
  uniqueOperationIds(document)
  referenceErrors(document)
  defaultsOptional(document)
  optionalBodies(document)
  return document
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
  // Each service's ids are unique in its own document; two services may still share a handler name.
  return finishDocument(merged)
}

/**
 * OpenAPI 3 generated from the route schemas, at `/docs/json`, with a UI at `/docs`. Register it before the
 * routes it should describe.
 */
async function openApi(app: FastifyInstance, options: OpenApiOptions) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: options.title,
        version: '2.0.0',
        license: { name: 'Apache License 2.0', identifier: 'Apache-2.0' },
      },
      // Relative: the server that serves this document, whatever its address behind proxies.
      servers: [{ url: '/', description: 'The server serving this document' }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          environment: { type: 'apiKey', in: 'header', name: 'environment-id' },
        },
      },
    },
    transform: describeRoute,
    transformObject: (documents) =>
      'openapiObject' in documents
        ? finishDocument(documents.openapiObject as OpenApiDocument)
        : documents.swaggerObject,
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
