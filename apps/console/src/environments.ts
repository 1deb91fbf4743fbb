import { useEffect, useState } from 'preact/hooks'
import { dataOf, quire, type Data } from './api.js'

export type Environment = Data<'listEnvironments'>[number]

const listeners = new Set<() => void>()

/** Tells every list on the page (the switcher, the environments page) to load again after a change. */
export const environmentsChanged = () => listeners.forEach((listener) => listener())

/**
 * The environments the signed-in user may enter: every one for a super-administrator (deactivated included),
 * the active ones with an active entry for anyone else. Null until answered or when the API refuses.
 */
export function useEnvironments() {
  const [list, setList] = useState<Environment[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [tick, setTick] = useState(0)
  useEffect(() => {
    const reload = () => setTick((n) => n + 1)
    listeners.add(reload)
    return () => {
      listeners.delete(reload)
    }
  }, [])
  useEffect(() => {
    let live = true
    dataOf(quire.GET('/api/v2/environments')).then(
      (environments) => {
        if (!live) return
        setList(environments)
        setError(null)
      },
      (err: unknown) => {
        if (!live) return
        setList(null)
        setError(err)
      },
    )
    return () => {
      live = false
    }
  }, [tick])
  return { list, error }
}
