import type { FastifyRequest } from 'fastify'

/** The environment of a call behind `requireEnvironment`, which always sets it; null means a wiring mistake. */
export function callerEnvironment(request: FastifyRequest): string {
  const { environmentId } = request.caller
  if (environmentId === null) throw new Error(`${request.routeOptions.url} is not behind requireEnvironment`)
  return environmentId
}
