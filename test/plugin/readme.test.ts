import { describe, expect, it } from 'vitest'
import { readFile } from 'node:fs/promises'
import { Config, noticeText } from '../../src/plugin/index.ts'

/** The Config table rows as the README must show them: field, default, description, from the schema. */
function configRows(): Array<{ field: string; value: string; description: string }> {
  return Object.entries((Config as any).dict as Record<string, any>).map(([field, schema]) => {
    const value = schema.meta.default
    return { field, value: typeof value === 'string' ? `'${value}'` : String(value), description: schema.meta.description }
  })
}

describe('README (en and zh) of the plugin', () => {
  it('show every Config field with the schema default and description (en) and default (zh)', async () => {
    const en = await readFile('README.md', 'utf8')
    const zh = await readFile('README.zh.md', 'utf8')
    for (const { field, value, description } of configRows()) {
      expect(en).toContain(`| \`${field}\` | \`${value}\` | ${description.replace(/\|/g, '\\|')} |`)
      expect(zh).toContain(`| \`${field}\` | \`${value}\` |`)
    }
  })

  it('quote the notices exactly as the plugin sends them', async () => {
    const en = await readFile('README.md', 'utf8')
    const zh = await readFile('README.zh.md', 'utf8')
    for (const locale of ['zh', 'en'] as const) {
      const remind = noticeText(locale, { kind: 'break', rule: 'phrase-pool', side: 'reasoning', repeatedChars: 704 }, 'remind', 1)
      const stall = noticeText(locale, { kind: 'stall', judge: 'step', reason: 'alternating-steps' }, 'remind', 1)
      for (const part of [en, zh]) {
        expect(part).toContain(remind)
        expect(part).toContain(stall)
      }
    }
  })
})
