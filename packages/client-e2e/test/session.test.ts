import t from 'tap'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { testResources } from '@quire/testing'
import { ADMIN, serve } from './serve.js'
import { session } from './session.js'

t.test('the session type-checks against the generated schema', async (t) => {
  const file = fileURLToPath(new URL('./session.ts', import.meta.url))
  const config = ts.getParsedCommandLineOfConfigFile(
    fileURLToPath(new URL('../tsconfig.json', import.meta.url)),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  )
  if (!config) throw new Error('no tsconfig')
  const program = ts.createProgram([file], { ...config.options, noEmit: true })
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))
  t.same(diagnostics, [], 'no type errors, and every @ts-expect-error is an error')
})

t.test('a session against the all-in-one server', async (t) => {
  const resources = await testResources(t)
  const baseUrl = await serve(t, resources)

  const result = await session(baseUrl, ADMIN)
  t.equal(result.environmentId, 'default')
  t.equal(result.listedIds.length, 1)
  t.equal(result.readTitle, 'first')
  t.same(result.downloaded, { type: 'text/plain', text: 'hello attachments' }, 'uploaded and downloaded, typed')
  t.match(result.missing, { status: 404, code: 'document_not_found', userDescription: /does not exist/ })
})
