import { SubscriptionRefused, type Change, type Subscription } from '@quire/client'
import { useEffect, useRef, useState } from 'preact/hooks'
import { quire, session } from './api.js'

/** Several changes in a burst (an import, a script) reload a list once. */
const COALESCE_MS = 250

/**
 * Follows the changes of definition `dd`'s documents through the change feed while the page is shown: `onChange`
 * gets each change, or `undefined` when some may have been missed (the stream just opened, so a change between
 * the page's first read and now is not lost; or the resume point is too old): read again then. Answers whether
 * the stream is open.
 *
 * Fetch-based SSE through the typed client (EventSource cannot send the bearer token): the token is the session's
 * at each connection, a 401 goes through the session renewal, and a reconnection resumes with `Last-Event-ID`.
 * It stops when the page is left and at sign-out, and resumes where it stopped after a sign-in in place.
 */
export function useChanges(dd: string, onChange: (change: Change | undefined) => void): boolean {
  const latest = useRef(onChange)
  latest.current = onChange
  const [open, setOpen] = useState(false)
  useEffect(() => {
    let subscription: Subscription | null = null
    let lastEventId: string | undefined
    let first = true
    // Stopped by a sign-out or an ended session, not by a refusal: a sign-in starts it again.
    let paused = false
    const start = () => {
      const current = quire.subscribe(
        dd,
        {
          lastEventId,
          onOpen: () => {
            setOpen(true)
            if (first) latest.current(undefined)
            first = false
          },
        },
        (change) => latest.current(change),
      )
      subscription = current
      const ended = (error?: unknown) => {
        if (subscription !== current) return
        subscription = null
        lastEventId = current.lastEventId
        setOpen(false)
        // Too old to resume: read everything again and follow from now. Other refusals (a 401 that no renewal
        // cured, a 403, a 404) stop it: the page says what is wrong when it reads again.
        if (error instanceof SubscriptionRefused && error.status === 410) {
          lastEventId = undefined
          latest.current(undefined)
          start()
        }
      }
      current.done.then(() => ended(), ended)
    }
    const stop = () => {
      if (subscription) lastEventId = subscription.lastEventId
      subscription?.close()
      subscription = null
      setOpen(false)
    }
    start()
    // Signed out (or the session ended): stop. Signed in again in place: resume where it stopped.
    const unsubscribe = session.subscribe((value) => {
      if (!value) {
        paused = true
        stop()
      } else if (paused) {
        paused = false
        start()
      }
    })
    return () => {
      unsubscribe()
      stop()
    }
  }, [dd])
  return open
}

/** `run`, called at most once per short window however often `soon()` is: for reloads on bursts of changes. */
export function useCoalesced(run: () => void): () => void {
  const latest = useRef(run)
  latest.current = run
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  useEffect(() => () => clearTimeout(timer.current), [])
  return () => {
    timer.current ??= setTimeout(() => {
      timer.current = undefined
      latest.current()
    }, COALESCE_MS)
  }
}
