import { Readable } from 'node:stream'
import type { ReadableStream as NodeReadableStream } from 'node:stream/web'
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { RecordStore } from '@quire/records'
import { ScriptEngine } from '@quire/scripts'
import { ApiError } from '@quire/service-kit'
import type { DocumentsConfig } from '../config.js'
import { createActions, type Actions, type RestTransport } from '../domain/actions/index.js'

declare module 'fastify' {
  interface FastifyInstance {
    actions: Actions
  }
}

/** REST.calls answered by this server itself (`inject`): every service mounted beside this one is reachable. */
function inProcess(fastify: FastifyInstance): RestTransport {
  const send: RestTransport['send'] = async ({ method, url, headers, payload }) => {
    const answer = await fastify.inject({
      method,
      url,
      headers,
      payloadAsStream: true,
      ...(payload === undefined ? {} : { payload }),
    })
    const answerHeaders: Record<string, string> = {}
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined) answerHeaders[name] = Array.isArray(value) ? value.join(', ') : String(value)
    }
    const stream = answer.stream()
    return {
      status: answer.statusCode,
      headers: answerHeaders,
      body: stream,
      close: () => {
        stream.destroy()
        // Closing the server's side of the answer stops its source (a file being read, for one).
        answer.raw.res.destroy()
      },
    }
  }
  return { authorization: (delegation) => delegation.headers.authorization, send }
}

/** REST.calls sent to the gateway (services in their own processes), with the run's token. */
function throughGateway(gateway: string): RestTransport {
  const send: RestTransport['send'] = async ({ method, url, headers, payload }) => {
    const controller = new AbortController()
    const answer = await fetch(new URL(url, gateway), {
      method,
      headers,
      redirect: 'manual',
      signal: controller.signal,
      ...(payload === undefined ? {} : { body: payload }),
    })
    const body = answer.body ? Readable.fromWeb(answer.body as NodeReadableStream<Uint8Array>) : Readable.from([])
    return {
      status: answer.status,
      headers: Object.fromEntries(answer.headers),
      body,
      close: () => {
        body.destroy()
        controller.abort()
      },
    }
  }
  return { authorization: (delegation) => `Bearer ${delegation.token}`, send }
}

/**
 * Decorates `fastify.actions`: one script engine (workers start at the first run), the after-write dispatcher
 * (started once the server is ready, stopped as closing starts), the run records and their sweep (at start, then
 * hourly).
 */
export const actionsPlugin = fp<{ store: RecordStore; config: DocumentsConfig }>(
  async (fastify, { store, config }) => {
    const memoryBytes = config.QUIRE_SCRIPT_MEMORY_MB * 1024 * 1024
    const engine = new ScriptEngine({
      workers: config.QUIRE_SCRIPT_WORKERS,
      limits: {
        cpuMs: config.QUIRE_SCRIPT_CPU_MS,
        wallMs: config.QUIRE_SCRIPT_WALL_MS,
        memoryBytes,
        restCalls: config.QUIRE_SCRIPT_REST_CALLS,
        outputBytes: config.QUIRE_SCRIPT_OUTPUT_KB * 1024,
      },
      concurrentPerTenant: config.QUIRE_SCRIPT_CONCURRENT_PER_ENVIRONMENT,
      queuePerTenant: config.QUIRE_SCRIPT_QUEUE_PER_ENVIRONMENT,
    })
    const { start, stop, close, ...actions } = createActions({
      store,
      engine,
      transport: config.QUIRE_SCRIPT_GATEWAY_URL ? throughGateway(config.QUIRE_SCRIPT_GATEWAY_URL) : inProcess(fastify),
      now: Date.now,
      log: fastify.log,
      settings: {
        wallMs: config.QUIRE_SCRIPT_WALL_MS,
        answerBudgetBytes: config.QUIRE_SCRIPT_ANSWER_BUDGET_MB * 1024 * 1024,
        memoryBytes,
        retentionDays: config.QUIRE_ACTION_RUN_RETENTION_DAYS,
      },
    })
    fastify.decorate('actions', actions)
    fastify.addHook('onReady', async () => start())
    // Nothing new starts once closing does (no job claimed, no deletion's next transaction); what runs is waited for.
    fastify.addHook('preClose', async () => stop())
    fastify.addHook('onClose', async () => close())
    // Busy is transient: a client told when to come back retries instead of failing.
    fastify.addHook('onError', async (_request, reply, error) => {
      if (error instanceof ApiError && error.code === 'scripts_busy') reply.header('retry-after', '1')
    })
  },
  { name: '@quire/documents-actions', fastify: '5.x' },
)
