/** How long an upstream's `/ready` has to answer. */
const PROBE_TIMEOUT_MS = 1000
/** How long one outcome stands: however hard the gateway's `/ready` is polled, an upstream gets one probe per period. */
const PROBE_CACHE_MS = 2000

/**
 * The gateway's readiness check for one proxied service: resolves when the service's own `/ready` answers 200
 * within the timeout, rejects otherwise. A probe in progress is shared and its outcome kept briefly, so the
 * gateway's `/ready` cannot be used to multiply calls to the services behind it.
 */
export function upstreamReadiness(upstream: string, now: () => number = Date.now): () => Promise<void> {
  const url = new URL('/ready', upstream)
  let probe: Promise<void> | undefined
  let expiresAt = 0
  const run = async (): Promise<void> => {
    const res = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) })
    await res.body?.cancel()
    if (res.status !== 200) throw new Error(`${url.href} answered ${res.status}`)
  }
  return () => {
    if (probe === undefined || now() >= expiresAt) {
      expiresAt = Number.POSITIVE_INFINITY
      probe = run().finally(() => {
        expiresAt = now() + PROBE_CACHE_MS
      })
    }
    return probe
  }
}
