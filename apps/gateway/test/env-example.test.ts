import { readFile } from 'node:fs/promises'
import t from 'tap'
import { ConfigSchema } from '../src/config.js'
import { ENV_EXAMPLE_PATH, envExample, undescribed } from '../src/env-example.js'

t.test('.env.example is what `npm run env:example` writes from the config schemas', async (t) => {
  const onDisk = await readFile(ENV_EXAMPLE_PATH, 'utf8')
  t.equal(onDisk, envExample(), 'run `npm run env:example` and commit .env.example')
})

t.test('it names every variable, each with its default', async (t) => {
  const text = envExample()
  for (const [name, property] of Object.entries(ConfigSchema.properties)) {
    const fallback = (property as { default?: unknown }).default
    const line = fallback === undefined ? `# ${name}=` : `${name}=`
    t.ok(
      text.split('\n').some((l) => l.startsWith(line) && (fallback === undefined || l.includes(String(fallback)))),
      name,
    )
  }
})

t.test('every variable is described (give a new one a `description` in its config schema)', async (t) => {
  t.same(undescribed(), [])
})
