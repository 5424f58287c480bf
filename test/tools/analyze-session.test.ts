import { spawnSync } from 'node:child_process'
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decompress } from 'fzstd'
import { afterAll, describe, expect, it } from 'vitest'
import * as detector from '../../src/detector/index.ts'
import { readSession, SessionReplay } from '../../src/session/index.ts'
import { runTool } from './run-tool.ts'
import { frameLayout } from '../session/zstd-layout.ts'

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
    expect(Object.keys(document.files[0].calls[0])).toEqual(['turn', 'step', 'attempt', 'reasoningChars', 'textChars', 'toolCalls', 'break', 'stall', 'recorded', 'trace', 'comparison', 'damaged', 'continuation', 'crop'])
    expect(document.summary).toEqual({ files: 2, calls: document.files[0].calls.length + 5, breaks: 1, stalls: 0, continuations: 0, crops: 0, disagreements: 0, cannotJudge: 0, errors: [] })
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
    expect(document.files[0].calls[0].break).toBeNull()
  })

  it('--config reads the guards of the loop-breaker row of Cordis patch files, later files winning; --set wins over both', async () => {
    const first = join(scratch, 'first.patch.yml')
    const second = join(scratch, 'second.patch.yml')
    await writeFile(first, [
      '# profile patch',
      '- id: llm-retry',
      '  disabled: true',
      '- id: loop-breaker',
      '  config:',
      '    reasoning: off   # nothing cut in the reasoning',
      // The README's tuning example: reaction settings, read without a word.
      '    escalate: steer',
      '    resumeAfterBreak: true',
      '    maxFires: 4',
    ].join('\n'))
    // The second file replaces the first's row whole: the reasoning watched again, verbatim repetition only.
    await writeFile(second, '- id: loop-breaker\n  config:\n    reasoning: verbatim\n')
    const off = await json('--config', first, loop)
    expect(off.document.files[0].calls[0].break).toBeNull()
    expect(off.stderr).toBe('')
    const on = await json('--config', first, '--config', second, loop)
    expect(on.document.files[0].calls[0].break).toMatchObject({ rule: 'phrase-pool', side: 'reasoning' })
    const overridden = await json('--config', second, '--set', 'reasoning=off', loop)
    expect(overridden.document.files[0].calls[0].break).toBeNull()
  })

  it('--config names a key that is no setting, with the closest one, and settings of an earlier version in one line, and replays with the rest', async () => {
    const typo = join(scratch, 'typo.patch.yml')
    await writeFile(typo, '- id: loop-breaker\n  config:\n    reasonig: full\n    escalte: warn\n    zzzzzzzzzz: 1\n    reasoning: off\n    textCycleMinSpan: 512\n')
    const { document, stderr } = await json('--config', typo, loop)
    expect(stderr.split('\n')).toEqual([
      expect.stringMatching(/^analyze-session: --config: loop-breaker: 1 setting of an earlier version left out .*: textCycleMinSpan → text; /),
      'analyze-session: --config: reasonig is not a loop-breaker setting, did you mean reasoning? (left aside; the live plugin refuses it)',
      'analyze-session: --config: escalte is not a loop-breaker setting, did you mean escalate? (left aside; the live plugin refuses it)',
      'analyze-session: --config: zzzzzzzzzz is not a loop-breaker setting (left aside; the live plugin refuses it)',
      '',
    ])
    expect(document.files[0].calls[0].break).toBeNull()
    // A threshold in a patch is left out, as the live plugin leaves it out: the rule it would switch off still cuts.
    const earlier = join(scratch, 'earlier.patch.yml')
    await writeFile(earlier, '- id: loop-breaker\n  config:\n    reasoningPoolMinRepeatedChars: 0\n')
    expect((await json('--config', earlier, loop)).document.files[0].calls[0].break).toMatchObject({ rule: 'phrase-pool' })
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

  it('--sweep covers the near-repetition settings: a session recorded without the plugin, its steps looping without a verbatim unit', async () => {
    const nearRepetition = `${fixtures}/near-repetition-uncut.rc8.jsonl.zstd`
    const { code, stdout } = await analyze('--sweep', 'noveltyMinSpan=0,896', nearRepetition)
    expect(code).toBe(0)
    // The counter and the circling stall are novelty's; the 1,200-char period is cycle's, the run of
    // one mark symbol-run's: turning novelty off leaves those two.
    expect(stdout).toMatch(/1\.1 .*break\s+novelty\s+reasoning@/)
    expect(stdout).toMatch(/1\.2 .*break\s+novelty\s+reasoning@/)
    expect(stdout).toMatch(/Sweep of noveltyMinSpan over all inputs:\n\s+noveltyMinSpan\s+breaks\s+stalls\n\s+0\s+2\s+0\n\s+896\s+4\s+0/)
  })

  it('--sweep counts breaks per value of one setting', async () => {
    const { code, stdout } = await analyze('--sweep', 'reasoningPoolMinRepeatedChars=0,512', loop, work)
    expect(code).toBe(0)
    // Off, nothing else cuts the loop before its log ends at the cut.
    expect(stdout).toMatch(/Sweep of reasoningPoolMinRepeatedChars over all inputs:\n\s+reasoningPoolMinRepeatedChars\s+breaks\s+stalls\n\s+0\s+0\s+0\n\s+512\s+1\s+0/)
  })
})

