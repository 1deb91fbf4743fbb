/** A list of entity tags (`"x"`, `W/"x"`, or unquoted) holding `*` or `tag`, compared weakly (RFC 9110 8.8.3.2). */
function listHolds(header: string, tag: string): boolean {
  return header.split(',').some((entry) => {
    const value = entry
      .trim()
      .replace(/^W\//, '')
      .replace(/^"(.*)"$/, '$1')
    return value === '*' || value === tag
  })
}

/** `If-Match`: `*`, or a list of (possibly weak, quoted) entity tags, one of which is `hash`. */
export const ifMatchAccepts = (header: string, hash: string): boolean => listHolds(header, hash)

/**
 * `If-None-Match` on a read (RFC 9110 13.1.2): true when the client's copy is current, i.e. the header is `*`
 * or a list holding the tag under the weak comparison. The answer is then 304 without a body.
 */
export const ifNoneMatchHits = (header: string | undefined, tag: string): boolean =>
  header !== undefined && listHolds(header, tag)
