import { spawnSync } from 'node:child_process'
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import * as detector from '../../src/detector/index.ts'
import { readSession, SessionReplay } from '../../src/session/index.ts'
import { runTool } from './run-tool.ts'

const fixtures = 'test/fixtures/sessions'
const loop = `${fixtures}/phrase-pool.rc8.jsonl.zstd`
const work = `${fixtures}/work.rc8.jsonl.zstd`
const uncut = `${fixtures}/phrase-pool-uncut.rc8.jsonl.zstd`
const scratch = await mkdtemp(join(tmpdir(), 'analyze-session-'))
afterAll(() => rm(scratch, { recursive: true, force: true }))

const analyze = (...args: string[]) => runTool('analyze-session.mjs', args)
const json = async (...args: string[]) => {
  const run = await analyze('--json', ...args)
  return { ...run, document: JSON.parse(run.stdout) }
}

describe('analyze-session --json', () => {
  it('is one document with exactly the documented fields', async () => {
    const { code, document } = await json(loop, work)
    expect(code).toBe(0)
    expect(Object.keys(document)).toEqual(['files', 'summary'])
    expect(Object.keys(document.files[0])).toEqual(['file', 'format', 'calls'])
    expect(Object.keys(document.files[0].calls[0])).toEqual(['turn', 'step', 'attempt', 'reasoningChars', 'textChars', 'toolCalls', 'break', 'stall', 'recorded', 'continuation', 'crop'])
    expect(document.summary).toEqual({ files: 2, calls: document.files[0].calls.length + 5, breaks: 1, stalls: 0, continuations: 0, crops: 0, errors: [] })
    expect(document.files.map((file: any) => [file.file, file.format])).toEqual([[loop, 'rc.8'], [work, 'rc.8']])
  })

  it('reports exactly what the detector source says for each recorded call', async () => {
    const { document } = await json(loop)
    const log = await readSession(loop)
    const replay = new SessionReplay(detector)
    expect(document.files[0].calls.map((call: any) => call.break)).toEqual(log.calls.map((call) => replay.call(call).break))
    expect(document.files[0].calls[0].break).toMatchObject({ rule: 'phrase-pool', side: 'reasoning' })
  })

  it('--set changes a setting; a rule switched off no longer fires', async () => {
    const { document } = await json('--set', 'reasoningPoolMinRepeatedChars=0', loop)
    expect(document.files[0].calls[0].break?.rule).not.toBe('phrase-pool')
  })

  it('--config reads the loop-breaker row of Cordis patch files, later files winning; --set wins over both', async () => {
    const first = join(scratch, 'first.patch.yml')
    const second = join(scratch, 'second.patch.yml')
    await writeFile(first, [
      '# profile patch',
      '- name: \'@deepseek-ai/dsh-llm-retry\'',
      '- id: loop-breaker',
      '  config:',
      '    reasoningPoolMinRepeatedChars: 0   # off',
      '    escalate: warn',
    ].join('\n'))
    await writeFile(second, '- id: loop-breaker\n  config:\n    reasoningPoolMinRepeatedChars: 256\n')
    const off = await json('--config', first, loop)
    expect(off.document.files[0].calls[0].break?.rule).not.toBe('phrase-pool')
    expect(off.stderr).toContain('not detector settings, ignored: escalate')
    const on = await json('--config', first, '--config', second, loop)
    expect(on.document.files[0].calls[0].break).toMatchObject({ rule: 'phrase-pool' })
    const overridden = await json('--config', second, '--set', 'reasoningPoolMinRepeatedChars=0', loop)
    expect(overridden.document.files[0].calls[0].break?.rule).not.toBe('phrase-pool')
  })

  it('--jobs spreads files over worker threads without changing the result', async () => {
    const inputs = [loop, work, `${fixtures}/work.v4.jsonl`, `${fixtures}/work.v4.jsonl.zstd`]
    const one = await json('--jobs', '1', ...inputs)
    const two = await json('--jobs', '2', ...inputs)
    expect(two.document).toEqual(one.document)
  })

  it('one file with --jobs 2 is replayed on a worker thread beside the reader, with the same result', async () => {
    for (const input of [loop, work]) {
      const inThread = await json('--jobs', '1', input)
      const pipelined = await json('--jobs', '2', input)
      expect(pipelined.document).toEqual(inThread.document)
    }
  })
})