describe('comparing the replay with what the plugin did', () => {
  it('on disagreement, says to replay with the profile\'s patch layers; --json counts it', async () => {
    const stall = `${fixtures}/stall.rc8.jsonl.zstd`
    const { code, stdout } = await analyze('--set', 'maxRepeatedSteps=10', stall)
    expect(code).toBe(0)
    expect(stdout).toMatch(/1\.3 .*remind \(step repeated-step\)\s+-\s+≠ recorded stall repeated-step, replay none\n/)
    expect(stdout).toContain('Summary: 1 file(s), 6 calls, 0 break(s), 1 stall(s), 0 continuation(s), 0 crop(s), 1 disagreement(s) with the recorded plugin events\n')
    expect(stdout).toContain("the live plugin most likely ran with other settings. Replay with\nthe profile's patch layers, in DSH's order (the package's own patch first, then the profile's):\n" +
      '  --config <DSH_HOME>/profiles/<profile>/node_modules/dsh-loop-breaker/cordis.patch.yml \\\n  --config <DSH_HOME>/profiles/<profile>/cordis.patch.yml\n')
    const { document } = await json('--set', 'maxRepeatedSteps=10', stall)
    expect(document.summary).toMatchObject({ disagreements: 1, cannotJudge: 0 })
    expect(document.files[0].calls[2].comparison).toEqual({ kind: 'disagree', message: 'recorded stall repeated-step, replay none' })
  })

  it('a setting raised above what the log holds (it ends at the cut) cannot be judged, and is not a disagreement', async () => {
    const { stdout } = await analyze('--set', 'reasoningPoolMinRepeatedChars=1024', loop)
    expect(stdout).toMatch(/1\.1\s+stop\s+1410\s+0\s+-\s+ok .*remind \(phrase-pool reasoning@1410\)\s+-\s+\? cannot judge: the log ends at the cut \(at 1410\)\n/)
    expect(stdout).toContain('Summary: 1 file(s), 2 calls, 0 break(s), 0 stall(s), 0 continuation(s), 0 crop(s), 1 call(s) the replay cannot judge\n')
    expect(stdout).toContain('A call marked "cannot judge" was cut by the live plugin: its log ends at the cut')
    expect(stdout).not.toContain('≠')
    const { document } = await json('--set', 'reasoningPoolMinRepeatedChars=1024', loop)
    expect(document.summary).toMatchObject({ disagreements: 0, cannotJudge: 1 })
  })

  it('recognises a cut in a log written without the journal, from the trim marker and the notice', async () => {
    // The fixture as `journal: false` writes it: the same log without the plugin's own record.
    const text = Buffer.from(decompress(new Uint8Array(await readFile(loop)))).toString('utf8')
    const lines = text.split('\n')
    const withoutJournal = lines.filter((line) => !line.includes('"loop-breaker/break"'))
    expect(withoutJournal.length).toBe(lines.length - 1)
    const file = join(scratch, 'no-journal.jsonl')
    await writeFile(file, withoutJournal.join('\n'))

    const { code, stdout } = await analyze(file)
    expect(code).toBe(0)
    expect(stdout).toMatch(/1\.1\s+stop\s+1410\s+0\s+-\s+break\s+phrase-pool\s+reasoning@1410\s+916\s+cut by the plugin \(no journal: reasoning\)\s+-\n/)
    expect(stdout).not.toContain('≠')
    const { document } = await json(file)
    // The replay reports what the cut removed, the count of the fixture's marker and notice.
    expect(document.files[0].calls[0].trace).toEqual({ side: 'reasoning', removedChars: 916, notice: 'loop-breaker remind: phrase-pool / reasoning / 916' })
    expect(document.files[0].calls[0].break.repeatedChars).toBe(916)
    expect(document.files[0].calls[0].recorded).toBeNull()
    expect(document.files[0].calls[1].trace).toBeNull()

    // A replay that does not trip where the log ends cannot judge; one tripping on another side disagrees.
    const patient = await json('--set', 'reasoningPoolMinRepeatedChars=1024', file)
    expect(patient.document.files[0].calls[0].comparison).toEqual({ kind: 'cannot-judge', message: 'cannot judge: the log ends at the cut (at 1410)' })
  })
})

