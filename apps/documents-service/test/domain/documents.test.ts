import t from 'tap'
import type { Scope } from '@quire/auth'
import { testResources } from '@quire/testing'
import { ensureDocumentsIndexes } from '../../src/collections.js'
import { createChangeLog } from '../../src/domain/change-log.js'
import { createAttachmentFiles } from '../../src/domain/attachment-files.js'
import { createDefinitions } from '../../src/domain/definitions.js'
import type { ActionsPort, WebhooksPort } from '../../src/domain/deps.js'
import { createDocumentCollections } from '../../src/domain/document-collections.js'
import { createDocuments } from '../../src/domain/documents.js'
import { createIdempotencyKeys } from '../../src/domain/idempotency-keys.js'
import { createWritePipeline } from '../../src/domain/write-pipeline.js'
import { ENV_A, storedDocuments, type TestContext } from '../helper.js'

const NOON = Date.parse('2026-03-01T12:00:00.000Z')
const scope: Scope = {
  userId: 'u1',
  via: 'access-token',
  superAdministrator: false,
  actionDepth: 0,
  environmentId: ENV_A,
  administrator: true,
  groups: [],
}
const quiet = { warn: () => undefined, error: () => undefined }

/** The domain on a store, without Fastify: a fixed clock, and actions that record what the pipeline asks. */
async function domain(t: TestContext) {
  const { store, files } = await testResources(t)
  await ensureDocumentsIndexes(store)
  const calls: string[] = []
  const actions: ActionsPort = {
    async before(_scope, _definition, action, trigger, proposed) {
      calls.push(`${trigger}:${action.name}`)
      return { ...Object.fromEntries(Object.entries(proposed).filter(([key]) => !key.startsWith('_'))), stamped: 1 }
    },
    async enqueue(_tx, _scope, _definition, trigger) {
      calls.push(`enqueue:${trigger}`)
    },
    dispatch: () => calls.push('dispatch'),
    check: async () => undefined,
    drop: async () => undefined,
  }
  const clock = () => NOON
  // No environment here has webhooks: writes stay as they were without them.
  const noWebhooks: WebhooksPort = {
    enqueue: async () => undefined,
    enqueueDefinition: async () => undefined,
    settle: () => undefined,
  }
  const attachmentFiles = createAttachmentFiles({ store, files, clock, log: quiet })
  const changeLog = createChangeLog({ store, clock, limits: { retentionMs: 60_000, maxEntries: 1000 } })
  const changes = { document: changeLog.document, definition: changeLog.definition, committed: () => undefined }
  const definitions = createDefinitions({
    store,
    actions,
    collections: createDocumentCollections({ store }),
    attachmentFiles,
    changes,
    webhooks: noWebhooks,
    clock,
  })
  const documents = createDocuments({
    store,
    idempotencyKeys: createIdempotencyKeys({ store, clock, log: quiet }),
    pipeline: createWritePipeline({ store, actions, webhooks: noWebhooks, attachmentFiles, changes, clock }),
  })
  return { store, calls, definitions, documents }
}

t.test(
  'the rules run without a server: a write is validated, acted on, stored, then its jobs dispatched',
  async (t) => {
    const { store, calls, definitions, documents } = await domain(t)
    const orders = await definitions.create(scope, {
      name: 'orders',
      fields: { total: { type: 'number' } },
      actions: [{ name: 'stamp', triggers: ['beforeCreate', 'afterUpdate'], source: 'return serverDocument' }],
    })
    const definition = await definitions.resolve(scope, orders._id)

    const { document } = await documents.create(scope, definition, { total: 10 })
    t.equal(document._createdOn, new Date(NOON).toISOString(), 'the clock given is the one written')
    t.equal(document.stamped, 1, 'the before-write action’s fields are stored')
    await t.rejects(documents.create(scope, definition, { total: 'ten' }), { code: 'validation_error' })

    calls.length = 0
    const patched = await documents.patch(scope, definition, document._id, { extra: { a: 1, b: 2 } })
    await documents.patch(scope, definition, document._id, { extra: { b: null } }, undefined, 'merge-patch')
    t.same(
      calls,
      ['enqueue:afterUpdate', 'dispatch', 'enqueue:afterUpdate', 'dispatch'],
      'jobs queued, then dispatched',
    )
    const stored = await storedDocuments(store, definition._id).findOne({ _id: document._id })
    t.same(stored?.extra, { a: 1 })
    t.not(stored?._hash, patched._hash)

    await documents.remove(scope, definition, document._id)
    t.equal(await storedDocuments(store, definition._id).count({}), 0)
  },
)
