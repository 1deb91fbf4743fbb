// The action editor's heavy half, loaded only when a definition's actions are shown (a dynamic import):
// CodeMirror 6 and acorn stay out of the first load.
//
// The editor lives in a shadow root: CodeMirror writes its styles with style-mod, which uses a <style> element in
// a document (refused by the console's `style-src 'self'`) but a constructed style sheet in a shadow root, which
// the policy allows. The page's CSS does not reach inside, so the theme below carries the look; CSS variables
// are inherited, so it follows the light and dark palettes.
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands'
import { javascriptLanguage } from '@codemirror/lang-javascript'
import { bracketMatching, defaultHighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language'
import { linter, lintGutter } from '@codemirror/lint'
import { EditorState } from '@codemirror/state'
import { EditorView, highlightActiveLine, keymap, lineNumbers } from '@codemirror/view'
import { syntaxProblem, type SyntaxProblem } from './script-syntax.js'

export interface Mounted {
  /** Puts `text` in the editor when it differs (the list was reset from outside: a save, a removal). */
  set(text: string): void
  destroy(): void
}

/** The console's palette (style.css) for the editor: CSS variables reach into the shadow root. */
const theme = EditorView.theme({
  '&': {
    border: '1px solid var(--line)',
    borderRadius: '4px',
    background: 'var(--panel)',
    color: 'var(--fg)',
    minHeight: '8rem',
    fontSize: '0.9rem',
  },
  '&.cm-focused': { outline: '2px solid var(--focus)', outlineOffset: '1px' },
  '.cm-content': { caretColor: 'var(--fg)', fontFamily: 'ui-monospace, monospace' },
  '.cm-gutters': { background: 'var(--head-bg)', color: 'var(--muted)', borderRight: '1px solid var(--line)' },
  '.cm-activeLine, .cm-activeLineGutter': { background: 'color-mix(in srgb, var(--accent) 8%, transparent)' },
})

export function mountEditor(
  host: HTMLElement,
  options: {
    text: string
    label: string
    onChange: (text: string) => void
    onProblem: (p: SyntaxProblem | null) => void
  },
): Mounted {
  const root = host.shadowRoot ?? host.attachShadow({ mode: 'open' })
  const view = new EditorView({
    parent: root,
    root,
    state: EditorState.create({
      doc: options.text,
      extensions: [
        theme,
        lineNumbers(),
        history(),
        indentOnInput(),
        bracketMatching(),
        highlightActiveLine(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        javascriptLanguage,
        // Tab indents; Escape then Tab leaves the editor (CodeMirror's own way out for keyboards).
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        lintGutter(),
        linter(
          (editor) => {
            const problem = syntaxProblem(editor.state.doc.toString())
            options.onProblem(problem)
            if (!problem) return []
            const line = editor.state.doc.line(problem.line)
            const to = Math.min(Math.max(problem.from + 1, line.from + 1), line.to)
            return [{ from: Math.min(problem.from, to), to, severity: 'error', message: problem.message }]
          },
          { delay: 250 },
        ),
        EditorView.contentAttributes.of({ 'aria-label': options.label }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) options.onChange(update.state.doc.toString())
        }),
      ],
    }),
  })
  return {
    set(text) {
      const current = view.state.doc.toString()
      if (text !== current) view.dispatch({ changes: { from: 0, to: current.length, insert: text } })
    },
    destroy: () => view.destroy(),
  }
}
