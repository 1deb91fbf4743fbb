export { authPlugin, stillValid, type AuthOptions } from './plugin.js'
export type { Caller, Scope, AccessTokenClaims } from './caller.js'
export {
  delegate,
  refuseNetworkDelegation,
  useRunTokenKey,
  type Delegation,
  type DelegationGrant,
} from './delegation.js'
export { decodeSecretsKey, loadKeyPair, type KeyPair } from './keys.js'
export { sealer, type Sealer, type SealerOptions } from './sealed.js'
export { workAccountPlugin, type WorkAccountOptions } from './work-account.js'
