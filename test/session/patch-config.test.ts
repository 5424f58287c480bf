import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loopBreakerRows, parseYaml, readPatchConfig } from '../../src/session/index.ts'

const scratch = await mkdtemp(join(tmpdir(), 'patch-config-'))
afterAll(() => rm(scratch, { recursive: true, force: true }))
const root = join(import.meta.dirname, '../..')

describe('parseYaml (the subset Cordis patch files use)', () => {
  it('reads block sequences of mappings, nested mappings, scalars and comments', () => {
    const text = [
      '# a profile patch',
      '- name: \'@deepseek-ai/dsh-llm-retry\'',
      '- id: loop-breaker   # tuned',
      '  config:',
      '    textCycleMinSpan: 512',
      '    poolMinCoverage: 0.75',
      '    escalate: "warn"',
      '    resumeAfterBreak: true',
      '    empty:',
      '    list: [1, 2]',
      '    url: http://127.0.0.1:80/#frag',
      '- insert:',
      '  - id: other',
    ].join('\n')
    expect(parseYaml(text)).toEqual([
      { name: '@deepseek-ai/dsh-llm-retry' },
      { id: 'loop-breaker', config: { textCycleMinSpan: 512, poolMinCoverage: 0.75, escalate: 'warn', resumeAfterBreak: true, empty: null, list: [1, 2], url: 'http://127.0.0.1:80/#frag' } },
      { insert: [{ id: 'other' }] },
    ])
  })

  it('fails loud with file and line outside the subset', () => {
    expect(() => parseYaml('a: 1\n  b: 2\n', 'p.yml')).toThrow('p.yml:2: unexpected indentation')
    expect(() => parseYaml('a: |\n  text\n', 'p.yml')).toThrow('p.yml:1: anchors, aliases, tags and block scalars are not supported')
    expect(() => parseYaml('a: "open\n', 'p.yml')).toThrow('p.yml:1: unterminated or trailing text after a quoted string')
    expect(() => parseYaml('just text\n', 'p.yml')).toThrow('p.yml:1: expected "key: value", got "just text"')
  })
})

describe('the loop-breaker row of patch files', () => {
  it('reads the package\'s own bundle patch (an insert list) with every setting at its default', async () => {
    const config = await readPatchConfig([join(root, 'cordis.patch.yml')])
    expect(config).toMatchObject({ reasoningCycleMaxPeriod: 1024, escalate: 'cancel' })
  })

  it('finds rows by id or package name at any depth', () => {
    expect(loopBreakerRows([{ insert: [{ name: 'dsh-loop-breaker', config: { a: 1 } }] }, { id: 'loop-breaker', config: { b: 2 } }, { id: 'other', config: { c: 3 } }]))
      .toEqual([{ a: 1 }, { b: 2 }])
  })

  it('a later row replaces an earlier one whole, as in DSH\'s layers; later files win', async () => {
    const first = join(scratch, 'first.yml')
    const second = join(scratch, 'second.yml')
    await writeFile(first, '- id: loop-breaker\n  config:\n    textCycleMinSpan: 512\n    poolMinCoverage: 0.7\n- id: loop-breaker\n  config:\n    poolMinCoverage: 0.8\n')
    await writeFile(second, '- id: unrelated\n  config:\n    x: 1\n')
    expect(await readPatchConfig([first])).toEqual({ poolMinCoverage: 0.8 })
    expect(await readPatchConfig([first, second])).toEqual({ poolMinCoverage: 0.8 })
    expect(await readPatchConfig([second])).toEqual({})
  })
})