describe('analyze-session human output', () => {
  it('prints a table per file and a summary by rule', async () => {
    const { code, stdout, stderr } = await analyze(loop, work)
    expect(code).toBe(0)
    expect(stderr).toBe('') // not a terminal: no progress line
    expect(stdout).toContain(`${loop}  (rc.8, 2 calls)`)
    expect(stdout).toMatch(/call\s+end\s+reasoning\s+text\s+tool\s+verdict\s+rule\s+side@at\s+repeated\s+recorded/)
    // The live plugin cut this call where the replay trips, and steered the model: no disagreement.
    const [, at] = /1\.1\s+stop\s+\d+\s+0\s+-\s+break\s+phrase-pool\s+reasoning@(\d+)\s+\d+\s+remind \(phrase-pool reasoning@(\d+)\)\s+-\n/.exec(stdout)!
    expect(stdout).toContain(`remind (phrase-pool reasoning@${at})`)
    expect(stdout).not.toContain('≠')
    expect(stdout).toMatch(/1\.2\s+stop\s+0\s+100\s+-\s+ok/)
    expect(stdout).toMatch(/2\.1 #2\s+stop/)
    expect(stdout).toMatch(/Summary: 2 file\(s\), 7 calls, 1 break\(s\), 0 stall\(s\), 0 continuation\(s\), 0 crop\(s\)\n\s+phrase-pool\s+1/)
  })

  it('on a terminal, draws a progress line on stderr and clears it before the report', () => {
    // util-linux `script` gives the tool a pseudo-terminal (stdout and stderr both land in it).
    const run = spawnSync('script', ['-qec', `${process.execPath} tools/analyze-session.mjs --jobs 1 ${work} ${loop}`, '/dev/null'], { encoding: 'utf8' })
    expect(run.status).toBe(0)
    expect(run.stdout).toContain('\r\x1b[Kanalyzing: 1/2 files')
    expect(run.stdout).toContain('\r\x1b[Kanalyzing: 2/2 files\r\x1b[K')
    expect(run.stdout).toContain(`${work}  (rc.8, 5 calls)`)
  })

  it('shows the stalls the live judges reported, on the same calls, without disagreement', async () => {
    const { code, stdout } = await analyze(`${fixtures}/stall.rc8.jsonl.zstd`)
    expect(code).toBe(0)
    expect(stdout).toMatch(/1\.3\s+tool-calls\s+\d+\s+0\s+read_file\s+stall\s+repeated-step\s+-\s+-\s+remind \(step repeated-step\)\s+-\n/)
    expect(stdout).toMatch(/1\.4\s+tool-calls\s+\d+\s+0\s+read_file\s+stall\s+repeated-material\s+-\s+-\s+replan \(call repeated-material\)\s+-\n/)
    expect(stdout).not.toContain('≠')
  })

  it('on a session recorded without the plugin, shows where it would have cut', async () => {
    const { stdout } = await analyze(uncut)
    expect(stdout).toMatch(/1\.1\s+stop\s+6496\s+100\s+-\s+break\s+phrase-pool\s+reasoning@\d+\s+\d+\s+-\s+-\n/)
  })

  it('--sweep counts breaks per value of one setting', async () => {
    const { code, stdout } = await analyze('--sweep', 'reasoningPoolMinRepeatedChars=0,512', loop, work)
    expect(code).toBe(0)
    expect(stdout).toMatch(/Sweep of reasoningPoolMinRepeatedChars over all inputs:\n\s+reasoningPoolMinRepeatedChars\s+breaks\s+stalls\n\s+0\s+\d+\s+0\n\s+512\s+1\s+0/)
  })
})

describe('inputs', () => {
  it('a directory is searched recursively and only the newest generation of a session is read', async () => {
    const dir = join(scratch, 'sessions/--home-me-project--/abc')
    await mkdir(dir, { recursive: true })
    await copyFile(work, join(dir, 'session.jsonl.zstd'))
    await copyFile(`${fixtures}/work.v4.jsonl.zstd`, join(dir, 'session.v4.jsonl.zstd'))
    await copyFile(loop, join(scratch, 'sessions/loop.jsonl.zstd'))
    const { document } = await json(join(scratch, 'sessions'))
    expect(document.files.map((file: any) => [file.file.slice(scratch.length), file.format])).toEqual([
      ['/sessions/--home-me-project--/abc/session.v4.jsonl.zstd', 'v4'],
      ['/sessions/loop.jsonl.zstd', 'rc.8'],
    ])
  })

  it('exit 1 when an input cannot be read fully: errors listed, the readable part still reported', async () => {
    const bytes = await readFile(work)
    const torn = join(scratch, 'torn.jsonl.zstd')
    await writeFile(torn, bytes.subarray(0, bytes.length - 30))
    const { code, document } = await json(torn, loop, join(scratch, 'absent.jsonl'))
    expect(code).toBe(1)
    expect(document.summary.errors).toEqual([
      `${join(scratch, 'absent.jsonl')}: no such file or directory`,
      expect.stringMatching(new RegExp(`^${torn}: truncated zstd frame at byte \\d+: the file ends inside it, at byte ${bytes.length - 30}$`)),
    ])
    expect(document.files[0].calls.length).toBeGreaterThan(2)
    expect(document.files[1].calls[0].break).not.toBeNull()
    const human = await analyze(torn)
    expect(human.code).toBe(1)
    expect(human.stdout).toMatch(/Errors \(1\):\n\s+.*truncated zstd frame at byte/)
  })
})

describe('memory', () => {
  it('a file whose single call outgrows the reading thread\'s heap cap is reported; the other files go on', async () => {
    // One call of 4 million one-character deltas: far past any real call (the seed's longest loop was
    // 330,188 characters), and past the 96 MB heap a reading thread may use.
    const huge = join(scratch, 'huge.jsonl')
    const lines = [JSON.stringify({ type: 'session', version: 0, id: 'huge', createdAt: 1, delegationDepth: 0 })]
    for (let row = 0; row < 40; row++) {
      const texts = Array.from({ length: 100_000 }, (_, i) => String.fromCharCode(97 + ((i * 7 + row) % 26)))
      lines.push(JSON.stringify({ type: 'reasoning-chunks', seq0: row * 100_000, time0: 1, data: { turn: 1, step: 1, index: 0, dt: texts.slice(1).map(() => 0), texts } }))
    }
    await writeFile(huge, lines.join('\n') + '\n')
    const { code, document } = await json('--jobs', '1', huge, work)
    expect(code).toBe(1)
    expect(document.summary.errors).toEqual([`${huge}: analysis ran out of memory (heap capped at 96 MB): a single call too large to hold`])
    expect(document.files.map((file: any) => [file.file, file.calls.length])).toEqual([[huge, 0], [work, 5]])
  }, 60_000)
})

describe('usage', () => {
  it('--help documents every option and the exit codes', async () => {
    const { code, stdout } = await analyze('--help')
    expect(code).toBe(0)
    for (const option of ['--json', '--config', '--set', '--sweep', '--jobs', 'Exit status: 0', '1 some input', '2 bad usage']) expect(stdout).toContain(option)
  })

  it.each([
    [[], 'no session file or directory given'],
    [['--bogus', loop], 'unknown option --bogus'],
    [['--set', 'novalue', loop], '--set expects key=value'],
    [['--set', 'poolMinCoverage=2', loop], 'loop-breaker: poolMinCoverage must be at most 1 (got 2)'],
    [['--set', 'unknownSetting=3', loop], 'loop-breaker: unknownSetting must be one of the detector settings'],
    [['--jobs', '0', loop], '--jobs must be a whole number >= 1'],
    [['--config', join(scratch, 'missing.yml'), loop], 'missing.yml: no such file'],
  ])('exit 2 on bad usage: %j', async (args, message) => {
    const { code, stderr, stdout } = await analyze(...args)
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr).toContain(message)
  })

  it('exit 2 with the file and line of a patch file it cannot read', async () => {
    const bad = join(scratch, 'bad.patch.yml')
    await writeFile(bad, '- id: loop-breaker\n  config:\n    poolMinCoverage: &anchor 0.5\n')
    const { code, stderr } = await analyze('--config', bad, loop)
    expect(code).toBe(2)
    expect(stderr).toContain(`${bad}:3: anchors, aliases, tags and block scalars are not supported`)
  })
})
