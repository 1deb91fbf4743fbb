import type { ByteRange } from '@quire/files'

const SINGLE_RANGE = /^bytes=(\d*)-(\d*)$/

/**
 * The one byte range a `Range` header asks of a `size`-byte file (RFC 9110 §14): `undefined` to send the
 * whole file (no header, a syntax we ignore, several ranges, or an `If-Range` that no longer matches),
 * `'unsatisfiable'` for 416.
 */
export function requestedRange(
  header: string | undefined,
  ifRange: string | undefined,
  size: number,
  etag: string,
): ByteRange | 'unsatisfiable' | undefined {
  if (header === undefined || (ifRange !== undefined && ifRange !== etag)) return undefined
  const match = SINGLE_RANGE.exec(header.replace(/\s/g, ''))
  if (!match) return undefined
  const [, first = '', last = ''] = match
  if (first === '' && last === '') return undefined
  if (first === '') {
    // `bytes=-N`: the last N bytes.
    const length = Number(last)
    return length === 0 || size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - length), end: size - 1 }
  }
  const start = Number(first)
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1)
  if (last !== '' && Number(last) < start) return undefined
  return start >= size ? 'unsatisfiable' : { start, end }
}

/** `Content-Range` of a 206, or of a 416 when `range` is absent. */
export const contentRange = (size: number, range?: ByteRange): string =>
  range ? `bytes ${range.start}-${range.end}/${size}` : `bytes */${size}`
