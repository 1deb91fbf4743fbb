import { readFileSync } from 'node:fs'
import { Command, CommanderError, InvalidArgumentError } from 'commander'
import { ConfigError } from '@quire/service-kit'
import { createAdministrator, resetPassword } from './commands/accounts.js'
import { backup, restore } from './commands/backup.js'
import { listMail } from './commands/mail.js'
import { exportEnvironment, importEnvironment } from './commands/transfer.js'
import { upgrade } from './commands/upgrade.js'
import { CliError, type Io } from './io.js'

/** The CLI's own version: `package.json` sits one folder above `src/` and `dist/` alike. */
const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
  .version

const ENVIRONMENT_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/

function environmentId(value: string): string {
  if (!ENVIRONMENT_ID.test(value)) throw new InvalidArgumentError(`must match ${ENVIRONMENT_ID.source}`)
  return value
}

function positiveInteger(value: string): number {
  const number = Number(value)
  if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError('must be a positive integer')
  return number
}

/** The `quire` command tree; errors go to `io.stderr`, and nothing calls `process.exit`. */
function program(io: Io): Command {
  const quire = new Command('quire')
    .description('Operate a Quire installation: accounts, backups, environments, upgrades, mail')
    .version(VERSION, '-V, --version', 'print the version of quire')
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) })
    .showHelpAfterError('(run `quire help` for the commands)')
    .allowExcessArguments(false)
    .addHelpText('after', '\nReads the same QUIRE_* variables as the services (QUIRE_DATA_DIR, QUIRE_MONGO_URL, ...).')

  const admin = quire.command('admin').description('administrators')
  admin
    .command('create <username>')
    .description('create a super-administrator, or with --environment an administrator of one environment')
    .option('--environment <id>', 'the environment the administrator administers', environmentId)
    .option('--password-stdin', 'read the password from stdin (otherwise one is generated and printed once)')
    .action((username: string, options: { environment?: string; passwordStdin?: boolean }) =>
      createAdministrator(io, username, options),
    )

  quire
    .command('password')
    .description('passwords')
    .command('reset <username>')
    .description("set a user's password and end every session of the user")
    .option('--password-stdin', 'read the password from stdin (otherwise one is generated and printed once)')
    .action((username: string, options: { passwordStdin?: boolean }) => resetPassword(io, username, options))

  quire
    .command('backup <dir>')
    .description('copy the embedded store and the local files into an empty <dir>, consistently, while Quire runs')
    .action((dir: string) => backup(io, dir))
  quire
    .command('restore <dir>')
    .description('put a backup in place in QUIRE_DATA_DIR (every Quire process stopped)')
    .option('--force', 'replace the store QUIRE_DATA_DIR holds')
    .action((dir: string, options: { force?: boolean }) => restore(io, dir, options))

  quire
    .command('export <environmentId> <target>')
    .description('write one environment as NDJSON: into <target>/environment.ndjson with its files, or <file>.ndjson')
    .action((id: string, target: string) => exportEnvironment(io, environmentId(id), target))
  quire
    .command('import <source>')
    .description('read an export (a directory or an .ndjson file) into a new environment')
    .option('--as <environmentId>', 'the new environment (default: the exported one)', environmentId)
    .action((source: string, options: { as?: string }) => importEnvironment(io, source, options))

  quire
    .command('upgrade')
    .description('open the store and create every missing index the services declare, saying what it did')
    .action(() => upgrade(io))

  quire
    .command('mail')
    .description('the mail outbox')
    .command('list')
    .description('the newest mails: date, status, recipient, subject (never their text)')
    .option('--limit <n>', 'how many', positiveInteger, 20)
    .action((options: { limit: number }) => listMail(io, options))

  return quire
}

/** Runs `quire <argv>`; resolves to the exit code. */
export async function run(argv: readonly string[], io: Io): Promise<number> {
  try {
    await program(io).parseAsync([...argv], { from: 'user' })
    return 0
  } catch (err) {
    // Commander has printed its own message (or the help, which is no failure).
    if (err instanceof CommanderError) return err.exitCode
    if (err instanceof CliError || err instanceof ConfigError) {
      io.stderr.write(`quire: ${err.message}\n`)
      return 1
    }
    // Anything else is a fault of ours or of the machine (a full disk, a store that will not open): one line, and
    // the stack only when asked for.
    const message = err instanceof Error ? err.message : String(err)
    io.stderr.write(`quire: failed: ${message.split('\n')[0]}\n`)
    if (io.env.QUIRE_DEBUG) io.stderr.write(`${err instanceof Error ? err.stack : ''}\n`)
    return 2
  }
}
