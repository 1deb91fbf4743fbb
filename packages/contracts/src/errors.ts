/** Every error code of the API and the HTTP status it is sent with (API.md, "Errors"). */
export const ERROR_STATUS = {
  environment_id_missing: 400,
  validation_error: 400,
  invalid_query: 400,
  invalid_value_path: 400,
  parallel_arrays: 400,
  unauthorized: 401,
  two_factor_required: 401,
  forbidden: 403,
  document_definition_not_found_for_id_or_name: 404,
  document_not_found: 404,
  user_not_found: 404,
  attachment_not_found: 404,
  package_not_found: 404,
  token_not_found: 404,
  not_found: 404,
  duplicate_external_id: 409,
  duplicate_name: 409,
  duplicate_username: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const

export type ErrorCode = keyof typeof ERROR_STATUS

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[]
