import type { Scope } from '@quire/auth'
import type { Attachment, CopiedAttachments, CopyAttachmentsBody, CopySource, CopyTarget } from '@quire/contracts'
import { newObjectId } from '@quire/records'
import { ApiError, fail } from '@quire/service-kit'
import { attachmentsAt, parseValuePath, withAttachmentsAt } from '../lib/value-path.js'
import type { AttachmentFiles } from './attachment-files.js'
import type { Definitions } from './definitions.js'
import { isoTime, type Clock } from './deps.js'
import type { Documents } from './documents.js'

/** Files one copy call may add (over all its items): each is a few record writes, all in one request. */
const MAX_COPIED_FILES = 1000

export const notFound = (attachmentId: string, where: string) =>
  fail('attachment_not_found', `No attachment "${attachmentId}" in ${where}`, 'The file does not exist')

/** `_id` or `externalId`, whichever the copy item gives: the documents repository tries both. */
function documentRef(ref: CopySource | CopyTarget, side: string): string {
  const id = ref._id ?? ref.externalId
  if (id === undefined) throw fail('validation_error', `${side}: _id or externalId is required`)
  return id
}

/** The files named by `fileNames` / `fileIds`, or all; each one asked for must be there. */
function selectFiles(attachments: Attachment[], source: CopySource): Attachment[] {
  if (source.fileNames === undefined && source.fileIds === undefined) return attachments
  const names = new Set(source.fileNames ?? [])
  const ids = new Set(source.fileIds ?? [])
  const selected = attachments.filter((attachment) => names.has(attachment._fileName) || ids.has(attachment._id))
  for (const name of names) {
    if (!selected.some((a) => a._fileName === name)) throw notFound(name, `source ${source.valuePath}`)
  }
  for (const id of ids) if (!selected.some((a) => a._id === id)) throw notFound(id, `source ${source.valuePath}`)
  return selected
}

/** The item's error, with its index and what the items before it did. */
function atItem(error: unknown, index: number): unknown {
  if (!(error instanceof ApiError)) return error
  const done = index === 0 ? 'no item was copied' : `items 0 to ${index - 1} were copied`
  return new ApiError(error.code, `item ${index}: ${error.message} (${done})`, error.userDescription, error.statusCode)
}

/** Item by item; a copy shares its source's stored file (files never change): no byte is copied. */
export function createAttachmentCopies(deps: {
  attachmentFiles: AttachmentFiles
  documents: Pick<Documents, 'get' | 'modify'>
  definitions: Pick<Definitions, 'resolve'>
  clock: Clock
}): { copy(scope: Scope, items: CopyAttachmentsBody): Promise<CopiedAttachments[]> } {
  const { attachmentFiles, documents, definitions, clock } = deps
  const { keyOf, discard } = attachmentFiles

  async function copyItem(
    scope: Scope,
    source: CopySource,
    target: CopyTarget,
    budget: { files: number },
  ): Promise<CopiedAttachments> {
    const sourceDefinition = await definitions.resolve(scope, source.ddName)
    const sourceDocument = await documents.get(scope, sourceDefinition, documentRef(source, 'source'))
    const selected = selectFiles(attachmentsAt(sourceDocument, parseValuePath(source.valuePath)), source)
    budget.files -= selected.length
    if (budget.files < 0) {
      throw fail(
        'payload_too_large',
        `More than ${MAX_COPIED_FILES} files in one copyAttachments call`,
        `At most ${MAX_COPIED_FILES} files can be copied at once`,
      )
    }
    const targetDefinition = await definitions.resolve(scope, target.ddName)
    const targetDocument = await documents.get(scope, targetDefinition, documentRef(target, 'target'))
    const targetPath = parseValuePath(target.valuePath)
    attachmentsAt(targetDocument, targetPath)
    const copies: Attachment[] = []
    const keys: string[] = []
    try {
      for (const original of selected) {
        const copy: Attachment = {
          ...original,
          _id: newObjectId(),
          _createdOn: isoTime(clock),
          _createdByUserId: scope.userId,
        }
        const key = keyOf(targetDefinition, targetDocument._id, copy._id)
        keys.push(key)
        const shared = await attachmentFiles.share(keyOf(sourceDefinition, sourceDocument._id, original._id), {
          key,
          definition: targetDefinition,
          documentId: targetDocument._id,
        })
        if (!shared) throw notFound(original._id, `the file store (source ${source.valuePath})`)
        copies.push(copy)
      }
      if (copies.length > 0) {
        await documents.modify(scope, targetDefinition, targetDocument._id, (fields) =>
          withAttachmentsAt(fields, targetPath, (current) => [...current, ...copies]),
        )
      }
    } catch (error) {
      await discard(keys)
      throw error
    }
    return {
      source: { ...source, _id: sourceDocument._id },
      target: { ...target, _id: targetDocument._id },
      attachments: copies,
    }
  }

  return {
    async copy(scope, items) {
      const results: CopiedAttachments[] = []
      const budget = { files: MAX_COPIED_FILES }
      for (const [index, { source, target }] of items.entries()) {
        try {
          results.push(await copyItem(scope, source, target, budget))
        } catch (error) {
          throw atItem(error, index)
        }
      }
      return results
    },
  }
}
