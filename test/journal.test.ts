import { describe, expect, it } from 'vitest'
import { journalEvent, readJournalRecord, upgradeLegacyRecord } from '../src/journal.ts'

const BREAK = { turn: 2, step: 3, rule: 'phrase-pool', side: 'reasoning', at: 1280, repeatedChars: 704, level: 1, action: 'remind' }

describe('the durable record format', () => {
  it('writes a hook/result envelope that names the record, the open turn and the decision', () => {
    expect(journalEvent('break', 'remind', BREAK)).toEqual({
      turn: 2, point: 'loop-breaker/break', handlerId: 'loop-breaker', decision: 'remind', durationMs: 0, record: BREAK,
    })
  })

  it('reads a record back from either form, and nothing else', () => {
    const expected = { name: 'loop-breaker/break', data: BREAK }
    expect(readJournalRecord('hook/result', journalEvent('break', 'remind', BREAK))).toEqual(expected)
    expect(readJournalRecord('loop-breaker/break', BREAK)).toEqual(expected)
    expect(readJournalRecord('hook/result', { turn: 1, point: 'PreToolUse', handlerId: 'claude-code:PreToolUse:1', decision: 'pass', durationMs: 3 })).toBeUndefined()
    expect(readJournalRecord('hook/result', { ...journalEvent('break', 'remind', BREAK), handlerId: 'other' })).toBeUndefined()
    expect(readJournalRecord('loop-breaker/break', { rule: 'cycle' })).toBeUndefined()
    expect(readJournalRecord('assistant/message', BREAK)).toBeUndefined()
  })

  it('upgrades an old-form record to the loadable one, keeping its data whole', () => {
    expect(upgradeLegacyRecord('loop-breaker/break', BREAK)).toEqual(journalEvent('break', 'remind', BREAK))
    const stall = { turn: 1, step: 4, judge: 'call', reason: 'reasoning-only', level: 2, action: 'replan' }
    expect(upgradeLegacyRecord('loop-breaker/stall', stall)).toEqual(journalEvent('stall', 'replan', stall))
    expect(upgradeLegacyRecord('loop-breaker/break', 'not an object')).toBeUndefined()
    expect(upgradeLegacyRecord('user/message', BREAK)).toBeUndefined()
  })
})
