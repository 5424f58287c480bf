import { describe, expect, it } from 'vitest'
import { readTrimMarker, trimMarker } from '../../src/trim-marker.ts'

describe('the trim marker, as the plugin writes it and the session reader reads it back', () => {
  it.each(['en', 'zh'] as const)('%s: every count, and a cut with nothing removed, read back from the end of a block', (locale) => {
    for (const removed of [0, 1, 999, 1_000, 1_234_567]) {
      const marker = trimMarker(locale, removed)
      expect(readTrimMarker(`kept text${marker}`)).toBe(removed)
      expect(readTrimMarker(`{"path":"a.md","content":"- [ ]${marker}`)).toBe(removed)
      // Only at the very end: a marker the model quotes mid-text is not a cut.
      expect(readTrimMarker(`kept text${marker} and more`)).toBeUndefined()
    }
  })

  it('the English count has thousands separators, the Chinese one none', () => {
    expect(trimMarker('en', 1234)).toBe(' …[loop-breaker: 1,234 repeated characters removed]')
    expect(trimMarker('zh', 1234)).toBe(' ……[loop-breaker：已删去 1234 个重复字符]')
    expect(readTrimMarker('plain text')).toBeUndefined()
  })
})
