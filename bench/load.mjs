// Drives one scenario with autocannon, in its own process so the load generator does not share the
// server's event loop. Input: a JSON scenario file named in argv[2]. Output: one JSON line of results.
import { readFileSync } from 'node:fs'
import autocannon from 'autocannon'

const { url, connections, duration, method, requests, headers, bodyFile } = JSON.parse(
  readFileSync(process.argv[2], 'utf8'),
)
const body = bodyFile ? readFileSync(bodyFile) : undefined
let i = 0
const result = await autocannon({
  url,
  connections,
  duration,
  headers,
  requests: [
    {
      method,
      setupRequest(request) {
        const next = requests[i++ % requests.length]
        return {
          ...request,
          ...(next.method ? { method: next.method } : {}),
          path: next.path,
          ...(next.body !== undefined ? { body: next.body } : body ? { body } : {}),
        }
      },
    },
  ],
})
const ok = result['2xx']
console.log(
  JSON.stringify({
    // Over the run's own length: autocannon's average is of whole-second samples, coarse for a run of a few seconds.
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statuses: Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count]),
    ),
  }),
)
