import { createServer, loadConfig, type App } from '@quire/service-kit'
import {
  accessToken,
  createEnvironment,
  createUser,
  headers,
  testResources,
  type Teardown,
  type TestResources,
  type UserSeed,
} from '@quire/testing'
import { app } from '../src/app.js'
import { DocumentsConfigSchema } from '../src/config.js'

export const ENV_A = 'env_a'
export const ENV_B = 'env_b'

export interface Built {
  server: App
  resources: TestResources
  /** Headers of an administrator of A (`admin`), of B (`adminB`), and of plain members of A. */
  as: {
    admin: Record<string, string>
    adminB: Record<string, string>
    member: Record<string, string>
    sales: Record<string, string>
    outsider: Record<string, string>
  }
}

/** The documents service alone, on a fresh store with environments A and B and a few callers. */
export async function build(t: Teardown): Promise<Built> {
  const resources = await testResources(t)
  const { store, keys } = resources
  await createEnvironment(store, ENV_A)
  await createEnvironment(store, ENV_B)
  const tokenOf = async (environments: UserSeed['environments']) =>
    accessToken(keys.privateKey, (await createUser(store, { environments }))._id)
  const admin = await tokenOf({ [ENV_A]: { administrator: true } })
  const adminB = await tokenOf({ [ENV_B]: { administrator: true } })
  const member = await tokenOf({ [ENV_A]: {} })
  const sales = await tokenOf({ [ENV_A]: { groups: ['sales'] } })
  const outsider = await tokenOf({ [ENV_B]: {} })
  const server = createServer({ logLevel: 'silent' })
  await server.register(app, { ...resources, config: loadConfig(DocumentsConfigSchema, {}) })
  t.teardown(() => server.close())
  await server.ready()
  return {
    server,
    resources,
    as: {
      admin: headers(admin, ENV_A),
      adminB: headers(adminB, ENV_B),
      member: headers(member, ENV_A),
      sales: headers(sales, ENV_A),
      outsider: headers(outsider, ENV_A),
    },
  }
}

export const DEFINITIONS = '/api/v2/document-definitions'
export const documentsOf = (ddId: string) => `${DEFINITIONS}/${encodeURIComponent(ddId)}/documents`

/** Creates a definition as the administrator of A (or of the given headers) and returns it. */
export async function createDefinition(server: App, as: Record<string, string>, body: Record<string, unknown>) {
  const response = await server.inject({ method: 'POST', url: DEFINITIONS, headers: as, payload: body })
  if (response.statusCode !== 201) throw new Error(`definition not created: ${response.body}`)
  return response.json().data as { _id: string; name: string; _hash: string }
}
