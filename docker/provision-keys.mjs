// Provisions the JWT key pair, the secrets key and the run token key for the compose stack (its `keys` job runs
// this as root, once per `up`):
//   node provision-keys.mjs <private dir> <public dir> <shared dir> <uid>:<gid>
// The private key and the secrets key (`secrets.key`: 32 random bytes in base64, sealing 2FA secrets at rest) go
// to <private dir>, owned by <uid>:<gid> (the users service's user) and readable by it alone (files 0400, folder
// 0700); only the users service mounts that volume, so all its replicas share them. The public key goes to
// <public dir>, owned by the user running this, read-only for everyone (0444 in 0755): every service mounts it,
// none can change it. The run token key (`run-token.key`: 32 random bytes in base64, signing scripts' run tokens)
// goes to <shared dir>, owned by <uid>:<gid> as the private key (0400 in 0700): every service that verifies tokens
// mounts it (they all run as that user), none mounts the private key for it. The webhooks key (`webhooks.key`,
// sealing webhook signing secrets, read by every documents replica) goes beside it. Existing private, secrets, run
// token and webhooks keys are kept (tokens and sealed secrets stay valid across restarts); the public key is derived from the
// private one again.
import { createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto'
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const [privateDir, publicDir, sharedDir, owner] = process.argv.slice(2)
const [uid, gid] = (owner ?? '').split(':').map(Number)
if (!privateDir || !publicDir || !sharedDir || !Number.isInteger(uid) || !Number.isInteger(gid)) {
  console.error('usage: node provision-keys.mjs <private dir> <public dir> <shared dir> <uid>:<gid>')
  process.exit(2)
}

/** Written beside, then renamed: a service starting meanwhile reads the old file or the new one, never half. */
function place(path, content, mode, fileUid, fileGid) {
  const temp = `${path}.${process.pid}.tmp`
  writeFileSync(temp, content, { mode })
  chownSync(temp, fileUid, fileGid)
  chmodSync(temp, mode)
  renameSync(temp, path)
}

mkdirSync(privateDir, { recursive: true })
mkdirSync(publicDir, { recursive: true })
mkdirSync(sharedDir, { recursive: true })
const privatePath = join(privateDir, 'jwt-private.pem')
const publicPath = join(publicDir, 'jwt-public.pem')
const secretsPath = join(privateDir, 'secrets.key')
const runTokenPath = join(sharedDir, 'run-token.key')
const webhooksPath = join(sharedDir, 'webhooks.key')
const randomKey = () => `${randomBytes(32).toString('base64')}\n`

let privateKey
if (existsSync(privatePath)) {
  privateKey = readFileSync(privatePath, 'utf8')
} else {
  privateKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
    type: 'pkcs8',
    format: 'pem',
  })
  place(privatePath, privateKey, 0o400, uid, gid)
}
if (!existsSync(secretsPath)) place(secretsPath, randomKey(), 0o400, uid, gid)
if (!existsSync(runTokenPath)) place(runTokenPath, randomKey(), 0o400, uid, gid)
if (!existsSync(webhooksPath)) place(webhooksPath, randomKey(), 0o400, uid, gid)
const publicKey = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' })
const self = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 }
place(publicPath, publicKey, 0o444, self.uid, self.gid)

// Modes and owners set every run, so a volume from an earlier layout is brought to this one.
for (const path of [privatePath, secretsPath, runTokenPath, webhooksPath]) {
  chownSync(path, uid, gid)
  chmodSync(path, 0o400)
}
for (const dir of [privateDir, sharedDir]) {
  chownSync(dir, uid, gid)
  chmodSync(dir, 0o700)
}
chownSync(publicDir, self.uid, self.gid)
chmodSync(publicDir, 0o755)
console.log(
  `keys: private and secrets keys for ${uid}:${gid} in ${privateDir}, run token and webhooks keys in ${sharedDir}, public key in ${publicDir}`,
)
