import type { TObject, TSchema } from '@sinclair/typebox'

const WIDTH = 116

function comment(text: string): string[] {
  const lines: string[] = []
  let line = '#'
  for (const word of text.split(/\s+/)) {
    if (line.length + 1 + word.length > WIDTH && line !== '#') {
      lines.push(line)
      line = '#'
    }
    line += ` ${word}`
  }
  lines.push(line)
  return lines
}

/** A value as a line of both a shell and Node's `.env` parser read it: quoted when it has spaces or symbols. */
const quoted = (value: string): string => (/^[\w.,:/@*+-]*$/.test(value) ? value : JSON.stringify(value))

/**
 * An env file listing every variable of `schema` in its order: its schema description as a comment, then
 * `NAME=default`, or `# NAME=` when it has no default.
 */
export function renderEnvExample(schema: TObject, options: { header: string }): string {
  const out = [...options.header.split('\n').flatMap(comment), '']
  for (const [name, property] of Object.entries(schema.properties) as [string, TSchema][]) {
    const description = property.description as string | undefined
    if (description) out.push(...comment(description))
    const fallback: unknown = property.default
    out.push(fallback === undefined ? `# ${name}=` : `${name}=${quoted(String(fallback))}`)
  }
  return `${out.join('\n')}\n`
}
