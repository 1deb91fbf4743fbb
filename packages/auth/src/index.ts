export { authPlugin, type AuthOptions, type Caller, type Scope, type AccessTokenClaims } from './plugin.js'
export {
  IDENTITY_COLLECTIONS,
  recordsIdentity,
  hashToken,
  type Identity,
  type IdentityEnvironmentRecord,
  type IdentityTokenRecord,
  type IdentityUserRecord,
  type UserAccess,
} from './identity.js'
export { loadKeyPair, type KeyPair } from './keys.js'
