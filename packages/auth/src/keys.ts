import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { chmod, link, mkdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

export interface KeyPair {
  publicKey: string
  /** Only the users service signs; the others verify with the public key alone. */
  privateKey?: string
  /**
   * 32 bytes sealing secrets at rest (TOTP secrets, recovery codes), held with the private key: given beside it,
   * or generated beside a generated pair. Never generated beside a given private key: the replicas of the users
   * service must all hold the same one.
   */
  secretsKey?: Buffer
}

interface KeySources {
  dataDir: string
  privateKey?: string
  publicKey?: string
  /** Base64 of 32 bytes; one trailing newline (a key file's) is fine. */
  secretsKey?: string
}

const SECRETS_KEY_BYTES = 32

/** The base64 text of a secrets key, checked; its bytes. `name` is the setting the error names. */
export function decodeSecretsKey(text: string, name = 'the secrets key'): Buffer {
  const key = Buffer.from(text.trim(), 'base64')
  if (key.length !== SECRETS_KEY_BYTES || key.toString('base64') !== text.trim()) {
    throw new Error(`${name} must be ${SECRETS_KEY_BYTES} bytes in base64 (e.g. \`openssl rand -base64 32\`)`)
  }
  return key
}

/**
 * `path`'s content, written first when missing. Processes starting together on one data dir each write their
 * own beside it and publish it with `link` (which fails when `path` exists), so all of them read the same one.
 */
async function readOrCreate(path: string, create: () => string): Promise<string> {
  try {
    return await readFile(path, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
  const temp = `${path}.${process.pid}-${randomBytes(6).toString('hex')}`
  await writeFile(temp, create(), { mode: 0o600 })
  try {
    await link(temp, path)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
  } finally {
    await unlink(temp).catch(() => undefined)
  }
  return readFile(path, 'utf8')
}

/**
 * The JWT keys and the secrets key: given PEMs win; a public key given alone means verify only (no private key,
 * nothing generated: the compose stack hands the private key to the users service only); with neither, one pair
 * is generated into `<dataDir>/keys` on first start, and a secrets key beside it (`secrets.key`, base64) unless
 * one is given. Several processes may start together on one data dir: the pair is published with `link` (fails
 * when it exists), so all of them end up with the same keys. The folder is 0700 and the files 0600.
 */
export async function loadKeyPair(options: KeySources & { publicKey?: undefined }): Promise<Required<KeyPair>>
export async function loadKeyPair(options: KeySources): Promise<KeyPair>
export async function loadKeyPair(options: KeySources): Promise<KeyPair> {
  const given = options.secretsKey ? { secretsKey: decodeSecretsKey(options.secretsKey) } : {}
  if (options.publicKey) {
    return options.privateKey
      ? { privateKey: options.privateKey, publicKey: options.publicKey, ...given }
      : { publicKey: options.publicKey }
  }
  const dir = join(options.dataDir, 'keys')
  const privatePath = join(dir, 'jwt-private.pem')
  const publicPath = join(dir, 'jwt-public.pem')
  await mkdir(dir, { recursive: true, mode: 0o700 })
  if (((await stat(dir)).mode & 0o077) !== 0) await chmod(dir, 0o700)
  const secretsKey =
    given.secretsKey ??
    decodeSecretsKey(
      await readOrCreate(join(dir, 'secrets.key'), () => `${randomBytes(SECRETS_KEY_BYTES).toString('base64')}\n`),
    )
  try {
    const privateKey = await readFile(privatePath, 'utf8')
    return { privateKey, publicKey: await readFile(publicPath, 'utf8'), secretsKey }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
  const pair = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  })
  const suffix = `${process.pid}-${Date.now()}`
  await writeFile(`${publicPath}.${suffix}`, pair.publicKey, { mode: 0o600 })
  await rename(`${publicPath}.${suffix}`, `${publicPath}.${suffix}.ready`)
  await writeFile(`${privatePath}.${suffix}`, pair.privateKey, { mode: 0o600 })
  try {
    // The public key first, so a reader that finds the private key always finds its public key too.
    await link(`${publicPath}.${suffix}.ready`, publicPath)
    await link(`${privatePath}.${suffix}`, privatePath)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
  } finally {
    await unlink(`${publicPath}.${suffix}.ready`).catch(() => undefined)
    await unlink(`${privatePath}.${suffix}`).catch(() => undefined)
  }
  return { privateKey: await readFile(privatePath, 'utf8'), publicKey: await readFile(publicPath, 'utf8'), secretsKey }
}
