import { Type, type Static } from '@sinclair/typebox'
import { IdSchema, LimitSchema, PRINTABLE_PATTERN, TimestampSchema } from './common.js'

const SystemFields = {
  _id: IdSchema,
  _createdOn: TimestampSchema,
  _createdByUserId: Type.String(),
  _lastModifiedOn: TimestampSchema,
  _lastModifiedByUserId: Type.String(),
}

/** `POST /api/v2/packages`: a marketplace package; `name` is unique. */
export const PackageBodySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, pattern: PRINTABLE_PATTERN }),
    label: Type.String({ minLength: 1, maxLength: 200, pattern: PRINTABLE_PATTERN }),
    shortDescription: Type.String({ maxLength: 1000 }),
  },
  { additionalProperties: false },
)
export type PackageBody = Static<typeof PackageBodySchema>

export const PackageSchema = Type.Object({ ...SystemFields, ...PackageBodySchema.properties })
export type Package = Static<typeof PackageSchema>

/**
 * `POST /api/v2/packages/{packageId}/versions`. `versionNumber` is a canonical semantic version (`1.2.0`,
 * `2.0.0-beta.1`), checked in the handler with `semver`; a new version is a draft unless `availableOnMarketplace`.
 */
export const PackageVersionBodySchema = Type.Object(
  {
    versionNumber: Type.String({ minLength: 1, maxLength: 256 }),
    availableOnMarketplace: Type.Boolean({ default: false }),
  },
  { additionalProperties: false },
)
export type PackageVersionBody = Static<typeof PackageVersionBodySchema>

/** `PATCH .../versions/{versionId}`: a published number never changes, only whether the marketplace offers it. */
export const PackageVersionPatchSchema = Type.Object(
  { availableOnMarketplace: Type.Boolean() },
  { additionalProperties: false },
)
export type PackageVersionPatch = Static<typeof PackageVersionPatchSchema>

export const PackageVersionSchema = Type.Object({
  ...SystemFields,
  packageId: IdSchema,
  versionNumber: Type.String(),
  availableOnMarketplace: Type.Boolean(),
})
export type PackageVersion = Static<typeof PackageVersionSchema>

/** An item of `GET /api/v2/packages`: the package with its versions, highest first. */
export const MarketplacePackageSchema = Type.Object({
  ...PackageSchema.properties,
  versions: Type.Array(PackageVersionSchema),
})
export type MarketplacePackage = Static<typeof MarketplacePackageSchema>

export const PackagesQuerySchema = Type.Object(
  { limit: LimitSchema, after: Type.Optional(IdSchema) },
  { additionalProperties: false },
)
export type PackagesQuery = Static<typeof PackagesQuerySchema>

/**
 * A package's id in a path. Never `installations`: so `/api/v2/packages/installations/{packageId}` and
 * `/api/v2/packages/{packageId}/versions` can never both match one path, and the OpenAPI document says so.
 */
const PackageIdSchema = Type.String({
  minLength: 1,
  maxLength: 256,
  pattern: '^(?!installations$)',
  description: "The package's `_id` (never `installations`, the segment of the installation paths)",
})
export const PackageParamsSchema = Type.Object({ packageId: PackageIdSchema })
export const PackageVersionParamsSchema = Type.Object({ packageId: PackageIdSchema, versionId: IdSchema })

/** `POST /api/v2/packages/installations`: installs the version, or moves the installed package to it. */
export const InstallationBodySchema = Type.Object({ packageVersionId: IdSchema }, { additionalProperties: false })
export type InstallationBody = Static<typeof InstallationBodySchema>

/** The spec's package installation item, exactly these fields. */
export const PackageInstallationSchema = Type.Object(
  {
    packageId: IdSchema,
    packageVersionId: IdSchema,
    packageName: Type.String(),
    packageLabel: Type.String(),
    packageShortDescription: Type.String(),
    versionNumber: Type.String(),
    /** Highest semver among the package's versions available on the marketplace; null when none is. */
    latestVersionNumber: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
)
export type PackageInstallation = Static<typeof PackageInstallationSchema>

/** `GET /api/v2/packages/installations`: sorted by `packageLabel` (case-insensitive), ties by `packageId`. */
export const PackageInstallationsSchema = Type.Array(PackageInstallationSchema)

export const RemovedInstallationSchema = Type.Object({ packageId: IdSchema, deleted: Type.Literal(true) })
export type RemovedInstallation = Static<typeof RemovedInstallationSchema>
