/**
 * The English and Chinese documents are kept in step: every `X.md` at the top level and in docs/ has an
 * `X.zh.md` twin with the same skeleton (the same headings by level, the same tables with the same
 * shape, the same code blocks) and the same numbers in its prose. A translation may reword anything,
 * but it may not drop a section, a row, a command or a figure. Code blocks must match except for their
 * comments (whole comment lines and trailing `# ...` / `// ...`), which are translated.
 */
import { describe, expect, it } from 'vitest'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

interface Skeleton {
  headings: number[]
  tables: string[]
  code: string[]
  numbers: string[]
}

const COMMENT = /^\s*(#|\/\/)/
/** A comment at the end of a code line (`cmd   # why`), translated with the prose. */
const TRAILING_COMMENT = /\s+(#|\/\/)\s.*$/

/** The language-independent shape of a markdown document. */
function skeleton(markdown: string): Skeleton {
  const headings: number[] = []
  const tables: string[] = []
  const code: string[] = []
  const prose: string[] = []
  const lines = markdown.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const fence = /^(```+)(\S*)/.exec(line)
    if (fence) {
      const body: string[] = []
      for (i++; i < lines.length && !lines[i]!.startsWith(fence[1]!); i++) {
        if (!COMMENT.test(lines[i]!)) body.push(lines[i]!.replace(TRAILING_COMMENT, ''))
      }
      code.push(`${fence[2]}\n${body.join('\n')}`)
      continue
    }
    const heading = /^(#{1,6}) /.exec(line)
    if (heading) {
      headings.push(heading[1]!.length)
      prose.push(line)
      continue
    }
    if (line.startsWith('|')) {
      let rows = 0
      const columns = line.split('|').length
      for (; i < lines.length && lines[i]!.startsWith('|'); i++) {
        rows++
        prose.push(lines[i]!)
      }
      i--
      tables.push(`${rows} rows × ${columns - 2} columns`)
      continue
    }
    prose.push(line)
  }
  // Figures in prose, thousands separators dropped (1,024 and 1024 are the same number).
  const numbers = prose.join('\n').replace(/(\d),(?=\d{3}\b)/g, '$1').match(/\d+(?:\.\d+)?/g) ?? []
  return { headings, tables, code, numbers: numbers.sort() }
}

function pairs(): Array<[string, string]> {
  const found: Array<[string, string]> = []
  for (const dir of ['.', 'docs']) {
    if (!existsSync(dir)) continue
    for (const name of readdirSync(dir)) {
      if (!name.endsWith('.md') || name.endsWith('.zh.md')) continue
      found.push([join(dir, name), join(dir, name.replace(/\.md$/, '.zh.md'))])
    }
  }
  return found
}

describe('English and Chinese documents are in step', () => {
  it('pairs every document with its Chinese twin', () => {
    const missing = pairs().filter(([, zh]) => !existsSync(zh)).map(([, zh]) => zh)
    expect(missing).toEqual([])
  })

  it.each(pairs())('%s and its twin have the same headings, tables, code blocks and numbers', (en, zh) => {
    const english = skeleton(readFileSync(en, 'utf8'))
    const chinese = skeleton(readFileSync(zh, 'utf8'))
    expect(chinese.headings, 'heading levels').toEqual(english.headings)
    expect(chinese.tables, 'tables').toEqual(english.tables)
    expect(chinese.code, 'code blocks (comment lines aside)').toEqual(english.code)
    expect(chinese.numbers, 'numbers in prose').toEqual(english.numbers)
  })
})
