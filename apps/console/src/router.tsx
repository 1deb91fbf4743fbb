import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'

// History routing under /console/: every view has a real URL (the gateway answers deep links with index.html).
const BASE = '/console'

const current = () => location.pathname.replace(/^\/console\/?/, '/')

/** Asked before an in-app navigation leaves the page; false stays (an editor with unsaved changes). */
let leaveGuard: (() => boolean) | null = null
export function guardLeaving(guard: (() => boolean) | null) {
  leaveGuard = guard
}

/** `force`: the page itself moves on (after a save), nothing to confirm. */
export function navigate(path: string, { force = false } = {}) {
  if (!force && leaveGuard && !leaveGuard()) return
  history.pushState(null, '', BASE + path)
  dispatchEvent(new PopStateEvent('popstate'))
}

/** The path inside the console, e.g. `/definitions/books/documents`; re-renders on navigation. */
export function usePath(): string {
  const [path, setPath] = useState(current)
  useEffect(() => {
    const update = () => setPath(current())
    addEventListener('popstate', update)
    return () => removeEventListener('popstate', update)
  }, [])
  return path
}

export function Link(props: { href: string; children: ComponentChildren; class?: string }) {
  return (
    <a
      href={BASE + props.href}
      class={props.class}
      onClick={(event) => {
        if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return
        event.preventDefault()
        navigate(props.href)
      }}
    >
      {props.children}
    </a>
  )
}
