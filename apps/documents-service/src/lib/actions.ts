import type { Scope } from '@quire/auth'
import type { Action, ActionTrigger, Definition } from '@quire/contracts'
import { DocumentBodySchema } from '@quire/contracts'
import { Value } from '@sinclair/typebox/value'
import { fail } from '@quire/service-kit'
import type { DefinitionRecord, DocumentFields } from '../collections.js'

/**
 * Actions run at depths 1 to 3: a client's write sets off depth 1, a write made by a depth-1 script depth 2, and
 * so on. A write whose actions would run deeper is refused (409), so scripts that write what sets them off end.
 */
const MAX_ACTION_DEPTH = 3

/** The actions of `definition` that `trigger` sets off, in declaration order. */
export const actionsFor = (definition: Pick<DefinitionRecord, 'actions'>, trigger: ActionTrigger): Action[] =>
  definition.actions?.filter((action) => action.triggers.includes(trigger)) ?? []

/** The manual action `name`; 404 `action_not_found` when there is none (or it is not manual). */
export function manualAction(definition: DefinitionRecord, name: string): Action {
  const action = definition.actions?.find((candidate) => candidate.name === name)
  if (!action?.triggers.includes('manual')) {
    throw fail(
      'action_not_found',
      `Document definition "${definition.name}" has no manual action "${name}"`,
      'This action does not exist for this kind of document',
    )
  }
  return action
}

/** 409 `action_depth_exceeded` when actions set off by a caller at `depth` would run past the bound. */
export function checkActionDepth(depth: number, what: string): void {
  if (depth + 1 > MAX_ACTION_DEPTH) {
    throw fail(
      'action_depth_exceeded',
      `${what} would run actions ${depth + 1} deep; at most ${MAX_ACTION_DEPTH} actions may set one another off`,
    )
  }
}

/**
 * A write an action's REST.call sent commits only while that run lasts: once it has ended nobody waits for the
 * write, and a retry of the run would make it again. Checked last before each commit: 422 `action_failed`.
 */
export function checkRunLasts(scope: Scope): void {
  if (scope.signal?.aborted) {
    throw fail(
      'action_failed',
      'The action run that sent this write has ended before it was committed: nothing was written',
    )
  }
}

/** Names must be unique in a definition: 400 naming the second one. */
export function checkActionNames(actions: readonly Action[]): void {
  const seen = new Set<string>()
  actions.forEach((action, index) => {
    if (seen.has(action.name)) {
      throw fail('validation_error', `body/actions/${index}/name "${action.name}" is declared twice`)
    }
    seen.add(action.name)
  })
}

/** Actions as a reader sees them: scripts may hold logic an administrator did not mean to publish. */
export function visibleActions(actions: readonly Action[], administrator: boolean): Definition['actions'] {
  if (administrator) return [...actions]
  return actions.map(({ source: _source, ...rest }) => rest)
}

/** What a before-write action may return to change the document: a plain object (its user fields). */
export const isFieldsObject = (result: unknown): result is DocumentFields =>
  typeof result === 'object' && result !== null && !Array.isArray(result)

/** A before-write action's proposed fields, checked as a client's body is: 400 `validation_error` naming the action. */
export function checkProposedFields(action: Action, fields: DocumentFields): void {
  const error = Value.Errors(DocumentBodySchema, fields).First()
  if (error) throw fail('validation_error', `action "${action.name}" result${error.path}: ${error.message}`)
}

/** How deep a manual call's body may nest: as a document's fields (the script parses it again). */
const MAX_INPUT_DEPTH = 32

/** 400 when a manual call's body nests deeper than a document may. */
export function checkInputDepth(value: unknown, depth = 0): void {
  if (value === null || typeof value !== 'object') return
  if (depth > MAX_INPUT_DEPTH) throw fail('validation_error', `body is nested deeper than ${MAX_INPUT_DEPTH} levels`)
  for (const inner of Object.values(value)) checkInputDepth(inner, depth + 1)
}
