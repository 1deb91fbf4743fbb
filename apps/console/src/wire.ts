// The API's wire types, as @quire/client generates them from the OpenAPI document. Types only (erased from the
// bundle), read from the client's source: a package dependency would make a build cycle, since the client's
// schema is generated from the gateway that serves this console.
export type { operations } from '../../../packages/client/src/schema.js'
