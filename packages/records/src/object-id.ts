import { ObjectId } from 'bson'

/** A new 24-hex record id; ObjectIds start with a timestamp, so ids sort in creation order. */
export function newObjectId(): string {
  return new ObjectId().toHexString()
}
