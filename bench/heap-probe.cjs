// Preloaded into a bench's server, never into Quire itself: on SIGUSR2 a full collection, then the memory in use
// (JavaScript heap and what it holds outside it: buffers) on stderr, so a bench reads live memory, not garbage.
process.on('SIGUSR2', () => {
  globalThis.gc()
  const { heapUsed, external } = process.memoryUsage()
  process.stderr.write(`heap-probe ${heapUsed + external}\n`)
})
