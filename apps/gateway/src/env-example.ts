import { writeFileSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { renderEnvExample } from '@quire/service-kit'
import { ConfigSchema } from './config.js'

const HEADER = `Every variable a Quire server reads, with its default: generated from the config schemas by \`npm run env:example\` (a test fails when this file differs). All are optional.
Copy to .env beside where you start Quire (it is read at start; variables already in the environment win), or export them.
Any variable can come from a file instead: NAME_FILE=/path/to/file (key files, Docker secrets); one final line ending of the file is not part of the value.`

/** Variables their schema does not describe: every variable needs a `description` there. */
export const undescribed = (): string[] =>
  Object.entries(ConfigSchema.properties)
    .filter(([, property]) => !(property as { description?: string }).description)
    .map(([name]) => name)

/** The text `.env.example` holds: every variable of the all-in-one gateway, which reads every service's too. */
export const envExample = (): string => renderEnvExample(ConfigSchema, { header: HEADER })

/** Where `.env.example` lives: the repository root, from `apps/gateway/{src,dist}`. */
export const ENV_EXAMPLE_PATH = fileURLToPath(new URL('../../../.env.example', import.meta.url))

// `node apps/gateway/dist/env-example.js` (npm run env:example) writes the file.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(ENV_EXAMPLE_PATH, envExample())
}
