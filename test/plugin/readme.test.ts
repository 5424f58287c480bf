import { describe, expect, it } from 'vitest'
import { readFile } from 'node:fs/promises'
import { DETECTOR_SETTINGS } from '../../src/detector/index.ts'
import { noticeText } from '../../src/plugin/index.ts'
import { createContinuationNotice, reactionLine, trimMarker } from '../../src/plugin/messages.ts'
import { ConfigFields } from '../../src/plugin/config.ts'
import type { Finding, Tone } from '../../src/plugin/index.ts'

const shown = (value: unknown) => (typeof value === 'string' ? `'${value}'` : String(value))
const TABLE_ROW = /^\| `([A-Za-z]+)` \| `[^`]*` \| .* \|$/gm

/** The settings tables: the plugin's Config in the README, the detector's thresholds in docs/detector. */
function tables(): Array<{ files: [string, string]; rows: Array<{ field: string; value: string; description: string }> }> {
  return [
    {
      files: ['README.md', 'README.zh.md'],
      rows: Object.entries((ConfigFields as any).dict as Record<string, any>)
        .map(([field, schema]) => ({ field, value: shown(schema.meta.default), description: schema.meta.description })),
    },
    {
      files: ['docs/detector.md', 'docs/detector.zh.md'],
      rows: Object.entries(DETECTOR_SETTINGS).map(([field, setting]) => ({ field, value: shown(setting.default), description: setting.description })),
    },
  ]
}

describe('the settings tables (README for the plugin Config, docs/detector for the thresholds)', () => {
  it('show exactly every setting with its default and description (en) and default (zh)', async () => {
    for (const { files, rows } of tables()) {
      const [en, zh] = [await readFile(files[0], 'utf8'), await readFile(files[1], 'utf8')]
      for (const { field, value, description } of rows) {
        expect(en).toContain(`| \`${field}\` | \`${value}\` | ${description.replace(/\|/g, '\\|')} |`)
        expect(zh).toContain(`| \`${field}\` | \`${value}\` |`)
      }
      for (const text of [en, zh]) expect([...text.matchAll(TABLE_ROW)].map((match) => match[1]), files[0]).toEqual(rows.map((row) => row.field))
    }
  })

  it('the README lists twelve settings at most, and no detector threshold', async () => {
    const readme = await readFile('README.md', 'utf8')
    const fields = [...readme.matchAll(TABLE_ROW)].map((match) => match[1])
    expect(fields.length).toBeLessThanOrEqual(12)
    for (const field of fields) expect(Object.hasOwn(DETECTOR_SETTINGS, field), field).toBe(false)
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
