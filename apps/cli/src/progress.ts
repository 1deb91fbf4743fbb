import { SingleBar, Presets } from 'cli-progress'
import type { Io } from './io.js'

export interface Progress {
  tick(by?: number): void
  stop(): void
}

/** A progress bar on stderr when it is a terminal (cli-progress draws nothing otherwise), so stdout stays data. */
export function progress(io: Io, label: string, total: number): Progress {
  const bar = new SingleBar(
    { format: `${label} [{bar}] {value}/{total}`, stream: io.stderr, hideCursor: true, clearOnComplete: false },
    Presets.shades_classic,
  )
  bar.start(total, 0)
  return {
    tick: (by = 1) => bar.increment(by),
    stop: () => bar.stop(),
  }
}
