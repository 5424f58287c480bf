import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { guardsOf, jsExpression, loopBreakerRows, parsePatchFile, readPatchConfig } from '../../src/session/index.ts'

const scratch = await mkdtemp(join(tmpdir(), 'patch-config-'))
afterAll(() => rm(scratch, { recursive: true, force: true }))
const root = join(import.meta.dirname, '../..')

describe('parsePatchFile (DSH\'s patch dialect, read with js-yaml)', () => {
  it('reads block sequences of mappings, nested mappings, scalars and comments', () => {
    const text = [
      '# a profile patch',
      '- name: \'@deepseek-ai/dsh-llm-retry\'',
      '  id: llm-retry',
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
    expect(parsePatchFile(text, 'p.yml')).toEqual([
      { name: '@deepseek-ai/dsh-llm-retry', id: 'llm-retry' },
      { id: 'loop-breaker', config: { textCycleMinSpan: 512, poolMinCoverage: 0.75, escalate: 'warn', resumeAfterBreak: true, empty: null, list: [1, 2], url: 'http://127.0.0.1:80/#frag' } },
      { insert: [{ id: 'other' }] },
    ])
  })

  it('reads any valid patch file: a fresh profile\'s `[]`, an empty file, flow style, anchors and aliases, block scalars, !!js', () => {
    expect(parsePatchFile('[]\n', 'fresh.yml')).toEqual([])
    expect(parsePatchFile('# nothing yet\n', 'empty.yml')).toEqual([])
    expect(parsePatchFile('[{id: loop-breaker, config: {textCycleMinSpan: 512}}]  # flow\n', 'flow.yml'))
      .toEqual([{ id: 'loop-breaker', config: { textCycleMinSpan: 512 } }])
    const anchored = [
      '- id: loop-breaker',
      '  config: &tuned',
      '    textCycleMinSpan: 512',
      '- insert:',
      '    - id: other',
      '      note: |',
      '        two',
      '        lines',
      '      config: *tuned',
      '      when: !!js process.env.CI',
    ].join('\n')
    expect(parsePatchFile(anchored, 'anchors.yml')).toEqual([
      { id: 'loop-breaker', config: { textCycleMinSpan: 512 } },
      { insert: [{ id: 'other', note: 'two\nlines\n', config: { textCycleMinSpan: 512 }, when: { __jsExpr: 'process.env.CI' } }] },
    ])
  })

  it('one clear error with file and line for a file DSH would not apply', () => {
    expect(() => parsePatchFile('a: [1\n', 'p.yml')).toThrow(/^p\.yml:2: not valid YAML: unexpected end of the stream within a flow collection$/)
    expect(() => parsePatchFile('id: loop-breaker\nconfig: {}\n', 'p.yml'))
      .toThrow('p.yml: a Cordis patch file is a top-level YAML list of entries (`- id: ...`), got a mapping')
    expect(() => parsePatchFile('- id: a\n\n- just text\n', 'p.yml')).toThrow('p.yml:3: patch entry 2 is the string "just text", not a mapping')
    expect(() => parsePatchFile('- id: a\n- config:\n    textCycleMinSpan: 512\n', 'p.yml'))
      .toThrow('p.yml:2: patch entry 2 has no `id`: a patch names the row it changes (`- id: loop-breaker`), or inserts rows (`- insert: [...]`)')
  })
})

describe('the loop-breaker row of patch files', () => {
  it('reads the package\'s own bundle patch (an insert list) with every setting at its default', async () => {
    const config = await readPatchConfig([join(root, 'cordis.patch.yml')])
    expect(config).toMatchObject({ reasoning: 'full', steps: true, escalate: 'cancel' })
  })

  it('finds rows by id or package name at any depth', () => {
    expect(loopBreakerRows([{ insert: [{ name: 'dsh-loop-breaker', config: { a: 1 } }] }, { id: 'loop-breaker', config: { b: 2 } }, { id: 'other', config: { c: 3 } }]))
      .toEqual([{ a: 1 }, { b: 2 }])
  })

  it('a later row replaces an earlier one whole, as in DSH\'s layers; later files win', async () => {
    const first = join(scratch, 'first.yml')
    const second = join(scratch, 'second.yml')
    await writeFile(first, '- id: loop-breaker\n  config:\n    text: verbatim\n    tool: off\n- id: loop-breaker\n  config:\n    tool: verbatim\n')
    await writeFile(second, '- id: unrelated\n  config:\n    x: 1\n')
    expect(await readPatchConfig([first])).toEqual({ tool: 'verbatim' })
    expect(await readPatchConfig([first, second])).toEqual({ tool: 'verbatim' })
    expect(await readPatchConfig([second])).toEqual({})
  })

  it('a fresh profile patch (`[]`) adds nothing; a !!js value is kept for the caller to refuse', async () => {
    const fresh = join(scratch, 'fresh.yml')
    const js = join(scratch, 'js.yml')
    await writeFile(fresh, '[]\n')
    await writeFile(js, "- id: loop-breaker\n  config:\n    text: !!js \"'v' + 'erbatim'\"\n")
    expect(await readPatchConfig([join(root, 'cordis.patch.yml'), fresh])).toMatchObject({ text: 'full' })
    const config = await readPatchConfig([js])
    expect(jsExpression(config.text)).toBe("'v' + 'erbatim'")
    expect(jsExpression(512)).toBeUndefined()
  })

  it('gives the analyzer the guards, names settings of an earlier version in the live plugin\'s line, and unknown names with the closest setting', () => {
    const { guards, retired, unknown } = guardsOf({ reasoning: 'verbatim', steps: false, escalate: 'warn', textCycleMinSpan: 512, cropAfter: 4, reasonig: 'off' })
    expect(guards).toEqual({ reasoning: 'verbatim', steps: false })
    expect(retired).toMatch(/^loop-breaker: 2 settings of an earlier version left out .*textCycleMinSpan → text; cropAfter → crop;/)
    expect(unknown).toEqual([{ name: 'reasonig', closest: 'reasoning' }])
    expect(guardsOf({ escalate: 'warn' })).toEqual({ guards: {}, retired: undefined, unknown: [] })
  })
})
