export { authPlugin, type AuthOptions, type Caller, type AccessTokenClaims } from './plugin.js'
export { recordsIdentity, hashToken, type Identity, type UserAccess } from './identity.js'
export { loadKeyPair, type KeyPair } from './keys.js'