describe('inputs', () => {
  it('a file that is not a session log: one error line, exit 2', async () => {
    const { code, stdout, stderr } = await analyze('package.json')
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr).toMatch(/^analyze-session: package\.json: not a DSH session log \(no session header and no session event in \d+ lines\)\n$/)
    const mixed = await analyze('package.json', loop)
    expect(mixed.code).toBe(2)
    expect(mixed.stdout).toContain(`${loop}  (rc.8, 2 calls)`)
    expect(mixed.stdout).not.toContain('package.json')
    expect(mixed.stderr.split('\n').filter(Boolean)).toHaveLength(1)
  })


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

describe('a log with a corrupt middle frame', () => {
  it('the frame is reported with its bytes and seq gap, every other call analysed, exit 1', async () => {
    const bytes = new Uint8Array(await readFile(work))
    const frame = frameLayout(bytes)[3]!
    const block = frame.blocks.find((candidate) => candidate.type === 'compressed')!
    const bad = Uint8Array.from(bytes)
    bad.fill(0xff, block.body, block.body + block.size)
    const corrupt = join(scratch, 'corrupt-middle.jsonl.zstd')
    await writeFile(corrupt, bad)
    const cut = join(scratch, 'without-frame.jsonl.zstd')
    await writeFile(cut, Buffer.concat([bytes.subarray(0, frame.start), bytes.subarray(frame.end)]))
    const { code, document } = await json(corrupt)
    expect(code).toBe(1)
    expect(document.summary.errors).toEqual([expect.stringMatching(new RegExp(
      `^${corrupt}: corrupt zstd frame at bytes ${frame.start}-${frame.end - 1} \\(${frame.end - frame.start} bytes\\): .+; skipped, reading goes on with the next frame; seq gap: last seq before it \\d+, first seq after it \\d+$`))])
    // Exactly the calls of the log without that frame, the one across the gap marked.
    const without = await json(cut)
    const unmarked = (calls: any[]) => calls.map(({ damaged: _damaged, ...call }) => call)
    expect(unmarked(document.files[0].calls)).toEqual(unmarked(without.document.files[0].calls))
    expect(document.files[0].calls.filter((call: any) => call.damaged !== null).length).toBeGreaterThan(0)
    const human = await analyze(corrupt)
    expect(human.code).toBe(1)
    expect(human.stdout).toContain('damaged: ')
    expect(human.stdout).toMatch(/Errors \(1\):\n\s+.*corrupt zstd frame at bytes \d+-\d+/)
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
    [['--set', 'unknownSetting=3', loop], '--set unknownSetting: no such guard or detector threshold (the thresholds: docs/detector.md#settings)'],
    [['--set', 'noveltyMinSpn=3', loop], '--set noveltyMinSpn: no such guard or detector threshold, did you mean noveltyMinSpan?'],
    [['--sweep', 'poolMinCoverag=0.5,0.6', loop], '--sweep poolMinCoverag: no such guard or detector threshold, did you mean poolMinCoverage?'],
    [['--set', 'reasoning=loud', loop], `loop-breaker: reasoning must be one of 'full', 'verbatim', 'off' (got "loud")`],
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
    await writeFile(bad, '- id: loop-breaker\n  config:\n    poolMinCoverage: [0.5\n')
    const { code, stderr } = await analyze('--config', bad, loop)
    expect(code).toBe(2)
    expect(stderr).toMatch(new RegExp(`^analyze-session: ${bad}:4: not valid YAML: .*\nRun with --help for usage\.\n$`))
    const row = join(scratch, 'row.patch.yml')
    await writeFile(row, '- config:\n    poolMinCoverage: 0.5\n')
    const noId = await analyze('--config', row, loop)
    expect(noId.code).toBe(2)
    expect(noId.stderr).toContain(`${row}:1: patch entry 1 has no \`id\``)
  })

  it('a fresh profile patch (`[]`), flow style and anchors all read; a !!js setting asks for --set', async () => {
    const fresh = join(scratch, 'fresh.patch.yml')
    await writeFile(fresh, '[]\n')
    const plain = await json('--config', 'cordis.patch.yml', '--config', fresh, loop)
    expect(plain.code).toBe(0)
    expect(plain.document.files[0].calls[0].break).toMatchObject({ rule: 'phrase-pool' })
    const flow = join(scratch, 'flow.patch.yml')
    await writeFile(flow, '- id: other\n  config: &off\n    reasoning: off\n- {id: loop-breaker, config: *off}  # flow style and an alias\n')
    const off = await json('--config', flow, loop)
    expect(off.code).toBe(0)
    expect(off.document.files[0].calls[0].break).toBeNull()
    const js = join(scratch, 'js.patch.yml')
    await writeFile(js, '- id: loop-breaker\n  config:\n    reasoning: !!js "\'of\' + \'f\'"\n')
    const refused = await analyze('--config', js, loop)
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(`reasoning is a !!js expression ('of' + 'f') that only DSH can evaluate: give its value with --set reasoning=<value>`)
    const given = await json('--config', js, '--set', 'reasoning=off', loop)
    expect(given.code).toBe(0)
  })

  it.each([
    [['--json=yes', loop], '--json takes no value'],
    [['--config'], '--config needs a value'],
    [['--sweep', 'a=1', '--sweep', 'b=2', loop], '--sweep can be given once'],
  ])('parses flags with node:util parseArgs, in its own words: %j', async (args, message) => {
    const { code, stderr } = await analyze(...args)
    expect(code).toBe(2)
    expect(stderr).toBe(`analyze-session: ${message}\nRun with --help for usage.\n`)
  })
})
