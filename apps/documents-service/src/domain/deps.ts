import type { Scope } from '@quire/auth'
import type { Action, ActionTrigger, Document } from '@quire/contracts'
import type { Transaction } from '@quire/records'
import type { DefinitionRecord, DocumentFields } from '../collections.js'

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
export interface ActionsPort {
  /** Resolves to the user fields the action returns instead, or undefined; throws the action's refusal. */
  before(
    scope: Scope,
    definition: DefinitionRecord,
    action: Action,
    trigger: ActionTrigger,
    proposed: Document,
    previous: Document | null,
  ): Promise<DocumentFields | undefined>
  enqueue(
    tx: Transaction,
    scope: Scope,
    definition: DefinitionRecord,
    trigger: ActionTrigger,
    document: Document,
    previous: Document | null,
  ): Promise<void>
  dispatch(): void
  check(actions: readonly Action[] | undefined): Promise<void>
  drop(definition: Pick<DefinitionRecord, '_id' | '_environmentId'>): Promise<void>
}
