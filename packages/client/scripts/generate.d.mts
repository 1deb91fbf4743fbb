/** `src/schema.ts`'s path. */
export declare const SCHEMA_FILE: string
/** The text `src/schema.ts` should hold, generated from the gateway's OpenAPI document. */
export declare function generateSchema(): Promise<string>
