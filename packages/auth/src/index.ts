export { authPlugin, type AuthOptions, type Caller, type Scope, type AccessTokenClaims } from './plugin.js'
export {
  delegate,
  refuseNetworkDelegation,
  useRunTokenKey,
  type Delegation,
  type DelegationGrant,
} from './delegation.js'
export { loadKeyPair, type KeyPair } from './keys.js'
