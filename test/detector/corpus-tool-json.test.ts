import { describe, it } from 'vitest'
import { checkCorpusPass } from './corpus-trips.ts'

describe('false-trip corpus', () => {
  it('trips on no document written through write_file tool-call arguments (JSON-escaped) but the known ones', () => checkCorpusPass('tool-json'), 900_000)
})
