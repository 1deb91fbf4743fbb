import t from 'tap'
import type { Attachment } from '@quire/contracts'
import { keepAttachmentFields } from '../../src/lib/value-path.js'

const stored: Attachment = {
  _id: 'a1',
  _fileName: 'a.txt',
  _size: 5,
  _contentType: 'text/plain',
  store: 'file',
  _sha256: 'f'.repeat(64),
  _createdOn: '2024-01-01T00:00:00.000Z',
  _createdByUserId: 'u1',
}

t.test('the stored system fields of an attachment come back wherever a write puts it', async (t) => {
  const forged = { ...stored, _size: 1, _contentType: 'text/html', _fileName: 'x.html', _width: 9, note: 'mine' }
  const next = keepAttachmentFields({ files: [stored] }, { files: [], nested: { list: [forged] } })
  t.same(next, { files: [], nested: { list: [{ ...stored, note: 'mine' }] } })
})

t.test('attachments the write adds, and documents without attachments, are left as sent', async (t) => {
  const added = { ...stored, _id: 'new', _size: 1 }
  t.same(keepAttachmentFields({ files: [stored] }, { files: [stored, added] }).files, [stored, added])
  const plain = { title: 'x', list: [{ _id: 'a1' }] }
  t.equal(keepAttachmentFields({ title: 'y' }, plain), plain)
})
