import { Type, type Static } from '@sinclair/typebox'
import { CommonConfigSchema } from '@quire/service-kit'

/** What only the documents service reads; the gateway merges it into its own schema to mount the service. */
export const DocumentsConfigSchema = Type.Object({
  QUIRE_S3_ENDPOINT: Type.Optional(Type.String({ minLength: 1 })),
  QUIRE_S3_PORT: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
  QUIRE_S3_USE_SSL: Type.Boolean({ default: false }),
  QUIRE_S3_ACCESS_KEY: Type.Optional(Type.String({ minLength: 1 })),
  QUIRE_S3_SECRET_KEY: Type.Optional(Type.String({ minLength: 1 })),
  QUIRE_S3_BUCKET: Type.String({ minLength: 3, maxLength: 63, default: 'quire' }),
  QUIRE_S3_REGION: Type.String({ default: 'us-east-1' }),
  QUIRE_MAX_FILE_SIZE: Type.Integer({ minimum: 1, default: 100 * 1024 * 1024 }),
  QUIRE_MAX_FILES: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
  QUIRE_BULK_BODY_LIMIT: Type.Integer({
    minimum: 1024,
    default: 16 * 1024 * 1024,
    description: 'Largest body of a bulk documents call (POST .../documents/bulk, up to 1000 operations), in bytes.',
  }),
  /** Where uploads are spooled on their way to the file store; the OS temp dir when unset. */
  QUIRE_UPLOAD_DIR: Type.Optional(Type.String({ minLength: 1 })),
})
export type DocumentsConfig = Static<typeof DocumentsConfigSchema>

export const ConfigSchema = Type.Composite([CommonConfigSchema, DocumentsConfigSchema])

/** The MinIO/S3 settings when an endpoint is configured; the local disk adapter otherwise. */
export function s3Options(config: DocumentsConfig) {
  if (!config.QUIRE_S3_ENDPOINT) return undefined
  return {
    endPoint: config.QUIRE_S3_ENDPOINT,
    port: config.QUIRE_S3_PORT,
    useSSL: config.QUIRE_S3_USE_SSL,
    accessKey: config.QUIRE_S3_ACCESS_KEY ?? '',
    secretKey: config.QUIRE_S3_SECRET_KEY ?? '',
    bucket: config.QUIRE_S3_BUCKET,
    region: config.QUIRE_S3_REGION,
  }
}
