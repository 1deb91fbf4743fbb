// The overhead of a trivial run (`return 1`): a fresh QuickJS runtime and context, the guest API, the message
// round trip to a worker. Run after a build: `node packages/scripts/bench/run.mjs [runs]`.
import { performance } from 'node:perf_hooks'
import { availableParallelism, cpus } from 'node:os'
import { ScriptEngine } from '../dist/index.js'

const runs = Number(process.argv[2] ?? 5000)
const rest = async () => ({ status: 200, headers: {}, body: null })
const request = (tenant) => ({ source: 'return 1', tenant, globals: { serverDocument: { id: 'd1' } }, rest })

const engine = new ScriptEngine()
// Workers start lazily: start them (and warm the JIT) before measuring.
await Promise.all(Array.from({ length: 64 }, (_, i) => engine.run(request(`warm-${i}`))))

const sequential = async () => {
  let inWorker = 0
  const started = performance.now()
  for (let i = 0; i < runs; i++) {
    const outcome = await engine.run(request('one'))
    if (outcome.status !== 'ok') throw new Error(JSON.stringify(outcome))
    inWorker += outcome.durationMs
  }
  const ms = performance.now() - started
  return { perRunUs: (ms * 1000) / runs, inWorkerUs: (inWorker * 1000) / runs, opsPerSecond: (runs / ms) * 1000 }
}

const concurrent = async (inFlight) => {
  let next = 0
  const started = performance.now()
  const lane = async (lane) => {
    while (next++ < runs) await engine.run(request(`tenant-${lane}`))
  }
  await Promise.all(Array.from({ length: inFlight }, (_, i) => lane(i)))
  return { opsPerSecond: (runs / (performance.now() - started)) * 1000 }
}

const one = await sequential()
const many = await concurrent(16)
const { workers } = engine.stats()
await engine.close()

const fixed = (n, digits = 0) => n.toFixed(digits)
console.log(
  `node ${process.version}, ${cpus()[0]?.model ?? 'cpu'}, ${availableParallelism()} cores, ${workers} workers`,
)
console.log(`one at a time:  ${fixed(one.opsPerSecond)} runs/s, ${fixed(one.perRunUs)} µs per run end to end`)
console.log(
  `                (${fixed(one.inWorkerUs)} µs of it inside the worker: runtime, context, API, eval, dispose)`,
)
console.log(`16 in flight:   ${fixed(many.opsPerSecond)} runs/s`)
