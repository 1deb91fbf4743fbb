// `npm test` drives a real browser for the console's end-to-end tests: say how to get one before turbo starts.
import { accessSync, constants } from 'node:fs'

const chromium = process.env.QUIRE_TEST_CHROMIUM ?? '/usr/bin/chromium'
try {
  accessSync(chromium, constants.X_OK)
} catch {
  console.error(
    `npm test needs Chromium at ${chromium}: install Debian's (apt-get install -y chromium) or set QUIRE_TEST_CHROMIUM`,
  )
  process.exit(1)
}
