// Where the time goes: a V8 CPU profile (`node --cpu-prof`) summed by self time, by area (a Quire package, a
// dependency, Node itself, the garbage collector) and by function, as Markdown.

/** The area a frame's script belongs to: a workspace folder, a dependency's name, or Node / V8 itself. */
function area(url, functionName, root) {
  if (!url) return functionName.startsWith('(') ? functionName : 'V8 and native code'
  if (url.startsWith('node:')) return 'Node.js internals'
  const path = url.replace(/^file:\/\//, '')
  const dependency = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)
  if (dependency) return dependency[1]
  const workspace = /^((?:apps|packages)\/[^/]+)\//.exec(path.startsWith(root) ? path.slice(root.length) : path)
  return workspace ? workspace[1] : path
}

const where = (url, line, root) =>
  `${url
    .replace(/^file:\/\//, '')
    .replace(root, '')
    .replace(/.*node_modules\//, '')}:${line + 1}`

/** Sums the samples of the last `seconds` before the profile ended (the load, not the server's start). */
export function summarizeProfile({ nodes, samples, timeDeltas, endTime }, { root, seconds, top = 12 }) {
  const byId = new Map(nodes.map((node) => [node.id, node]))
  const self = new Map()
  const from = endTime - seconds * 1e6
  let at = endTime - timeDeltas.reduce((sum, delta) => sum + delta, 0)
  samples.forEach((id, i) => {
    at += timeDeltas[i]
    if (at >= from) self.set(id, (self.get(id) ?? 0) + timeDeltas[i])
  })
  const areas = new Map()
  const functions = new Map()
  let busy = 0
  let idle = 0
  for (const [id, time] of self) {
    const { functionName, url, lineNumber } = byId.get(id).callFrame
    if (functionName === '(idle)') {
      idle += time
      continue
    }
    busy += time
    const name = area(url, functionName, root)
    areas.set(name, (areas.get(name) ?? 0) + time)
    const key = `${functionName || '(anonymous)'} ${url ? where(url, lineNumber, root) : ''}`.trim()
    functions.set(key, (functions.get(key) ?? 0) + time)
  }
  const rank = (map) => [...map].sort((a, b) => b[1] - a[1]).slice(0, top)
  const percent = (time) => `${((time / busy) * 100).toFixed(1)}%`
  // A main thread idle for much of the run waits on something else (commits, the disk), not on its own code.
  const lines = [`\nThe main thread was busy ${((busy / (busy + idle)) * 100).toFixed(0)}% of the run.`]
  lines.push('', '| area (self time, of busy time) | share |', '| --- | ---: |')
  for (const [name, time] of rank(areas)) lines.push(`| ${name} | ${percent(time)} |`)
  lines.push('', '| function (self time) | share |', '| --- | ---: |')
  for (const [name, time] of rank(functions)) lines.push(`| \`${name}\` | ${percent(time)} |`)
  return lines.join('\n')
}
