import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import type { Mounted } from './code-mirror.js'
import type { SyntaxProblem } from './script-syntax.js'

/**
 * An action's script in CodeMirror, with a syntax error marked beside its line as the server's sandbox would
 * parse it. The editor loads on first use; until then, or if it cannot load, a plain text box edits the same text.
 */
export function CodeEditor(props: {
  label: string
  value: string
  invalid: boolean
  onChange: (text: string) => void
}) {
  const host = useRef<HTMLDivElement>(null)
  const mounted = useRef<Mounted | null>(null)
  const [state, setState] = useState<'loading' | 'ready' | 'failed'>('loading')
  const [problem, setProblem] = useState<SyntaxProblem | null>(null)
  // The mount happens once; later renders reach the latest handler through this.
  const onChange = useRef(props.onChange)
  onChange.current = props.onChange
  const latest = useRef(props.value)
  latest.current = props.value

  useEffect(() => {
    let live = true
    import('./code-mirror.js').then(
      ({ mountEditor }) => {
        if (!live || !host.current) return
        mounted.current = mountEditor(host.current, {
          text: latest.current,
          label: props.label,
          onChange: (text) => onChange.current(text),
          onProblem: setProblem,
        })
        setState('ready')
      },
      () => live && setState('failed'),
    )
    return () => {
      live = false
      mounted.current?.destroy()
      mounted.current = null
    }
  }, [])
  // A layout effect runs in the render's own task, before the next keystroke: the editor then holds the text this
  // render was made from, and only a change from outside (a save, a removed action) is written into it. A deferred
  // effect could write an older text back over newer typing, and the two would chase each other.
  useLayoutEffect(() => mounted.current?.set(props.value), [props.value])

  return (
    <div class="code-editor">
      <div ref={host} class={props.invalid || problem ? 'code-host invalid' : 'code-host'} />
      {state !== 'ready' && (
        <textarea
          class="code"
          rows={8}
          spellcheck={false}
          aria-label={props.label}
          value={props.value}
          aria-invalid={props.invalid}
          onInput={(e) => props.onChange(e.currentTarget.value)}
        />
      )}
      {problem && (
        <p class="field-error syntax" role="status">
          Line {problem.line}, column {problem.column + 1}: {problem.message}
        </p>
      )}
    </div>
  )
}
