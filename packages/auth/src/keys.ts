import { generateKeyPairSync } from 'node:crypto'
import { mkdir, readFile, rename, writeFile, link, unlink } from 'node:fs/promises'
import { join } from 'node:path'

export interface KeyPair {
  publicKey: string
  /** Only the users service signs; the others verify with the public key alone. */
  privateKey?: string
}

interface KeySources {
  dataDir: string
  privateKey?: string
  publicKey?: string
}

/**
 * The JWT keys: given PEMs win; a public key given alone means verify only (no private key, nothing generated:
 * the compose stack hands the private key to the users service only); with neither, one pair is generated into
 * `<dataDir>/keys` on first start. Several processes may start together on one data dir: the pair is published
 * with `link` (fails when it exists), so all of them end up with the same keys.
 */
export async function loadKeyPair(options: KeySources & { publicKey?: undefined }): Promise<Required<KeyPair>>
export async function loadKeyPair(options: KeySources): Promise<KeyPair>
export async function loadKeyPair(options: KeySources): Promise<KeyPair> {
  if (options.publicKey) {
    return options.privateKey
      ? { privateKey: options.privateKey, publicKey: options.publicKey }
      : { publicKey: options.publicKey }
  }
  const dir = join(options.dataDir, 'keys')
  const privatePath = join(dir, 'jwt-private.pem')
  const publicPath = join(dir, 'jwt-public.pem')
  await mkdir(dir, { recursive: true, mode: 0o700 })
  try {
    return { privateKey: await readFile(privatePath, 'utf8'), publicKey: await readFile(publicPath, 'utf8') }
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
  return { privateKey: await readFile(privatePath, 'utf8'), publicKey: await readFile(publicPath, 'utf8') }
}
