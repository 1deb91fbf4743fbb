import type { ComponentChildren } from 'preact'
import { useCallback, useEffect, useState } from 'preact/hooks'
import { ApiError } from './api.js'

/** Runs `load` when `deps` change and keeps its result, its error and a way to run it again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [value, setValue] = useState<T | undefined>(undefined)
  const [error, setError] = useState<unknown>(null)
  const [tick, setTick] = useState(0)
  useEffect(() => {
    let live = true
    setError(null)
    load().then(
      (result) => live && setValue(result),
      (err: unknown) => live && setError(err),
    )
    return () => {
      live = false
    }
  }, [...deps, tick])
  const reload = useCallback(() => setTick((n) => n + 1), [])
  return { value, error, reload }
}

/** An action's pending state and error: `run(fn)` shows the API's userDescription when fn throws. */
export function useAction() {
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  // Fire and forget: the outcome is in `busy` and `error`, so handlers need not handle a promise.
  const run = (fn: () => Promise<unknown>) => {
    setBusy(true)
    setError(null)
    fn().then(
      () => setBusy(false),
      (err: unknown) => {
        setError(err)
        setBusy(false)
      },
    )
  }
  return { error, busy, run, setError }
}

export const messageOf = (error: unknown): string =>
  error instanceof ApiError ? error.userDescription : error instanceof Error ? error.message : String(error)

/** The API's plain sentence, and below it the technical reason when it says more (which field, which rule). */
export function ErrorText({ error }: { error: unknown }) {
  if (!error) return null
  const reason = error instanceof ApiError ? error.reason : ''
  return (
    <p class="error" role="alert">
      {messageOf(error)}
      {reason && <small class="reason">{reason}</small>}
    </p>
  )
}

export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <p class="notice" role="status">
      {children}
    </p>
  )
}

/** A two-step button: the first press asks, the second (on "Yes") does it. No window.confirm: it stays in the page. */
export function ConfirmButton(props: { label: string; question: string; onConfirm: () => void; danger?: boolean }) {
  const [asking, setAsking] = useState(false)
  if (!asking) {
    return (
      <button type="button" class={props.danger ? 'danger' : ''} onClick={() => setAsking(true)}>
        {props.label}
      </button>
    )
  }
  return (
    <span class="confirm" role="group" aria-label={props.question}>
      <span>{props.question}</span>
      <button
        type="button"
        class="danger"
        ref={(el) => el?.focus()}
        onClick={() => {
          setAsking(false)
          props.onConfirm()
        }}
      >
        Yes
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        No
      </button>
    </span>
  )
}

/** JSON text → value, or a readable error naming the box. */
export function parseJson(label: string, text: string): unknown {
  if (!text.trim()) return undefined
  try {
    return JSON.parse(text)
  } catch (err) {
    throw new Error(`${label} is not valid JSON: ${(err as Error).message}`)
  }
}

export const formatBytes = (size: number): string =>
  size < 1024
    ? `${size} B`
    : size < 1024 ** 2
      ? `${(size / 1024).toFixed(1)} kB`
      : `${(size / 1024 ** 2).toFixed(1)} MB`

/** The page's heading, and the tab's title after it: each page tells which it is in the history and tab bar. */
export function Title({ text }: { text: string }) {
  useEffect(() => {
    document.title = `${text} · Quire`
  }, [text])
  return <h1>{text}</h1>
}
