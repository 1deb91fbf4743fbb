import { FilesError } from './errors.js'
import type { ByteRange } from './port.js'

/** Ranges are inclusive and must lie inside the file. */
export function checkRange(range: ByteRange, size: number): void {
  const { start, end } = range
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end < start || end >= size) {
    throw new FilesError(`range ${start}-${end} is outside the ${size} bytes of the file`)
  }
}
