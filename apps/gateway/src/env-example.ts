import { writeFileSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { renderEnvExample } from '@quire/service-kit'
import { ConfigSchema } from './config.js'

const HEADER = `Every variable a Quire server reads, with its default: generated from the config schemas by \`npm run env:example\` (a test fails when this file differs). All are optional.
Copy to .env beside where you start Quire (it is read at start; variables already in the environment win), or export them.
Any variable can come from a file instead: NAME_FILE=/path/to/file (key files, Docker secrets).`

/**
 * Descriptions of variables whose schema has none (the documents service's config module): a schema
 * `description` wins, so each line here can go once its variable's owner describes it there.
 */
const DESCRIPTIONS: Readonly<Record<string, string>> = {
  QUIRE_S3_ENDPOINT: 'Set to keep attachment files in MinIO / S3 instead of the data dir (host name, e.g. localhost).',
  QUIRE_S3_PORT: 'S3 port (e.g. 9000 for MinIO).',
  QUIRE_S3_USE_SSL: 'Speak HTTPS to the S3 endpoint.',
  QUIRE_S3_ACCESS_KEY: 'S3 access key.',
  QUIRE_S3_SECRET_KEY: 'S3 secret key.',
  QUIRE_S3_BUCKET: 'Bucket for attachment files; the documents service creates it when missing.',
  QUIRE_S3_REGION: 'S3 region.',
  QUIRE_MAX_FILE_SIZE: 'Largest attachment in bytes.',
  QUIRE_MAX_FILES: 'Most files in one upload call.',
  QUIRE_UPLOAD_DIR: 'Where uploads are spooled on their way to the file store (default: the OS temp dir).',
}

/** Variables described neither in their schema nor above: a new variable needs a `description` in its schema. */
export const undescribed = (): string[] =>
  Object.entries(ConfigSchema.properties)
    .filter(([name, property]) => !(property as { description?: string }).description && !DESCRIPTIONS[name])
    .map(([name]) => name)

/** The text `.env.example` holds: every variable of the all-in-one gateway, which reads every service's too. */
export const envExample = (): string => renderEnvExample(ConfigSchema, { header: HEADER, descriptions: DESCRIPTIONS })

/** Where `.env.example` lives: the repository root, from `apps/gateway/{src,dist}`. */
export const ENV_EXAMPLE_PATH = fileURLToPath(new URL('../../../.env.example', import.meta.url))

// `node apps/gateway/dist/env-example.js` (npm run env:example) writes the file.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(ENV_EXAMPLE_PATH, envExample())
}
