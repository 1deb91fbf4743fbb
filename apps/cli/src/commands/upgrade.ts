import { admin as documentsAdmin } from '@quire/documents-service'
import { admin as packagesAdmin } from '@quire/packages-service'
import { admin as usersAdmin } from '@quire/users-service'
import { ACTOR, readConfig, withStore } from '../context.js'
import { print, type Io } from '../io.js'
import { progress } from '../progress.js'

/**
 * What a start does before it serves, as a step of its own: every index the services declare created where
 * missing, definitions' document collections included, and accounts older than login keys given theirs. No
 * stored format is converted. Idempotent.
 */
export async function upgrade(io: Io): Promise<void> {
  const config = readConfig(io)
  await withStore(config, async (store) => {
    print(io, `opened the ${config.QUIRE_MONGO_URL ? 'MongoDB' : 'embedded'} store`)
    const users = usersAdmin(store, ACTOR)
    await users.ensureIndexes()
    print(io, `users service: indexes of ${users.collections.join(', ')} ensured`)
    const documents = documentsAdmin(store)
    await documents.ensureIndexes()
    print(io, `documents service: indexes of ${documents.collections.join(', ')} ensured`)
    const definitions = await documents.ensureDocumentCollections((total) =>
      progress(io, 'document collections', total),
    )
    print(io, `documents service: indexes of ${definitions} definitions' document collections ensured`)
    const packages = packagesAdmin(store)
    await packages.ensureIndexes()
    print(io, `packages service: indexes of ${packages.collections.join(', ')} ensured`)
  })
}
