/** Every error code of the API and the HTTP status it is sent with (API.md, "Errors"). */
export const ERROR_STATUS = {
  environment_id_missing: 400,
  validation_error: 400,
  invalid_query: 400,
  invalid_value_path: 400,
  parallel_arrays: 400,
  action_refused: 400,
  unauthorized: 401,
  two_factor_required: 401,
  forbidden: 403,
  document_definition_not_found_for_id_or_name: 404,
  document_not_found: 404,
  user_not_found: 404,
  attachment_not_found: 404,
  package_not_found: 404,
  token_not_found: 404,
  action_not_found: 404,
  not_found: 404,
  duplicate_external_id: 409,
  duplicate_name: 409,
  duplicate_username: 409,
  duplicate_email: 409,
  action_depth_exceeded: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  action_failed: 422,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
  scripts_busy: 503,
} as const

export type ErrorCode = keyof typeof ERROR_STATUS

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[]

/**
 * What each code means to a person using an app: the `userDescription` an error carries unless its thrower gives
 * a more precise one. Plain language, no field paths, patterns or internals (those stay in `description`).
 */
export const USER_DESCRIPTIONS: Readonly<Record<ErrorCode, string>> = {
  environment_id_missing: 'No environment was selected',
  validation_error: 'Some of the information sent is missing or not valid; please check it and try again',
  invalid_query: 'The search could not be understood; please check it and try again',
  invalid_value_path: 'A field named in the request does not exist or cannot be used here',
  parallel_arrays: 'Two fields indexed together both hold lists; only one of them may be a list',
  action_refused: 'This change was refused by a rule of this kind of document',
  unauthorized: 'Please sign in again',
  two_factor_required: 'Please enter the code from your authenticator app',
  forbidden: 'You are not allowed to do this',
  document_definition_not_found_for_id_or_name: 'This kind of document does not exist',
  document_not_found: 'This document does not exist or was deleted',
  user_not_found: 'This user does not exist',
  attachment_not_found: 'This attachment does not exist or was deleted',
  package_not_found: 'This package does not exist',
  token_not_found: 'This token does not exist or was already revoked',
  action_not_found: 'This action does not exist for this kind of document',
  not_found: 'Nothing was found at this address',
  duplicate_external_id: 'Another document already uses this external id',
  duplicate_name: 'This name is already taken',
  duplicate_username: 'This username is already taken',
  duplicate_email: 'This e-mail address is already used by another account',
  action_depth_exceeded: 'This change would set off too many actions in a row',
  precondition_failed: 'Someone changed this in the meantime; reload it and try again',
  payload_too_large: 'What you sent is too large',
  unsupported_media_type: 'This kind of content is not accepted here',
  action_failed: 'An action of this kind of document failed; please try again or tell an administrator',
  rate_limited: 'Too many attempts; please wait a moment and try again',
  internal_error: 'Something went wrong on our side; please try again later',
  service_unavailable: 'The service is busy or unavailable; please try again in a moment',
  scripts_busy: 'Too many actions are running right now; please try again in a moment',
}
