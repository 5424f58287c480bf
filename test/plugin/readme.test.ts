import { describe, expect, it } from 'vitest'
import { readFile } from 'node:fs/promises'
import { DETECTOR_SETTINGS } from '../../src/detector/index.ts'
import { noticeText } from '../../src/plugin/index.ts'
import { createContinuationNotice, reactionLine, trimMarker } from '../../src/plugin/messages.ts'
import { ConfigFields } from '../../src/plugin/config.ts'
import type { Finding, Tone } from '../../src/plugin/index.ts'

/** The Config table rows as the docs must show them: field, default, description, from the schema. */
function configRows(): Array<{ field: string; value: string; description: string; detector: boolean }> {
  return Object.entries((ConfigFields as any).dict as Record<string, any>).map(([field, schema]) => {
    const value = schema.meta.default
    return {
      field,
      value: typeof value === 'string' ? `'${value}'` : String(value),
      description: schema.meta.description,
      detector: Object.hasOwn(DETECTOR_SETTINGS, field),
    }
  })
}

describe('the Config tables (README for the reaction settings, docs/detector for the thresholds)', () => {
  it('show every Config field with the schema default and description (en) and default (zh)', async () => {
    const files = {
      reaction: [await readFile('README.md', 'utf8'), await readFile('README.zh.md', 'utf8')],
      detector: [await readFile('docs/detector.md', 'utf8'), await readFile('docs/detector.zh.md', 'utf8')],
    }
    for (const { field, value, description, detector } of configRows()) {
      const [en, zh] = detector ? files.detector : files.reaction
      expect(en).toContain(`| \`${field}\` | \`${value}\` | ${description.replace(/\|/g, '\\|')} |`)
      expect(zh).toContain(`| \`${field}\` | \`${value}\` |`)
    }
  })
})

/** The text of a message's content blocks. */
function contentText(message: { content: Array<{ type: string; text?: string }> }): string {
  return message.content.map((part) => part.text ?? '').join('')
}

describe("the README's Model Experience", () => {
  it('quotes one notice per tone exactly as the plugin sends it, in both languages, in both READMEs', async () => {
    const cut: Finding = { kind: 'break', rule: 'phrase-pool', side: 'reasoning', repeatedChars: 704 }
    const shown: Array<[Finding, Tone, number]> = [
      [cut, 'remind', 1],
      [cut, 'replan', 2],
      [cut, 'resume', 3],
      [{ kind: 'stall', judge: 'step', reason: 'repeated-step' }, 'remind', 1],
    ]
    for (const readme of [await readFile('README.md', 'utf8'), await readFile('README.zh.md', 'utf8')]) {
      for (const locale of ['zh', 'en'] as const) {
        for (const [finding, tone, streak] of shown) expect(readme).toContain(noticeText(locale, finding, tone, streak))
        expect(readme).toContain(contentText(createContinuationNotice(locale, undefined)))
        // One cut, one count: the marker quoted beside the notices removed what the notices report.
        expect(readme).toContain(trimMarker(locale, cut.repeatedChars))
      }
    }
    // The log line example gives that count too, in the README of its language.
    const line = (locale: 'en' | 'zh') => reactionLine(locale, cut, { turn: 1, step: 1 }, { action: 'remind', level: 1, resume: false })
    expect(await readFile('README.md', 'utf8')).toContain(line('en'))
    expect(await readFile('README.zh.md', 'utf8')).toContain(line('zh'))
  })
})
