// Generated from the gateway's OpenAPI document by scripts/generate.mjs: do not edit.

export interface paths {
  '/api/v2/document-definitions': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List definitions
     * @description List definitions. Needs a bearer token and the `environment-id` header.
     */
    get: operations['listDefinitions']
    put?: never
    /**
     * Create definition
     * @description Create definition. Needs a bearer token and the `environment-id` header.
     */
    post: operations['createDefinition']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/document-definitions/{ddId}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Get definition
     * @description Get definition. Needs a bearer token and the `environment-id` header.
     */
    get: operations['getDefinition']
    /**
     * Replace definition
     * @description Replace definition. Needs a bearer token and the `environment-id` header.
     */
    put: operations['replaceDefinition']
    post?: never
    /**
     * Delete definition
     * @description Delete definition. Needs a bearer token and the `environment-id` header.
     */
    delete: operations['deleteDefinition']
    options?: never
    head?: never
    /**
     * Patch definition
     * @description Patch definition. Needs a bearer token and the `environment-id` header.
     */
    patch: operations['patchDefinition']
    trace?: never
  }
  '/api/v2/document-definitions/{ddId}/action-runs': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List action runs
     * @description List action runs. Needs a bearer token and the `environment-id` header.
     */
    get: operations['listActionRuns']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/document-definitions/{ddId}/documents': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List documents
     * @description List documents. Needs a bearer token and the `environment-id` header.
     */
    get: operations['listDocuments']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/document-definitions/{ddId}/documents/{id}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Get document
     * @description Get document. Needs a bearer token and the `environment-id` header.
     */
    get: operations['getDocument']
    /**
     * Replace document
     * @description Replace document. Needs a bearer token and the `environment-id` header.
     */
    put: operations['replaceDocument']
    post?: never
    /**
     * Delete document
     * @description Delete document. Needs a bearer token and the `environment-id` header.
     */
    delete: operations['deleteDocument']
    options?: never
    head?: never
    /**
     * Patch document
     * @description Patch document. Needs a bearer token and the `environment-id` header.
     */
    patch: operations['patchDocument']
    trace?: never
  }
  '/api/v2/document-definitions/{ddId}/documents/new': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Create document
     * @description Create document. Needs a bearer token and the `environment-id` header.
     */
    post: operations['createDocument']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/document-definitions/{ddId}/documents/bulk': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Bulk documents
     * @description Bulk documents. Needs a bearer token and the `environment-id` header.
     */
    post: operations['bulkDocuments']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/document-definitions/{ddId}/documents/{id}/actions/{name}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Run action
     * @description Run action. Needs a bearer token and the `environment-id` header.
     */
    post: operations['runAction']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/document-definitions/{ddId}/documents/export': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Export documents
     * @description Every document matching `query` that the caller may see, streamed as a file to save: NDJSON (the default), a JSON array, or CSV with a header row. Needs a bearer token and the `environment-id` header.
     */
    get: operations['exportDocuments']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/document-definitions/{ddId}/documents/import': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Import documents
     * @description Creates a document per record of the body (NDJSON, a JSON array or CSV, by `Content-Type`) under the rules of `.../new`; answers how many were created, and each refused record's row and reason. Needs a bearer token and the `environment-id` header.
     */
    post: operations['importDocuments']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/document-definitions/{ddId}/documents/changes': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Subscribe to changes
     * @description Subscribe to changes. Needs a bearer token and the `environment-id` header.
     */
    get: operations['subscribeToChanges']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/document-definitions/{ddId}/documents/{id}/attachments': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    /**
     * Save attachments
     * @description Stores the form's files at `valuePath` of the document (appended, or replacing with `actionType=Replace`). Needs a bearer token and the `environment-id` header.
     */
    put: operations['saveAttachmentsPut']
    /**
     * Save attachments
     * @description Stores the form's files at `valuePath` of the document (appended, or replacing with `actionType=Replace`). Needs a bearer token and the `environment-id` header.
     */
    post: operations['saveAttachments']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/document-definitions/{ddId}/documents/{id}/attachments/{attachmentId}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Download attachment
     * @description The file's bytes, with its type, `ETag` and `Content-Disposition`; one range with `Range` (206). Needs a bearer token and the `environment-id` header.
     */
    get: operations['downloadAttachment']
    put?: never
    post?: never
    /**
     * Remove attachment
     * @description Remove attachment. Needs a bearer token and the `environment-id` header.
     */
    delete: operations['removeAttachment']
    options?: never
    /**
     * Download attachment
     * @description The file's bytes, with its type, `ETag` and `Content-Disposition`; one range with `Range` (206). Needs a bearer token and the `environment-id` header.
     */
    head: operations['downloadAttachmentHead']
    patch?: never
    trace?: never
  }
  '/api/v2/documents/copyAttachments': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Copy attachments
     * @description Copy attachments. Needs a bearer token and the `environment-id` header.
     */
    post: operations['copyAttachments']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/webhooks': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List webhooks
     * @description List webhooks. Needs a bearer token and the `environment-id` header.
     */
    get: operations['listWebhooks']
    put?: never
    /**
     * Create webhook
     * @description Create webhook. Needs a bearer token and the `environment-id` header.
     */
    post: operations['createWebhook']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/webhooks/{webhookId}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Get webhook
     * @description Get webhook. Needs a bearer token and the `environment-id` header.
     */
    get: operations['getWebhook']
    put?: never
    post?: never
    /**
     * Remove webhook
     * @description Remove webhook. Needs a bearer token and the `environment-id` header.
     */
    delete: operations['removeWebhook']
    options?: never
    head?: never
    /**
     * Patch webhook
     * @description Patch webhook. Needs a bearer token and the `environment-id` header.
     */
    patch: operations['patchWebhook']
    trace?: never
  }
  '/api/v2/webhooks/{webhookId}/rotate-secret': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Rotate secret
     * @description Rotate secret. Needs a bearer token and the `environment-id` header.
     */
    post: operations['rotateSecret']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/webhooks/{webhookId}/deliveries': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List deliveries
     * @description List deliveries. Needs a bearer token and the `environment-id` header.
     */
    get: operations['listDeliveries']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Redeliver
     * @description Redeliver. Needs a bearer token and the `environment-id` header.
     */
    post: operations['redeliver']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/auth/login': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Login
     * @description Login. No credentials.
     */
    post: operations['login']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/auth/reset-password': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Request password reset
     * @description Request password reset. No credentials.
     */
    post: operations['requestPasswordReset']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/auth/reset-password/confirm': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Confirm password reset
     * @description Confirm password reset. No credentials.
     */
    post: operations['confirmPasswordReset']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/auth/2fa/setup': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Setup two factor
     * @description Setup two factor. Needs a bearer token.
     */
    post: operations['setupTwoFactor']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/auth/2fa/enable': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Enable two factor
     * @description Enable two factor. Needs a bearer token.
     */
    post: operations['enableTwoFactor']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/auth/2fa/disable': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Disable two factor
     * @description Disable two factor. Needs a bearer token.
     */
    post: operations['disableTwoFactor']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/auth/2fa/recovery-codes': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Regenerate recovery codes
     * @description Regenerate recovery codes. Needs a bearer token.
     */
    post: operations['regenerateRecoveryCodes']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/auth/password': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Change password
     * @description Change password. Needs a bearer token.
     */
    post: operations['changePassword']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/auth/sign-out-everywhere': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Sign out everywhere
     * @description Sign out everywhere. Needs a bearer token.
     */
    post: operations['signOutEverywhere']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/auth/reset-2FA': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Reset two factor
     * @description Reset two factor. Needs a bearer token.
     */
    post: operations['resetTwoFactor']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/auth/login': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Login
     * @description Login. No credentials.
     */
    post: operations['loginApiV2']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/auth/reset-password': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Request password reset
     * @description Request password reset. No credentials.
     */
    post: operations['requestPasswordResetApiV2']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/auth/reset-password/confirm': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Confirm password reset
     * @description Confirm password reset. No credentials.
     */
    post: operations['confirmPasswordResetApiV2']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/auth/2fa/setup': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Setup two factor
     * @description Setup two factor. Needs a bearer token.
     */
    post: operations['setupTwoFactorApiV2']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/auth/2fa/enable': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Enable two factor
     * @description Enable two factor. Needs a bearer token.
     */
    post: operations['enableTwoFactorApiV2']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/auth/2fa/disable': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Disable two factor
     * @description Disable two factor. Needs a bearer token.
     */
    post: operations['disableTwoFactorApiV2']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/auth/2fa/recovery-codes': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Regenerate recovery codes
     * @description Regenerate recovery codes. Needs a bearer token.
     */
    post: operations['regenerateRecoveryCodesApiV2']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/auth/password': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Change password
     * @description Change password. Needs a bearer token.
     */
    post: operations['changePasswordApiV2']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/auth/sign-out-everywhere': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Sign out everywhere
     * @description Sign out everywhere. Needs a bearer token.
     */
    post: operations['signOutEverywhereApiV2']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/auth/reset-2FA': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Reset two factor
     * @description Reset two factor. Needs a bearer token.
     */
    post: operations['resetTwoFactorApiV2']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/auth/sessions': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List sessions
     * @description List sessions. Needs a bearer token.
     */
    get: operations['listSessions']
    put?: never
    /**
     * Open session
     * @description Open session. No credentials.
     */
    post: operations['openSession']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/auth/sessions/refresh': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Renew session
     * @description Renew session. No credentials.
     */
    post: operations['renewSession']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/auth/sessions/logout': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * End session
     * @description End session. No credentials.
     */
    post: operations['endSession']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/auth/sessions/{sessionId}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    post?: never
    /**
     * End own session
     * @description End own session. Needs a bearer token.
     */
    delete: operations['endOwnSession']
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/auth/sessions': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List sessions
     * @description List sessions. Needs a bearer token.
     */
    get: operations['listSessionsApiV2']
    put?: never
    /**
     * Open session
     * @description Open session. No credentials.
     */
    post: operations['openSessionApiV2']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/auth/sessions/refresh': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Renew session
     * @description Renew session. No credentials.
     */
    post: operations['renewSessionApiV2']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/auth/sessions/logout': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * End session
     * @description End session. No credentials.
     */
    post: operations['endSessionApiV2']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/auth/sessions/{sessionId}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    post?: never
    /**
     * End own session
     * @description End own session. Needs a bearer token.
     */
    delete: operations['endOwnSessionApiV2']
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/users': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List users
     * @description List users. Needs a bearer token and the `environment-id` header.
     */
    get: operations['listUsers']
    put?: never
    /**
     * Create user
     * @description Create user. Needs a bearer token and the `environment-id` header.
     */
    post: operations['createUser']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/users/{userId}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Get user
     * @description Get user. Needs a bearer token and the `environment-id` header.
     */
    get: operations['getUser']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    /**
     * Update user
     * @description Update user. Needs a bearer token and the `environment-id` header.
     */
    patch: operations['updateUser']
    trace?: never
  }
  '/api/v2/users/{userId}/reference-data': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Get reference data
     * @description Get reference data. Needs a bearer token and the `environment-id` header.
     */
    get: operations['getReferenceData']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/users/{userId}/long-lived-tokens': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List long lived tokens
     * @description List long lived tokens. Needs a bearer token and the `environment-id` header.
     */
    get: operations['listLongLivedTokens']
    put?: never
    /**
     * Create long lived token
     * @description Create long lived token. Needs a bearer token and the `environment-id` header.
     */
    post: operations['createLongLivedToken']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/users/{userId}/long-lived-tokens/{tokenId}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    post?: never
    /**
     * Revoke long lived token
     * @description Revoke long lived token. Needs a bearer token and the `environment-id` header.
     */
    delete: operations['revokeLongLivedToken']
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/environments': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List environments
     * @description List environments. Needs a bearer token.
     */
    get: operations['listEnvironments']
    put?: never
    /**
     * Create environment
     * @description Create environment. Needs a bearer token.
     */
    post: operations['createEnvironment']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/environments/{environmentId}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Get environment
     * @description Get environment. Needs a bearer token.
     */
    get: operations['getEnvironment']
    put?: never
    post?: never
    /**
     * Delete environment
     * @description Delete environment. Needs a bearer token.
     */
    delete: operations['deleteEnvironment']
    options?: never
    head?: never
    /**
     * Update environment
     * @description Update environment. Needs a bearer token.
     */
    patch: operations['updateEnvironment']
    trace?: never
  }
  '/api/v2/packages': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List packages
     * @description List packages. Needs a bearer token.
     */
    get: operations['listPackages']
    put?: never
    /**
     * Create package
     * @description Create package. Needs a bearer token.
     */
    post: operations['createPackage']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/packages/{packageId}/versions': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Add version
     * @description Add version. Needs a bearer token.
     */
    post: operations['addVersion']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/packages/{packageId}/versions/{versionId}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    /**
     * Update version
     * @description Update version. Needs a bearer token.
     */
    patch: operations['updateVersion']
    trace?: never
  }
  '/api/v2/packages/installations': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List installations
     * @description List installations. Needs a bearer token and the `environment-id` header.
     */
    get: operations['listInstallations']
    put?: never
    /**
     * Install package
     * @description Install package. Needs a bearer token and the `environment-id` header.
     */
    post: operations['installPackage']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/packages/installations/{packageId}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    post?: never
    /**
     * Remove installation
     * @description Remove installation. Needs a bearer token and the `environment-id` header.
     */
    delete: operations['removeInstallation']
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/api/v2/usage-statistics/active-users': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Active users
     * @description Active users. Needs a bearer token and the `environment-id` header.
     */
    get: operations['activeUsers']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
}
export type webhooks = Record<string, never>
export interface components {
  schemas: {
    ErrorBody: {
      /** @constant */
      status: 'error'
      error:
        | 'environment_id_missing'
        | 'validation_error'
        | 'invalid_query'
        | 'invalid_value_path'
        | 'parallel_arrays'
        | 'action_refused'
        | 'unauthorized'
        | 'two_factor_required'
        | 'forbidden'
        | 'document_definition_not_found_for_id_or_name'
        | 'document_not_found'
        | 'user_not_found'
        | 'attachment_not_found'
        | 'package_not_found'
        | 'token_not_found'
        | 'action_not_found'
        | 'webhook_not_found'
        | 'delivery_not_found'
        | 'not_found'
        | 'duplicate_external_id'
        | 'duplicate_name'
        | 'duplicate_username'
        | 'duplicate_email'
        | 'duplicate_key'
        | 'action_depth_exceeded'
        | 'webhook_limit_reached'
        | 'request_timeout'
        | 'resume_token_expired'
        | 'precondition_failed'
        | 'payload_too_large'
        | 'unsupported_media_type'
        | 'request_header_fields_too_large'
        | 'action_failed'
        | 'rate_limited'
        | 'internal_error'
        | 'service_unavailable'
        | 'scripts_busy'
        | 'insufficient_storage'
      description: string
      userDescription: string
      message: string
    }
  }
  responses: never
  parameters: never
  requestBodies: never
  headers: never
  pathItems: never
}
export type $defs = Record<string, never>
export interface operations {
  listDefinitions: {
    parameters: {
      query?: {
        limit?: number
        after?: string
        exclude?: string
      }
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              /** Format: date-time */
              _createdOn?: string
              _createdByUserId?: string
              /** Format: date-time */
              _lastModifiedOn?: string
              _lastModifiedByUserId?: string
              _environmentId?: string
              _hash?: string
              status?: string
              name?: string
              label?: string
              description?: string
              fields?: {
                [key: string]: {
                  type: 'string' | 'number' | 'boolean' | 'date' | 'object' | 'array' | 'attachment' | 'location'
                  required?: boolean
                }
              }
              indexes?: {
                fields: {
                  [key: string]: 1 | -1
                }
                unique?: boolean
                state?: 'building' | 'ready'
              }[]
              actions?: {
                name: string
                triggers: (
                  | 'manual'
                  | 'beforeCreate'
                  | 'beforeUpdate'
                  | 'beforeDelete'
                  | 'afterCreate'
                  | 'afterUpdate'
                  | 'afterDelete'
                )[]
                description?: string
                source?: string
              }[]
              _permissions?: {
                fullPermissions: boolean
                userActionPermissions: string[]
              }
            }[]
            pagination: {
              hasPrevious: boolean
              hasNext: boolean
              /** @enum {string} */
              type: 'cursor'
              next?: string
              total?: number
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  createDefinition: {
    parameters: {
      query?: {
        sourceId?: string
      }
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: {
      content: {
        'application/json': {
          name?: string
          label?: string
          description?: string
          fields?: {
            [key: string]: {
              type: 'string' | 'number' | 'boolean' | 'date' | 'object' | 'array' | 'attachment' | 'location'
              required?: boolean
            }
          }
          indexes?: {
            fields: {
              [key: string]: 1 | -1
            }
            unique?: boolean
          }[]
          actions?: {
            name: string
            triggers: (
              | 'manual'
              | 'beforeCreate'
              | 'beforeUpdate'
              | 'beforeDelete'
              | 'afterCreate'
              | 'afterUpdate'
              | 'afterDelete'
            )[]
            description?: string
            source: string
          }[]
          clientDocument?: {
            id?: string
          }
          actionInfo?: {
            id?: string
          }
          actionType?: string
          ddId?: string
          workflowId?: string
          value?: {
            id?: string
          }
          documentDefinitions?: unknown
          input?: unknown
          previous?: unknown
        }
      }
    }
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              /** Format: date-time */
              _createdOn: string
              _createdByUserId: string
              /** Format: date-time */
              _lastModifiedOn: string
              _lastModifiedByUserId: string
              _environmentId: string
              _hash: string
              status: string
              name: string
              label?: string
              description?: string
              fields?: {
                [key: string]: {
                  type: 'string' | 'number' | 'boolean' | 'date' | 'object' | 'array' | 'attachment' | 'location'
                  required?: boolean
                }
              }
              indexes?: {
                fields: {
                  [key: string]: 1 | -1
                }
                unique?: boolean
                state?: 'building' | 'ready'
              }[]
              actions?: {
                name: string
                triggers: (
                  | 'manual'
                  | 'beforeCreate'
                  | 'beforeUpdate'
                  | 'beforeDelete'
                  | 'afterCreate'
                  | 'afterUpdate'
                  | 'afterDelete'
                )[]
                description?: string
                source?: string
              }[]
              _permissions: {
                fullPermissions: boolean
                userActionPermissions: string[]
              }
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getDefinition: {
    parameters: {
      query?: never
      header?: {
        'if-none-match'?: string
      }
      path: {
        ddId: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              /** Format: date-time */
              _createdOn: string
              _createdByUserId: string
              /** Format: date-time */
              _lastModifiedOn: string
              _lastModifiedByUserId: string
              _environmentId: string
              _hash: string
              status: string
              name: string
              label?: string
              description?: string
              fields?: {
                [key: string]: {
                  type: 'string' | 'number' | 'boolean' | 'date' | 'object' | 'array' | 'attachment' | 'location'
                  required?: boolean
                }
              }
              indexes?: {
                fields: {
                  [key: string]: 1 | -1
                }
                unique?: boolean
                state?: 'building' | 'ready'
              }[]
              actions?: {
                name: string
                triggers: (
                  | 'manual'
                  | 'beforeCreate'
                  | 'beforeUpdate'
                  | 'beforeDelete'
                  | 'afterCreate'
                  | 'afterUpdate'
                  | 'afterDelete'
                )[]
                description?: string
                source?: string
              }[]
              _permissions: {
                fullPermissions: boolean
                userActionPermissions: string[]
              }
            }
          }
        }
      }
      /** @description Not modified: the copy named by If-None-Match is current */
      304: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  replaceDefinition: {
    parameters: {
      query?: never
      header?: {
        'if-match'?: string
      }
      path: {
        ddId: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          name: string
          label?: string
          description?: string
          fields?: {
            [key: string]: {
              type: 'string' | 'number' | 'boolean' | 'date' | 'object' | 'array' | 'attachment' | 'location'
              required?: boolean
            }
          }
          indexes?: {
            fields: {
              [key: string]: 1 | -1
            }
            unique?: boolean
          }[]
          actions?: {
            name: string
            triggers: (
              | 'manual'
              | 'beforeCreate'
              | 'beforeUpdate'
              | 'beforeDelete'
              | 'afterCreate'
              | 'afterUpdate'
              | 'afterDelete'
            )[]
            description?: string
            source: string
          }[]
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              /** Format: date-time */
              _createdOn: string
              _createdByUserId: string
              /** Format: date-time */
              _lastModifiedOn: string
              _lastModifiedByUserId: string
              _environmentId: string
              _hash: string
              status: string
              name: string
              label?: string
              description?: string
              fields?: {
                [key: string]: {
                  type: 'string' | 'number' | 'boolean' | 'date' | 'object' | 'array' | 'attachment' | 'location'
                  required?: boolean
                }
              }
              indexes?: {
                fields: {
                  [key: string]: 1 | -1
                }
                unique?: boolean
                state?: 'building' | 'ready'
              }[]
              actions?: {
                name: string
                triggers: (
                  | 'manual'
                  | 'beforeCreate'
                  | 'beforeUpdate'
                  | 'beforeDelete'
                  | 'afterCreate'
                  | 'afterUpdate'
                  | 'afterDelete'
                )[]
                description?: string
                source?: string
              }[]
              _permissions: {
                fullPermissions: boolean
                userActionPermissions: string[]
              }
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  deleteDefinition: {
    parameters: {
      query?: {
        force?: boolean
      }
      header?: {
        'if-match'?: string
      }
      path: {
        ddId: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              /** @enum {boolean} */
              deleted: true
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  patchDefinition: {
    parameters: {
      query?: never
      header?: {
        'if-match'?: string
      }
      path: {
        ddId: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          name?: string
          label?: string | null
          description?: string | null
          fields?: {
            [key: string]: {
              type: 'string' | 'number' | 'boolean' | 'date' | 'object' | 'array' | 'attachment' | 'location'
              required?: boolean
            }
          } | null
          indexes?:
            | {
                fields: {
                  [key: string]: 1 | -1
                }
                unique?: boolean
              }[]
            | null
          actions?:
            | {
                name: string
                triggers: (
                  | 'manual'
                  | 'beforeCreate'
                  | 'beforeUpdate'
                  | 'beforeDelete'
                  | 'afterCreate'
                  | 'afterUpdate'
                  | 'afterDelete'
                )[]
                description?: string
                source: string
              }[]
            | null
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              /** Format: date-time */
              _createdOn: string
              _createdByUserId: string
              /** Format: date-time */
              _lastModifiedOn: string
              _lastModifiedByUserId: string
              _environmentId: string
              _hash: string
              status: string
              name: string
              label?: string
              description?: string
              fields?: {
                [key: string]: {
                  type: 'string' | 'number' | 'boolean' | 'date' | 'object' | 'array' | 'attachment' | 'location'
                  required?: boolean
                }
              }
              indexes?: {
                fields: {
                  [key: string]: 1 | -1
                }
                unique?: boolean
                state?: 'building' | 'ready'
              }[]
              actions?: {
                name: string
                triggers: (
                  | 'manual'
                  | 'beforeCreate'
                  | 'beforeUpdate'
                  | 'beforeDelete'
                  | 'afterCreate'
                  | 'afterUpdate'
                  | 'afterDelete'
                )[]
                description?: string
                source?: string
              }[]
              _permissions: {
                fullPermissions: boolean
                userActionPermissions: string[]
              }
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  listActionRuns: {
    parameters: {
      query?: {
        action?: string
        documentId?: string
        status?: 'succeeded' | 'refused' | 'failed'
        limit?: number
        after?: string
      }
      header?: never
      path: {
        ddId: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              environmentId: string
              definitionId: string
              documentId: string
              action: string
              trigger:
                | 'manual'
                | 'beforeCreate'
                | 'beforeUpdate'
                | 'beforeDelete'
                | 'afterCreate'
                | 'afterUpdate'
                | 'afterDelete'
              status: 'succeeded' | 'refused' | 'failed'
              error?: {
                kind: string
                message: string
                code?: string
              }
              logs: {
                level: 'log' | 'info' | 'warn' | 'error'
                message: string
              }[]
              writes: {
                method: string
                path: string
                status: number
              }[]
              durationMs: number
              attempt: number
              userId: string
              /** Format: date-time */
              createdOn: string
              /** Format: date-time */
              expiresOn: string
            }[]
            pagination: {
              hasPrevious: boolean
              hasNext: boolean
              /** @enum {string} */
              type: 'cursor'
              next?: string
              total?: number
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  listDocuments: {
    parameters: {
      query?: {
        query?: string
        sort?: string
        fields?: string
        exclude?: string
        options?: string
        limit?: number
        skip?: number
        after?: string
        count?: boolean
      }
      header?: never
      path: {
        ddId: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: ({
              _id: string
            } & {
              [key: string]: unknown
            })[]
            pagination: {
              hasPrevious: boolean
              hasNext: boolean
              /** @enum {string} */
              type: 'cursor'
              next?: string
              total?: number
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getDocument: {
    parameters: {
      query?: never
      header?: {
        'if-none-match'?: string
      }
      path: {
        ddId: string
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            _id: string
            /** Format: date-time */
            _createdOn: string
            _createdByUserId: string
            /** Format: date-time */
            _lastModifiedOn: string
            _lastModifiedByUserId: string
            _environmentId: string
            _hash: string
            status: string
            _documentDefinitionId: string
            accessGroups: (
              | string
              | ({
                  _id: string
                  memberUserIds?: string[]
                  memberGroupIds?: string[]
                  memberRelatedAccessGroupIds?: string[]
                } & {
                  [key: string]: unknown
                })
            )[]
            externalId?: string
            _permissions: {
              fullPermissions: boolean
              userActionPermissions: string[]
            }
          } & {
            [key: string]: unknown
          }
        }
      }
      /** @description Not modified: the copy named by If-None-Match is current */
      304: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  replaceDocument: {
    parameters: {
      query?: never
      header?: {
        'if-match'?: string
      }
      path: {
        ddId: string
        id: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          status?: string
          accessGroups?: (
            | string
            | ({
                _id: string
                memberUserIds?: string[]
                memberGroupIds?: string[]
                memberRelatedAccessGroupIds?: string[]
              } & {
                [key: string]: unknown
              })
          )[]
          externalId?: string
        } & {
          [key: string]: unknown
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              /** Format: date-time */
              _createdOn: string
              _createdByUserId: string
              /** Format: date-time */
              _lastModifiedOn: string
              _lastModifiedByUserId: string
              _environmentId: string
              _hash: string
              status: string
              _documentDefinitionId: string
              accessGroups: (
                | string
                | ({
                    _id: string
                    memberUserIds?: string[]
                    memberGroupIds?: string[]
                    memberRelatedAccessGroupIds?: string[]
                  } & {
                    [key: string]: unknown
                  })
              )[]
              externalId?: string
              _permissions: {
                fullPermissions: boolean
                userActionPermissions: string[]
              }
            } & {
              [key: string]: unknown
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  deleteDocument: {
    parameters: {
      query?: never
      header?: {
        'if-match'?: string
      }
      path: {
        ddId: string
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              /** @enum {boolean} */
              deleted: true
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  patchDocument: {
    parameters: {
      query?: never
      header?: {
        'if-match'?: string
      }
      path: {
        ddId: string
        id: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          status?: string | null
          accessGroups?:
            | (
                | string
                | ({
                    _id: string
                    memberUserIds?: string[]
                    memberGroupIds?: string[]
                    memberRelatedAccessGroupIds?: string[]
                  } & {
                    [key: string]: unknown
                  })
              )[]
            | null
          externalId?: string | null
        } & {
          [key: string]: unknown
        }
        'application/merge-patch+json': {
          status?: string | null
          accessGroups?:
            | (
                | string
                | ({
                    _id: string
                    memberUserIds?: string[]
                    memberGroupIds?: string[]
                    memberRelatedAccessGroupIds?: string[]
                  } & {
                    [key: string]: unknown
                  })
              )[]
            | null
          externalId?: string | null
        } & {
          [key: string]: unknown
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              /** Format: date-time */
              _createdOn: string
              _createdByUserId: string
              /** Format: date-time */
              _lastModifiedOn: string
              _lastModifiedByUserId: string
              _environmentId: string
              _hash: string
              status: string
              _documentDefinitionId: string
              accessGroups: (
                | string
                | ({
                    _id: string
                    memberUserIds?: string[]
                    memberGroupIds?: string[]
                    memberRelatedAccessGroupIds?: string[]
                  } & {
                    [key: string]: unknown
                  })
              )[]
              externalId?: string
              _permissions: {
                fullPermissions: boolean
                userActionPermissions: string[]
              }
            } & {
              [key: string]: unknown
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  createDocument: {
    parameters: {
      query?: never
      header?: {
        'idempotency-key'?: string
      }
      path: {
        ddId: string
      }
      cookie?: never
    }
    requestBody?: {
      content: {
        'application/json': {
          status?: string
          accessGroups?: (
            | string
            | ({
                _id: string
                memberUserIds?: string[]
                memberGroupIds?: string[]
                memberRelatedAccessGroupIds?: string[]
              } & {
                [key: string]: unknown
              })
          )[]
          externalId?: string
        } & {
          [key: string]: unknown
        }
      }
    }
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              /** Format: date-time */
              _createdOn: string
              _createdByUserId: string
              /** Format: date-time */
              _lastModifiedOn: string
              _lastModifiedByUserId: string
              _environmentId: string
              _hash: string
              status: string
              _documentDefinitionId: string
              accessGroups: (
                | string
                | ({
                    _id: string
                    memberUserIds?: string[]
                    memberGroupIds?: string[]
                    memberRelatedAccessGroupIds?: string[]
                  } & {
                    [key: string]: unknown
                  })
              )[]
              externalId?: string
              _permissions: {
                fullPermissions: boolean
                userActionPermissions: string[]
              }
            } & {
              [key: string]: unknown
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  bulkDocuments: {
    parameters: {
      query?: never
      header?: {
        'idempotency-key'?: string
      }
      path: {
        ddId: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          operations: (
            | {
                /** @enum {string} */
                op: 'create'
                body?: {
                  status?: string
                  accessGroups?: (
                    | string
                    | ({
                        _id: string
                        memberUserIds?: string[]
                        memberGroupIds?: string[]
                        memberRelatedAccessGroupIds?: string[]
                      } & {
                        [key: string]: unknown
                      })
                  )[]
                  externalId?: string
                } & {
                  [key: string]: unknown
                }
              }
            | {
                /** @enum {string} */
                op: 'update'
                id: string
                body: {
                  status?: string
                  accessGroups?: (
                    | string
                    | ({
                        _id: string
                        memberUserIds?: string[]
                        memberGroupIds?: string[]
                        memberRelatedAccessGroupIds?: string[]
                      } & {
                        [key: string]: unknown
                      })
                  )[]
                  externalId?: string
                } & {
                  [key: string]: unknown
                }
                ifMatch?: string
              }
            | {
                /** @enum {string} */
                op: 'patch'
                id: string
                body: {
                  status?: string | null
                  accessGroups?:
                    | (
                        | string
                        | ({
                            _id: string
                            memberUserIds?: string[]
                            memberGroupIds?: string[]
                            memberRelatedAccessGroupIds?: string[]
                          } & {
                            [key: string]: unknown
                          })
                      )[]
                    | null
                  externalId?: string | null
                } & {
                  [key: string]: unknown
                }
                ifMatch?: string
              }
            | {
                /** @enum {string} */
                op: 'delete'
                id: string
                ifMatch?: string
              }
          )[]
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              op: 'create' | 'update' | 'patch' | 'delete'
              _id: string
              _hash?: string
              /** @enum {boolean} */
              deleted?: true
            }[]
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  runAction: {
    parameters: {
      query?: never
      header?: never
      path: {
        ddId: string
        id: string
        name: string
      }
      cookie?: never
    }
    requestBody?: {
      content: {
        'application/json': {
          [key: string]: unknown
        } | null
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              runId: string
              result: unknown
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  exportDocuments: {
    parameters: {
      query?: {
        format?: 'ndjson' | 'json' | 'csv'
        query?: string
        sort?: string
        fields?: string
      }
      header?: never
      path: {
        ddId: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description The documents, streamed as an attachment: one JSON document a line (`ndjson`), a JSON array (`json`), or CSV with a header row of the definition's fields (`csv`) */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/x-ndjson': Blob
          'application/json': Blob
          'text/csv': Blob
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  importDocuments: {
    parameters: {
      query?: never
      header?: {
        'idempotency-key'?: string
      }
      path: {
        ddId: string
      }
      cookie?: never
    }
    /** @description The documents to create: NDJSON (one JSON object a line), a JSON array of objects, or CSV with a header row of field names (cells typed by the definition's fields) */
    requestBody: {
      content: {
        'application/x-ndjson': unknown
        'application/json': unknown
        'text/csv': unknown
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              created: number
              failed: number
              errors: {
                row: number
                code: string
                description: string
              }[]
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  subscribeToChanges: {
    parameters: {
      query?: {
        query?: string
        fields?: string
      }
      header?: {
        'last-event-id'?: string
      }
      path: {
        ddId: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'text/event-stream': string
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  saveAttachmentsPut: {
    parameters: {
      query: {
        valuePath: string
        actionType?: string
        shouldUpdateDocument?: boolean
      }
      header?: never
      path: {
        ddId: string
        id: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        'multipart/form-data': {
          file: Blob | Blob[]
        }
      }
    }
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              attachments: {
                _id: string
                _fileName: string
                _size: number
                _contentType: string
                store: 'file' | 'image'
                _width?: number
                _height?: number
                _sha256?: string
                /** Format: date-time */
                _createdOn: string
                _createdByUserId: string
              }[]
              document?: {
                _id: string
                /** Format: date-time */
                _createdOn: string
                _createdByUserId: string
                /** Format: date-time */
                _lastModifiedOn: string
                _lastModifiedByUserId: string
                _environmentId: string
                _hash: string
                status: string
                _documentDefinitionId: string
                accessGroups: (
                  | string
                  | ({
                      _id: string
                      memberUserIds?: string[]
                      memberGroupIds?: string[]
                      memberRelatedAccessGroupIds?: string[]
                    } & {
                      [key: string]: unknown
                    })
                )[]
                externalId?: string
                _permissions: {
                  fullPermissions: boolean
                  userActionPermissions: string[]
                }
              } & {
                [key: string]: unknown
              }
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  saveAttachments: {
    parameters: {
      query: {
        valuePath: string
        actionType?: string
        shouldUpdateDocument?: boolean
      }
      header?: never
      path: {
        ddId: string
        id: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        'multipart/form-data': {
          file: Blob | Blob[]
        }
      }
    }
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              attachments: {
                _id: string
                _fileName: string
                _size: number
                _contentType: string
                store: 'file' | 'image'
                _width?: number
                _height?: number
                _sha256?: string
                /** Format: date-time */
                _createdOn: string
                _createdByUserId: string
              }[]
              document?: {
                _id: string
                /** Format: date-time */
                _createdOn: string
                _createdByUserId: string
                /** Format: date-time */
                _lastModifiedOn: string
                _lastModifiedByUserId: string
                _environmentId: string
                _hash: string
                status: string
                _documentDefinitionId: string
                accessGroups: (
                  | string
                  | ({
                      _id: string
                      memberUserIds?: string[]
                      memberGroupIds?: string[]
                      memberRelatedAccessGroupIds?: string[]
                    } & {
                      [key: string]: unknown
                    })
                )[]
                externalId?: string
                _permissions: {
                  fullPermissions: boolean
                  userActionPermissions: string[]
                }
              } & {
                [key: string]: unknown
              }
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  downloadAttachment: {
    parameters: {
      query?: never
      header?: {
        range?: string
        'if-range'?: string
        'if-none-match'?: string
      }
      path: {
        ddId: string
        id: string
        attachmentId: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description The whole file */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          '*/*': Blob
        }
      }
      /** @description The range asked for */
      206: {
        headers: {
          [name: string]: unknown
        }
        content: {
          '*/*': Blob
        }
      }
      /** @description Not modified: the copy named by If-None-Match is current */
      304: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  removeAttachment: {
    parameters: {
      query?: never
      header?: never
      path: {
        ddId: string
        id: string
        attachmentId: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              /** @enum {boolean} */
              deleted: true
              document: {
                _id: string
                /** Format: date-time */
                _createdOn: string
                _createdByUserId: string
                /** Format: date-time */
                _lastModifiedOn: string
                _lastModifiedByUserId: string
                _environmentId: string
                _hash: string
                status: string
                _documentDefinitionId: string
                accessGroups: (
                  | string
                  | ({
                      _id: string
                      memberUserIds?: string[]
                      memberGroupIds?: string[]
                      memberRelatedAccessGroupIds?: string[]
                    } & {
                      [key: string]: unknown
                    })
                )[]
                externalId?: string
                _permissions: {
                  fullPermissions: boolean
                  userActionPermissions: string[]
                }
              } & {
                [key: string]: unknown
              }
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  downloadAttachmentHead: {
    parameters: {
      query?: never
      header?: {
        range?: string
        'if-range'?: string
        'if-none-match'?: string
      }
      path: {
        ddId: string
        id: string
        attachmentId: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description The whole file */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          '*/*': Blob
        }
      }
      /** @description The range asked for */
      206: {
        headers: {
          [name: string]: unknown
        }
        content: {
          '*/*': Blob
        }
      }
      /** @description Not modified: the copy named by If-None-Match is current */
      304: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  copyAttachments: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          source: {
            ddName: string
            _id?: string
            externalId?: string
            valuePath: string
            fileNames?: string[]
            fileIds?: string[]
          }
          target: {
            ddName: string
            _id?: string
            externalId?: string
            valuePath: string
          }
        }[]
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              source: {
                ddName: string
                _id?: string
                externalId?: string
                valuePath: string
                fileNames?: string[]
                fileIds?: string[]
              }
              target: {
                ddName: string
                _id?: string
                externalId?: string
                valuePath: string
              }
              attachments: {
                _id: string
                _fileName: string
                _size: number
                _contentType: string
                store: 'file' | 'image'
                _width?: number
                _height?: number
                _sha256?: string
                /** Format: date-time */
                _createdOn: string
                _createdByUserId: string
              }[]
            }[]
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  listWebhooks: {
    parameters: {
      query?: {
        limit?: number
        after?: string
      }
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              url: string
              events: (
                | 'document.create'
                | 'document.update'
                | 'document.delete'
                | 'definition.create'
                | 'definition.update'
                | 'definition.delete'
              )[]
              ddId?: string
              query?: {
                [key: string]: unknown
              }
              paused: boolean
              /** Format: date-time */
              _createdOn: string
              /** Format: date-time */
              _lastModifiedOn: string
            }[]
            pagination: {
              hasPrevious: boolean
              hasNext: boolean
              /** @enum {string} */
              type: 'cursor'
              next?: string
              total?: number
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  createWebhook: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          url: string
          events: (
            | 'document.create'
            | 'document.update'
            | 'document.delete'
            | 'definition.create'
            | 'definition.update'
            | 'definition.delete'
          )[]
          ddId?: string
          query?: {
            [key: string]: unknown
          }
          paused?: boolean
        }
      }
    }
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              url: string
              events: (
                | 'document.create'
                | 'document.update'
                | 'document.delete'
                | 'definition.create'
                | 'definition.update'
                | 'definition.delete'
              )[]
              ddId?: string
              query?: {
                [key: string]: unknown
              }
              paused: boolean
              /** Format: date-time */
              _createdOn: string
              /** Format: date-time */
              _lastModifiedOn: string
              secret: string
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getWebhook: {
    parameters: {
      query?: never
      header?: never
      path: {
        webhookId: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              url: string
              events: (
                | 'document.create'
                | 'document.update'
                | 'document.delete'
                | 'definition.create'
                | 'definition.update'
                | 'definition.delete'
              )[]
              ddId?: string
              query?: {
                [key: string]: unknown
              }
              paused: boolean
              /** Format: date-time */
              _createdOn: string
              /** Format: date-time */
              _lastModifiedOn: string
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  removeWebhook: {
    parameters: {
      query?: never
      header?: never
      path: {
        webhookId: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              /** @enum {boolean} */
              deleted: true
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  patchWebhook: {
    parameters: {
      query?: never
      header?: never
      path: {
        webhookId: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          url?: string
          events?: (
            | 'document.create'
            | 'document.update'
            | 'document.delete'
            | 'definition.create'
            | 'definition.update'
            | 'definition.delete'
          )[]
          ddId?: string | null
          query?: {
            [key: string]: unknown
          } | null
          paused?: boolean
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              url: string
              events: (
                | 'document.create'
                | 'document.update'
                | 'document.delete'
                | 'definition.create'
                | 'definition.update'
                | 'definition.delete'
              )[]
              ddId?: string
              query?: {
                [key: string]: unknown
              }
              paused: boolean
              /** Format: date-time */
              _createdOn: string
              /** Format: date-time */
              _lastModifiedOn: string
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  rotateSecret: {
    parameters: {
      query?: never
      header?: never
      path: {
        webhookId: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              secret: string
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  listDeliveries: {
    parameters: {
      query?: {
        state?: 'waiting' | 'delivered' | 'failed'
        limit?: number
        after?: string
      }
      header?: never
      path: {
        webhookId: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              webhookId: string
              eventId: string
              type:
                | 'document.create'
                | 'document.update'
                | 'document.delete'
                | 'definition.create'
                | 'definition.update'
                | 'definition.delete'
              ddId: string
              documentId?: string
              state: 'waiting' | 'delivered' | 'failed'
              /** Format: date-time */
              nextAttemptOn?: string
              attempts: {
                attempt: number
                /** Format: date-time */
                at: string
                durationMs: number
                status?: number
                error?: string
              }[]
              /** Format: date-time */
              _createdOn: string
            }[]
            pagination: {
              hasPrevious: boolean
              hasNext: boolean
              /** @enum {string} */
              type: 'cursor'
              next?: string
              total?: number
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  redeliver: {
    parameters: {
      query?: never
      header?: never
      path: {
        webhookId: string
        deliveryId: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      202: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              webhookId: string
              eventId: string
              type:
                | 'document.create'
                | 'document.update'
                | 'document.delete'
                | 'definition.create'
                | 'definition.update'
                | 'definition.delete'
              ddId: string
              documentId?: string
              state: 'waiting' | 'delivered' | 'failed'
              /** Format: date-time */
              nextAttemptOn?: string
              attempts: {
                attempt: number
                /** Format: date-time */
                at: string
                durationMs: number
                status?: number
                error?: string
              }[]
              /** Format: date-time */
              _createdOn: string
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  login: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          username: string
          password: string
          code?: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              accessToken: string
              /** @enum {string} */
              tokenType: 'Bearer'
              expiresIn: number
              userId: string
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  requestPasswordReset: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: {
      content: {
        'application/json': {
          email?: string
          username?: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              /** @enum {boolean} */
              requested: true
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  confirmPasswordReset: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          token: string
          password: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              userId: string
              revokedLongLivedTokens: number
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  setupTwoFactor: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              secret: string
              uri: string
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  enableTwoFactor: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          code: string
          password: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              recoveryCodes: string[]
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  disableTwoFactor: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          password: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              /** @enum {boolean} */
              twoFactorEnabled: false
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  regenerateRecoveryCodes: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          password: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              recoveryCodes: string[]
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  changePassword: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          password: string
          newPassword: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              accessToken: string
              /** @enum {string} */
              tokenType: 'Bearer'
              expiresIn: number
              userId: string
              revokedLongLivedTokens: number
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  signOutEverywhere: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              /** @enum {boolean} */
              signedOut: true
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  resetTwoFactor: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          userId: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              userId: string
              /** @enum {boolean} */
              twoFactorEnabled: false
              revokedLongLivedTokens: number
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  loginApiV2: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          username: string
          password: string
          code?: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              accessToken: string
              /** @enum {string} */
              tokenType: 'Bearer'
              expiresIn: number
              userId: string
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  requestPasswordResetApiV2: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: {
      content: {
        'application/json': {
          email?: string
          username?: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              /** @enum {boolean} */
              requested: true
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  confirmPasswordResetApiV2: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          token: string
          password: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              userId: string
              revokedLongLivedTokens: number
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  setupTwoFactorApiV2: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              secret: string
              uri: string
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  enableTwoFactorApiV2: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          code: string
          password: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              recoveryCodes: string[]
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  disableTwoFactorApiV2: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          password: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              /** @enum {boolean} */
              twoFactorEnabled: false
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  regenerateRecoveryCodesApiV2: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          password: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              recoveryCodes: string[]
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  changePasswordApiV2: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          password: string
          newPassword: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              accessToken: string
              /** @enum {string} */
              tokenType: 'Bearer'
              expiresIn: number
              userId: string
              revokedLongLivedTokens: number
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  signOutEverywhereApiV2: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              /** @enum {boolean} */
              signedOut: true
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  resetTwoFactorApiV2: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          userId: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              userId: string
              /** @enum {boolean} */
              twoFactorEnabled: false
              revokedLongLivedTokens: number
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  listSessions: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              userAgent: string
              /** Format: date-time */
              _createdOn: string
              /** Format: date-time */
              lastUsedOn: string
              /** Format: date-time */
              expiresOn: string
              current: boolean
            }[]
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  openSession: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          username: string
          password: string
          code?: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              accessToken: string
              /** @enum {string} */
              tokenType: 'Bearer'
              expiresIn: number
              userId: string
              refreshToken: string
              refreshExpiresIn: number
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  renewSession: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          refreshToken: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              accessToken: string
              /** @enum {string} */
              tokenType: 'Bearer'
              expiresIn: number
              userId: string
              refreshToken: string
              refreshExpiresIn: number
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  endSession: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          refreshToken: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              /** @enum {boolean} */
              signedOut: true
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  endOwnSession: {
    parameters: {
      query?: never
      header?: never
      path: {
        sessionId: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              /** @enum {boolean} */
              signedOut: true
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  listSessionsApiV2: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              userAgent: string
              /** Format: date-time */
              _createdOn: string
              /** Format: date-time */
              lastUsedOn: string
              /** Format: date-time */
              expiresOn: string
              current: boolean
            }[]
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  openSessionApiV2: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          username: string
          password: string
          code?: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              accessToken: string
              /** @enum {string} */
              tokenType: 'Bearer'
              expiresIn: number
              userId: string
              refreshToken: string
              refreshExpiresIn: number
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  renewSessionApiV2: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          refreshToken: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              accessToken: string
              /** @enum {string} */
              tokenType: 'Bearer'
              expiresIn: number
              userId: string
              refreshToken: string
              refreshExpiresIn: number
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  endSessionApiV2: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          refreshToken: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              /** @enum {boolean} */
              signedOut: true
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  endOwnSessionApiV2: {
    parameters: {
      query?: never
      header?: never
      path: {
        sessionId: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              /** @enum {boolean} */
              signedOut: true
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  listUsers: {
    parameters: {
      query?: {
        limit?: number
        after?: string
        exclude?: string
        query?: string
      }
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              username?: string
              profile?: {
                environments: {
                  [key: string]: {
                    name: string
                    email: string
                    language: string
                    locale: string
                    administrator: boolean
                    active: boolean
                    groups: string[]
                  }
                }
              } & {
                [key: string]: unknown
              }
              globalEmails?: {
                address: string
                verified: boolean
              }[]
              /** Format: date-time */
              lastLogin?: string
              isSuperAdministrator?: boolean
              /** Format: date-time */
              _createdOn?: string
              _createdByUserId?: string
              /** Format: date-time */
              _lastModifiedOn?: string
              _lastModifiedByUserId?: string
            }[]
            pagination: {
              hasPrevious: boolean
              hasNext: boolean
              /** @enum {string} */
              type: 'cursor'
              next?: string
              total?: number
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  createUser: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          username: string
          password?: string
          name?: string
          /** Format: email */
          email?: string
          language?: string
          locale?: string
          administrator?: boolean
          active?: boolean
          groups?: string[]
        }
      }
    }
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              username?: string
              profile?: {
                environments: {
                  [key: string]: {
                    name: string
                    email: string
                    language: string
                    locale: string
                    administrator: boolean
                    active: boolean
                    groups: string[]
                  }
                }
              } & {
                [key: string]: unknown
              }
              globalEmails?: {
                address: string
                verified: boolean
              }[]
              /** Format: date-time */
              lastLogin?: string
              isSuperAdministrator?: boolean
              /** Format: date-time */
              _createdOn?: string
              _createdByUserId?: string
              /** Format: date-time */
              _lastModifiedOn?: string
              _lastModifiedByUserId?: string
            }[]
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getUser: {
    parameters: {
      query?: never
      header?: never
      path: {
        userId: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              username?: string
              profile?: {
                environments: {
                  [key: string]: {
                    name: string
                    email: string
                    language: string
                    locale: string
                    administrator: boolean
                    active: boolean
                    groups: string[]
                  }
                }
              } & {
                [key: string]: unknown
              }
              globalEmails?: {
                address: string
                verified: boolean
              }[]
              /** Format: date-time */
              lastLogin?: string
              isSuperAdministrator?: boolean
              /** Format: date-time */
              _createdOn?: string
              _createdByUserId?: string
              /** Format: date-time */
              _lastModifiedOn?: string
              _lastModifiedByUserId?: string
            }[]
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  updateUser: {
    parameters: {
      query?: never
      header?: never
      path: {
        userId: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          name?: string
          /** Format: email */
          email?: string
          language?: string
          locale?: string
          administrator?: boolean
          active?: boolean
          groups?: string[]
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              username?: string
              profile?: {
                environments: {
                  [key: string]: {
                    name: string
                    email: string
                    language: string
                    locale: string
                    administrator: boolean
                    active: boolean
                    groups: string[]
                  }
                }
              } & {
                [key: string]: unknown
              }
              globalEmails?: {
                address: string
                verified: boolean
              }[]
              /** Format: date-time */
              lastLogin?: string
              isSuperAdministrator?: boolean
              /** Format: date-time */
              _createdOn?: string
              _createdByUserId?: string
              /** Format: date-time */
              _lastModifiedOn?: string
              _lastModifiedByUserId?: string
            }[]
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getReferenceData: {
    parameters: {
      query?: never
      header?: never
      path: {
        userId: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              username: string
              name: string
              email: string
              language: string
              locale: string
              groups: string[]
              administrator: boolean
              active: boolean
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  listLongLivedTokens: {
    parameters: {
      query?: {
        limit?: number
        after?: string
      }
      header?: never
      path: {
        userId: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              name: string
              /** Format: date-time */
              _createdOn: string
              _createdByUserId: string
              expiresOn: string | null
              lastUsedOn: string | null
            }[]
            pagination: {
              hasPrevious: boolean
              hasNext: boolean
              /** @enum {string} */
              type: 'cursor'
              next?: string
              total?: number
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  createLongLivedToken: {
    parameters: {
      query?: never
      header?: never
      path: {
        userId: string
      }
      cookie?: never
    }
    requestBody?: {
      content: {
        'application/json': {
          name?: string
          /** Format: date-time */
          expiresOn?: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              name: string
              /** Format: date-time */
              _createdOn: string
              _createdByUserId: string
              expiresOn: string | null
              lastUsedOn: string | null
              token: string
            }[]
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  revokeLongLivedToken: {
    parameters: {
      query?: never
      header?: never
      path: {
        userId: string
        tokenId: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              /** @enum {boolean} */
              revoked: true
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  listEnvironments: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              name: string
              active: boolean
              /** Format: date-time */
              _createdOn: string
              _createdByUserId: string
            }[]
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  createEnvironment: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          _id: string
          name: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              name: string
              active: boolean
              /** Format: date-time */
              _createdOn: string
              _createdByUserId: string
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getEnvironment: {
    parameters: {
      query?: never
      header?: never
      path: {
        environmentId: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              name: string
              active: boolean
              /** Format: date-time */
              _createdOn: string
              _createdByUserId: string
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  deleteEnvironment: {
    parameters: {
      query?: {
        force?: boolean
      }
      header?: never
      path: {
        environmentId: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              /** @enum {boolean} */
              deleted: true
              removedUserEntries: number
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  updateEnvironment: {
    parameters: {
      query?: never
      header?: never
      path: {
        environmentId: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          name?: string
          active?: boolean
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              name: string
              active: boolean
              /** Format: date-time */
              _createdOn: string
              _createdByUserId: string
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  listPackages: {
    parameters: {
      query?: {
        limit?: number
        after?: string
      }
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              /** Format: date-time */
              _createdOn: string
              _createdByUserId: string
              /** Format: date-time */
              _lastModifiedOn: string
              _lastModifiedByUserId: string
              name: string
              label: string
              shortDescription: string
              versions: {
                _id: string
                /** Format: date-time */
                _createdOn: string
                _createdByUserId: string
                /** Format: date-time */
                _lastModifiedOn: string
                _lastModifiedByUserId: string
                packageId: string
                versionNumber: string
                availableOnMarketplace: boolean
              }[]
            }[]
            pagination: {
              hasPrevious: boolean
              hasNext: boolean
              /** @enum {string} */
              type: 'cursor'
              next?: string
              total?: number
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  createPackage: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          name: string
          label: string
          shortDescription: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              /** Format: date-time */
              _createdOn: string
              _createdByUserId: string
              /** Format: date-time */
              _lastModifiedOn: string
              _lastModifiedByUserId: string
              name: string
              label: string
              shortDescription: string
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  addVersion: {
    parameters: {
      query?: never
      header?: never
      path: {
        /** @description The package's `_id` (never `installations`, the segment of the installation paths) */
        packageId: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          versionNumber: string
          /** @default false */
          availableOnMarketplace?: boolean
        }
      }
    }
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              /** Format: date-time */
              _createdOn: string
              _createdByUserId: string
              /** Format: date-time */
              _lastModifiedOn: string
              _lastModifiedByUserId: string
              packageId: string
              versionNumber: string
              availableOnMarketplace: boolean
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  updateVersion: {
    parameters: {
      query?: never
      header?: never
      path: {
        /** @description The package's `_id` (never `installations`, the segment of the installation paths) */
        packageId: string
        versionId: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          availableOnMarketplace: boolean
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              _id: string
              /** Format: date-time */
              _createdOn: string
              _createdByUserId: string
              /** Format: date-time */
              _lastModifiedOn: string
              _lastModifiedByUserId: string
              packageId: string
              versionNumber: string
              availableOnMarketplace: boolean
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  listInstallations: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              packageId: string
              packageVersionId: string
              packageName: string
              packageLabel: string
              packageShortDescription: string
              versionNumber: string
              latestVersionNumber: string | null
            }[]
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  installPackage: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          packageVersionId: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              packageId: string
              packageVersionId: string
              packageName: string
              packageLabel: string
              packageShortDescription: string
              versionNumber: string
              latestVersionNumber: string | null
            }
          }
        }
      }
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              packageId: string
              packageVersionId: string
              packageName: string
              packageLabel: string
              packageShortDescription: string
              versionNumber: string
              latestVersionNumber: string | null
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  removeInstallation: {
    parameters: {
      query?: never
      header?: never
      path: {
        /** @description The package's `_id` (never `installations`, the segment of the installation paths) */
        packageId: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              packageId: string
              /** @enum {boolean} */
              deleted: true
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  activeUsers: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok'
            data: {
              activeUsers: number
            }
          }
        }
      }
      /** @description The request was refused: see `error` for why */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The server failed or is unavailable */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
}
