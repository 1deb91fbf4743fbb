import type { StoredRecord } from '../port.js'

/** A record as read: its stored JSON text, decoded only when something needs the record itself. */
export class Row {
  #record: StoredRecord | undefined
  constructor(
    readonly id: string,
    readonly json: string,
  ) {}

  /** Decoded on first use; each row decodes its own copy, which the caller may change. */
  get record(): StoredRecord {
    return (this.#record ??= JSON.parse(this.json) as StoredRecord)
  }
}
