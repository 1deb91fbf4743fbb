import { parse } from 'acorn'

/**
 * The sandbox runs an action's source as the body of an async function (packages/scripts, `wrap`), with no line
 * added: parsed here the same way, an error's line is the user's line. ES2023 is the engine's (QuickJS) level.
 */
const PREFIX = '(async function () {'
const SUFFIX = '\n})()'

export interface SyntaxProblem {
  /** 1-based line and 0-based column in the user's source. */
  line: number
  column: number
  /** Offset in the user's source, for the editor's mark. */
  from: number
  message: string
}

interface AcornError extends SyntaxError {
  pos: number
  loc: { line: number; column: number }
}

/** The first syntax error of an action's source as the server's sandbox would see it, or null. */
export function syntaxProblem(source: string): SyntaxProblem | null {
  try {
    parse(PREFIX + source + SUFFIX, { ecmaVersion: 2023, sourceType: 'script' })
    return null
  } catch (err) {
    if (!(err instanceof SyntaxError) || !('pos' in err)) throw err
    const { pos, loc, message } = err as AcornError
    // Past the user's last character: the wrapper's closing brace was reached, the script ends too early.
    if (pos - PREFIX.length >= source.length) {
      const lines = source.split('\n')
      return {
        line: lines.length,
        column: lines[lines.length - 1]?.length ?? 0,
        from: source.length,
        message: 'Unexpected end of the script',
      }
    }
    return {
      line: loc.line,
      column: loc.line === 1 ? Math.max(loc.column - PREFIX.length, 0) : loc.column,
      from: Math.min(Math.max(pos - PREFIX.length, 0), source.length),
      // acorn appends "(line:column)" of the wrapped text: the console tells the user's own line instead.
      message: message.replace(/\s*\(\d+:\d+\)$/, ''),
    }
  }
}
