/** `If-Match`: `*`, or a list of (possibly weak, quoted) entity tags, one of which is `hash`. */
export function ifMatchAccepts(header: string, hash: string): boolean {
  return header.split(',').some((tag) => {
    const value = tag
      .trim()
      .replace(/^W\//, '')
      .replace(/^"(.*)"$/, '$1')
    return value === '*' || value === hash
  })
}
