/** The one route table: every public prefix and the service that answers it. Paths are forwarded unchanged. */
export const ROUTE_TABLE = {
  documents: ['/api/v2/document-definitions', '/api/v2/documents'],
  users: ['/api/v2/users', '/api/v2/environments', '/auth', '/api/v2/auth'],
  packages: ['/api/v2/packages', '/api/v2/usage-statistics'],
} as const

export type ServiceName = keyof typeof ROUTE_TABLE

export const SERVICE_NAMES = Object.keys(ROUTE_TABLE) as ServiceName[]
