import { describe, expect, it } from 'vitest'
import { readFile, readdir } from 'node:fs/promises'
import { Config, noticeText } from '../../src/plugin/index.ts'

/** The Config table rows as the README must show them: field, default, description, from the schema. */
function configRows(): Array<{ field: string; value: string; description: string }> {
  return Object.entries((Config as any).dict as Record<string, any>).map(([field, schema]) => {
    const value = schema.meta.default
    return { field, value: typeof value === 'string' ? `'${value}'` : String(value), description: schema.meta.description }
  })
}

/** A document and every docs/ page in the same language, joined: a setting's row may live in either. */
async function withDocs(readme: string, zh: boolean): Promise<string> {
  const pages = (await readdir('docs')).filter((file) => file.endsWith('.md') && file.endsWith('.zh.md') === zh).sort()
  return [await readFile(readme, 'utf8'), ...await Promise.all(pages.map((file) => readFile(`docs/${file}`, 'utf8')))].join('\n')
}

describe('README (en and zh) of the plugin', () => {
  it('show every Config field with the schema default and description (en) and default (zh), in the README or a docs/ pair', async () => {
    const en = await withDocs('README.md', false)
    const zh = await withDocs('README.zh.md', true)
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
