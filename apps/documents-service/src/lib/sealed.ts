import { decodeSecretsKey, sealer as sealerOf, type Sealer } from '@quire/auth'

export type { Sealer }

/** Webhook secrets, sealed from their creation on: a stored one without the seal's prefix is refused. */
export const sealer = (key: Buffer): Sealer =>
  sealerOf(key, { unsealed: 'refused', refusal: 'a sealed webhook secret does not open with the secrets key' })

/** The `QUIRE_WEBHOOKS_SECRETS_KEY` setting's key, checked. */
export const decodeKey = (text: string): Buffer => decodeSecretsKey(text, 'QUIRE_WEBHOOKS_SECRETS_KEY')
