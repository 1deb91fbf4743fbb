import type { IndexDeclaration } from '@quire/contracts'
import { DuplicateKeyError, ParallelArraysError, type IndexInfo, type RecordStore } from '@quire/records'
import { fail } from '@quire/service-kit'
import { declaredIndex, documentsCollection, type DefinitionRecord } from '../collections.js'

/** A definition's documents collection as the definition drives it: its indexes, its size, its end. */
export interface DocumentCollections {
  /**
   * Creates the indexes `definition` declares that `previous` did not (and the collection's own), resolving to
   * the names it created, so a definition write that then fails can drop them again (`dropIndexes`).
   */
  addIndexes(definition: DefinitionRecord, previous?: IndexDeclaration[]): Promise<string[]>
  /** Drops the declared indexes of `previous` that `definition` no longer declares (once the definition is written). */
  removeIndexes(definition: DefinitionRecord, previous: IndexDeclaration[]): Promise<void>
  dropIndexes(definition: DefinitionRecord, names: readonly string[]): Promise<void>
  /** The collection's indexes with their build state (`building` until every document is in it). */
  indexStates(definition: DefinitionRecord): Promise<IndexInfo[]>
  count(definition: DefinitionRecord): Promise<number>
  drop(definition: DefinitionRecord): Promise<void>
}

/** An index the existing documents cannot hold: equal values for a unique one, or parallel arrays. */
function refusedIndex(error: unknown, name: string): unknown {
  if (error instanceof DuplicateKeyError) {
    return fail('validation_error', `body/indexes: existing documents have equal values for unique index ${name}`)
  }
  if (error instanceof ParallelArraysError) {
    return fail('parallel_arrays', `body/indexes: existing documents cannot be indexed: ${error.message}`)
  }
  return error
}

export function createDocumentCollections(deps: { store: RecordStore }): DocumentCollections {
  const { store } = deps
  const collectionOf = (definition: DefinitionRecord) => documentsCollection(definition).in(store)

  async function dropIndexes(definition: DefinitionRecord, names: readonly string[]): Promise<void> {
    const documents = collectionOf(definition)
    for (const name of names) await documents.dropIndex(name)
  }

  return {
    async addIndexes(definition, previous = []) {
      const spec = documentsCollection(definition)
      const documents = spec.in(store)
      const had = new Set(previous.map((declaration) => declaredIndex(declaration).name))
      const created: string[] = []
      for (const index of spec.indexes) await documents.ensureIndex(index)
      // Indexes the previous version declared are ensured too (one lost to a crash comes back), never dropped here.
      for (const index of (definition.indexes ?? []).map(declaredIndex)) {
        try {
          await documents.ensureIndex(index)
        } catch (error) {
          await dropIndexes(definition, created)
          throw refusedIndex(error, index.name)
        }
        if (!had.has(index.name) && !created.includes(index.name)) created.push(index.name)
      }
      return created
    },

    async removeIndexes(definition, previous) {
      const wanted = new Set((definition.indexes ?? []).map((declaration) => declaredIndex(declaration).name))
      const documents = collectionOf(definition)
      for (const { name } of previous.map(declaredIndex)) if (!wanted.has(name)) await documents.dropIndex(name)
    },

    dropIndexes,

    indexStates(definition) {
      return collectionOf(definition).indexes()
    },

    count(definition) {
      return collectionOf(definition).count({})
    },

    async drop(definition) {
      await store.dropCollection(documentsCollection(definition).name)
    },
  }
}
