#!/usr/bin/env node
import { processEnvironment } from '@quire/service-kit'
import { run } from './program.js'

// The same variables as the services, `./.env` included.
const io = { env: processEnvironment(), stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }
process.exitCode = await run(process.argv.slice(2), io)
