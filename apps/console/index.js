import { fileURLToPath } from 'node:url'

/** The built console (`vite build` output): the gateway serves this folder at /console. */
export const dist = fileURLToPath(new URL('./dist/', import.meta.url))
