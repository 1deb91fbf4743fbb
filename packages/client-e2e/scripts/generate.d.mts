/** `packages/client/src/schema.ts`'s path. */
export declare const SCHEMA_FILE: string
/** The repository's `openapi.json`. */
export declare const OPENAPI_FILE: string
/** The texts `openapi.json` and `packages/client/src/schema.ts` should hold, generated from the gateway's OpenAPI document. */
export declare function generate(): Promise<{ openApi: string; schema: string }>
