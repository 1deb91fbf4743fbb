import type { RecordText, StoredRecord } from './port.js'

/** `findText` for adapters that hold records decoded: each record serialized. */
export function recordTexts(records: StoredRecord[]): RecordText[] {
  return records.map((record) => ({ _id: record._id, json: JSON.stringify(record) }))
}
