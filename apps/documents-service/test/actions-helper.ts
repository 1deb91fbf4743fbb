import type { App } from '@quire/service-kit'
import { DEFINITIONS, documentsOf } from './helper.js'

/** `POST .../documents/{id}/actions/{name}` as `as`, with an optional body. */
export function runAction(
  server: App,
  as: Record<string, string>,
  ddId: string,
  id: string,
  name: string,
  body?: Record<string, unknown>,
) {
  return server.inject({
    method: 'POST',
    url: `${documentsOf(ddId)}/${encodeURIComponent(id)}/actions/${encodeURIComponent(name)}`,
    headers: as,
    ...(body === undefined ? {} : { payload: body }),
  })
}

export interface RunItem {
  _id: string
  documentId: string
  action: string
  trigger: string
  status: string
  attempt: number
  userId: string
  error?: { kind: string; message: string; code?: string }
  logs: { level: string; message: string }[]
  writes: { method: string; path: string; status: number }[]
}

/** The definition's action runs as an administrator reads them, newest first. */
export async function actionRuns(
  server: App,
  as: Record<string, string>,
  ddId: string,
  query = '',
): Promise<RunItem[]> {
  const response = await server.inject({
    method: 'GET',
    url: `${DEFINITIONS}/${encodeURIComponent(ddId)}/action-runs?limit=800${query}`,
    headers: as,
  })
  if (response.statusCode !== 200) throw new Error(`runs not read: ${response.body}`)
  return response.json().data as RunItem[]
}

/**
 * Resolves once `check` holds: what runs after an answer (after-write jobs) is awaited by its effect, not by a
 * delay. Fails after a generous bound so a broken dispatcher fails the test instead of hanging it.
 */
export async function eventually<T>(check: () => Promise<T | undefined | false>, what: string): Promise<T> {
  const deadline = Date.now() + 60_000
  for (;;) {
    const value = await check()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
