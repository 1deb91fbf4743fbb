// Quire's all-in-one as `BENCH_PROCESSES` processes on one data directory and one port (`node:cluster`), so that
// the bench can measure it beside one process: `BENCH_VARIANT="BENCH_PROCESSES=2" node bench/run.mjs`. Not a
// way to run Quire: its per-process limits (request budgets, work accounts, subscription caps, the script pool)
// are not shared between the processes.
import cluster from 'node:cluster'

if (cluster.isPrimary) {
  // Each process accepts its own connections (as the kernel hands them out), not the primary in turn for all.
  cluster.schedulingPolicy = cluster.SCHED_NONE
  const workers = Array.from({ length: Number(process.env.BENCH_PROCESSES) }, () => cluster.fork())
  const exited = workers.map((worker) => new Promise((resolve) => worker.once('exit', resolve)))
  process.once('SIGTERM', async () => {
    workers.forEach((worker) => worker.kill('SIGTERM'))
    await Promise.all(exited)
    process.exit(0)
  })
} else {
  await import('../apps/gateway/dist/server.js')
}
