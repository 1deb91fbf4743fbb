import { createReadStream } from 'node:fs'
import { open } from 'node:fs/promises'
import { createInterface } from 'node:readline'
import JSONParser from '@streamparser/json-node/jsonparser.js'
import { parse } from 'csv-parse'
import { DOCUMENT_SYSTEM_FIELDS, type FieldSpec, type TransferFormat } from '@quire/contracts'
import { fail } from '@quire/service-kit'
import type { DocumentFields } from '../collections.js'
import { CellError, fromCsvCell } from './csv-cells.js'

/** One record of an import file: its fields, or why it cannot be a document (`row` is 1-based). */
export type ImportRecord = { row: number; fields: DocumentFields } | { row: number; refusal: string }

/** A CSV record (or a JSON text) larger than this is refused whole: no cell can make the parser hold more. */
const MAX_RECORD_BYTES = 16 * 1024 * 1024
const SYSTEM = new Set<string>(DOCUMENT_SYSTEM_FIELDS)
/** The names `userFields` refuses anywhere in a document; refused up front in a CSV header. */
const BAD_COLUMN = /^$|^\$|\.|^(__proto__|constructor|prototype)$/

const malformed = (why: string) => fail('validation_error', `body: ${why}`, 'The file could not be read')

const asFields = (row: number, value: unknown): ImportRecord =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? { row, fields: value as DocumentFields }
    : { row, refusal: 'not a JSON object' }

/** NDJSON: one JSON object a line, each read on its own (a bad line is that record's refusal); blank lines skipped. */
async function* ndjsonRecords(path: string): AsyncGenerator<ImportRecord> {
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity })
  let row = 0
  for await (const line of lines) {
    if (line.trim() === '') continue
    row++
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch {
      yield { row, refusal: 'not valid JSON' }
      continue
    }
    yield asFields(row, value)
  }
}

/** The first bytes of the file, past a BOM and white space: what the JSON text starts with. */
async function firstCharacter(path: string): Promise<string> {
  const file = await open(path)
  try {
    const { buffer, bytesRead } = await file.read(Buffer.alloc(1024), 0, 1024, 0)
    return buffer
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trimStart()
      .charAt(0)
  } finally {
    await file.close()
  }
}

/** A JSON array of objects, parsed as it is read (never the whole text in memory); a syntax error refuses the file. */
async function* jsonRecords(path: string): AsyncGenerator<ImportRecord> {
  if ((await firstCharacter(path)) !== '[') throw malformed('a JSON body must be an array of objects')
  // `paths: ['$.*']` emits each item of the top-level array once parsed; `keepStack: false` forgets it after.
  const parser = createReadStream(path).pipe(new JSONParser({ paths: ['$.*'], keepStack: false }))
  let row = 0
  try {
    for await (const { value } of parser as AsyncIterable<{ value: unknown }>) yield asFields(++row, value)
  } catch (error) {
    throw malformed(`not valid JSON after item ${row}: ${error instanceof Error ? error.message : String(error)}`)
  }
}

/** The header row: names a document may hold, each once. */
function checkHeader(header: string[]): void {
  const seen = new Set<string>()
  for (const name of header) {
    if (BAD_COLUMN.test(name)) throw malformed(`the CSV column "${name}" is not a field name`)
    if (seen.has(name)) throw malformed(`the CSV column "${name}" appears twice`)
    seen.add(name)
  }
}

/**
 * CSV with a header row of field names (RFC 4180, by csv-parse): cells typed by the definition's `fields`,
 * empty cells left out, system columns (`_id`, ...) ignored. A record with another number of cells than the
 * header, or a cell that does not read as its type, is that record's refusal; a quoting error refuses the file.
 */
async function* csvRecords(path: string, fields: Record<string, FieldSpec>): AsyncGenerator<ImportRecord> {
  const parser = createReadStream(path).pipe(
    parse({ bom: true, relax_column_count: true, skip_empty_lines: true, max_record_size: MAX_RECORD_BYTES }),
  )
  let header: string[] | undefined
  let row = 0
  try {
    for await (const cells of parser as AsyncIterable<string[]>) {
      if (!header) {
        header = cells
        checkHeader(header)
        continue
      }
      row++
      if (cells.length !== header.length) {
        yield { row, refusal: `${cells.length} cells where the header has ${header.length}` }
        continue
      }
      yield csvRecord(row, header, cells, fields)
    }
  } catch (error) {
    if (error instanceof Error && 'code' in error && String(error.code).startsWith('CSV_')) {
      throw malformed(`not valid CSV: ${error.message}`)
    }
    throw error
  }
  if (!header) throw malformed('a CSV body needs a header row')
}

function csvRecord(row: number, header: string[], cells: string[], fields: Record<string, FieldSpec>): ImportRecord {
  const record: DocumentFields = {}
  for (const [index, column] of header.entries()) {
    if (SYSTEM.has(column)) continue
    try {
      const value = fromCsvCell(column, cells[index] ?? '', fields[column]?.type)
      if (value !== undefined) record[column] = value
    } catch (error) {
      if (error instanceof CellError) return { row, refusal: `column ${column}: ${error.message}` }
      throw error
    }
  }
  return { row, fields: record }
}

/**
 * The records of an import file at `path` in `format`, in order. A file that cannot be read as its format
 * throws 400 `validation_error`; a record that cannot be a document is yielded as a refusal.
 */
export function importRecords(
  path: string,
  format: TransferFormat,
  fields: Record<string, FieldSpec> = {},
): AsyncGenerator<ImportRecord> {
  if (format === 'csv') return csvRecords(path, fields)
  return format === 'json' ? jsonRecords(path) : ndjsonRecords(path)
}
