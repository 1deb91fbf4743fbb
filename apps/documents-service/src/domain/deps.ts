import type { Actions } from './actions/index.js'
import type { Webhooks } from './webhooks/index.js'

/** What the domain logs: failures it survives (a file left behind, a sweep that stopped), never a request. */
export interface Log {
  warn(details: object, message: string): void
  error(details: object, message: string): void
}

/** The time, epoch ms: tests move it. */
export type Clock = () => number

/** `clock`'s time as a record stores it. */
export const isoTime = (clock: Clock): string => new Date(clock()).toISOString()

/**
 * What documents and definitions ask of the script engine (`fastify.actions` is one): before-write runs, the
 * after-write jobs queued in the write's transaction, their dispatch; a definition's actions checked and dropped.
 */
export type ActionsPort = Pick<Actions, 'before' | 'enqueue' | 'dispatch' | 'check' | 'drop'>

/**
 * What writes ask of webhooks (`fastify.webhooks` is one): the deliveries of a document or definition change
 * queued in its transaction, their dispatch once committed.
 */
export type WebhooksPort = Pick<Webhooks, 'enqueue' | 'enqueueDefinition' | 'settle'>
