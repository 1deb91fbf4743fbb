import type { RecordStore } from '@quire/records'
import { DOCUMENTS_COLLECTIONS, declaredIndex, documentsCollection, type DefinitionRecord } from '../collections.js'

/** A definition's document collection with its indexes: the external id's and those the definition declares. */
export async function ensureDocumentCollection(store: RecordStore, definition: DefinitionRecord): Promise<void> {
  const spec = documentsCollection(definition)
  const documents = spec.in(store)
  for (const index of [...spec.indexes, ...(definition.indexes ?? []).map(declaredIndex)]) {
    await documents.ensureIndex(index)
  }
}

/** Every definition's document collection, `tick` called after each; resolves to how many there are. */
export async function ensureDocumentCollections(
  store: RecordStore,
  progress: (total: number) => { tick(): void; stop(): void },
): Promise<number> {
  const definitions = await DOCUMENTS_COLLECTIONS.definitions.in(store).find({})
  const bar = progress(definitions.length)
  try {
    for (const definition of definitions) {
      await ensureDocumentCollection(store, definition)
      bar.tick()
    }
  } finally {
    bar.stop()
  }
  return definitions.length
}
