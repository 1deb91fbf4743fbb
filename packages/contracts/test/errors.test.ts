import t from 'tap'
import { ERROR_STATUS, ERROR_CODES } from '../src/index.js'

t.test('every error code maps to a 4xx or 5xx status', async (t) => {
  for (const code of ERROR_CODES) {
    t.ok(ERROR_STATUS[code] >= 400 && ERROR_STATUS[code] < 600, code)
  }
  t.equal(ERROR_STATUS.document_definition_not_found_for_id_or_name, 404)
})
