import {
  DOCUMENTS_COLLECTIONS,
  declaredIndex,
  documentsCollection,
  ensureDocumentsIndexes,
} from '@quire/documents-service'
import { PACKAGES_COLLECTIONS, ensurePackagesIndexes } from '@quire/packages-service'
import { USERS_COLLECTIONS, ensureUsersIndexes } from '@quire/users-service'
import { readConfig, withStore } from '../context.js'
import { print, type Io } from '../io.js'
import { progress } from '../progress.js'

/** The collections' names, as their owners declare them. */
const names = (collections: Record<string, { name: string }>): string =>
  Object.values(collections)
    .map((collection) => collection.name)
    .join(', ')

/**
 * What a start does silently, as a step of its own: opening the store brings its format up to date (the
 * embedded store rewrites older formats on its first open), then every index the services declare is created
 * where missing, definitions' document collections included. Idempotent.
 */
export async function upgrade(io: Io): Promise<void> {
  const config = readConfig(io)
  await withStore(config, async (store) => {
    print(io, `opened the ${config.QUIRE_MONGO_URL ? 'MongoDB' : 'embedded'} store: its format is current`)
    await ensureUsersIndexes(store)
    print(io, `users service: indexes of ${names(USERS_COLLECTIONS)} ensured`)
    await ensureDocumentsIndexes(store)
    print(io, `documents service: indexes of ${names(DOCUMENTS_COLLECTIONS)} ensured`)
    const definitions = await DOCUMENTS_COLLECTIONS.definitions.in(store).find({})
    const bar = progress(io, 'document collections', definitions.length)
    for (const definition of definitions) {
      const spec = documentsCollection(definition)
      const documents = spec.in(store)
      for (const index of [...spec.indexes, ...(definition.indexes ?? []).map(declaredIndex)]) {
        await documents.ensureIndex(index)
      }
      bar.tick()
    }
    bar.stop()
    print(io, `documents service: indexes of ${definitions.length} definitions' document collections ensured`)
    await ensurePackagesIndexes(store)
    print(io, `packages service: indexes of ${names(PACKAGES_COLLECTIONS)} ensured`)
  })
}
