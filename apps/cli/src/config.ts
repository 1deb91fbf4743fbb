import { Type, type Static } from '@sinclair/typebox'
import { DocumentsConfigSchema } from '@quire/documents-service'
import { CommonConfigSchema } from '@quire/service-kit'
import { UsersConfigSchema } from '@quire/users-service'

/** The same QUIRE_* variables as the services that own the data: the store, the files and the accounts. */
export const CliConfigSchema = Type.Composite([CommonConfigSchema, DocumentsConfigSchema, UsersConfigSchema])
export type CliConfig = Static<typeof CliConfigSchema>
