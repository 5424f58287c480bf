import { describe, it } from 'vitest'
import { checkCorpusPass } from './corpus-trips.ts'

describe('false-trip corpus', () => {
  it('trips on no document fed to the reasoning side but the known ones', () => checkCorpusPass('reasoning'), 900_000)
})
