/**
 * tools/repair-session.mjs on logs written by loop-breaker 0.1.0 (the fixtures hold its
 * `loop-breaker/break` / `loop-breaker/stall` events). That DSH rc.8 loads the result is shown with the
 * real persistence in repair-session.node22.test.ts.
 */
import { access, chmod, copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decompress } from 'fzstd'
import { afterAll, describe, expect, it } from 'vitest'
import { isLegacyJournalType, rawZstdFrame, upgradeLegacyRecord, zstdCompressionAvailable, ZstdFramesDecoder } from '../../src/session/index.ts'
import { runTool } from './run-tool.ts'

const fixtures = 'test/fixtures/sessions'
const scratch = await mkdtemp(join(tmpdir(), 'repair-session-'))
afterAll(() => rm(scratch, { recursive: true, force: true }))

const repair = (...args: string[]) => runTool('repair-session.mjs', args)
const analyze = (...args: string[]) => runTool('analyze-session.mjs', ['--json', ...args])
const text = (bytes: Buffer) => Buffer.from(decompress(new Uint8Array(bytes))).toString('utf8')
const exists = (path: string) => access(path).then(() => true, () => false)

/** What the repair must make of a log's text: old-form events rewritten, every other line the same. */
function expectedRepair(original: string): { text: string; rewritten: number } {
  let rewritten = 0
  const lines = original.split('\n').map((line) => {
    if (line === '') return line
    const record = JSON.parse(line)
    if (!isLegacyJournalType(record.type)) return line
    rewritten++
    return JSON.stringify({ type: 'hook/result', seq: record.seq, time: record.time, data: upgradeLegacyRecord(record.type, record.data) })
  })
  return { text: lines.join('\n'), rewritten }
}

describe('repair-session', () => {
  it.each(['phrase-pool', 'stall'])('rewrites the old events of %s.rc8 as hook/result, every other line byte for byte, zstd in and out', async (name) => {
    const input = `${fixtures}/${name}.0.1.0.rc8.jsonl.zstd`
    const output = join(scratch, `${name}.jsonl.zstd`)
    const original = text(await readFile(input))
    const expected = expectedRepair(original)
    expect(expected.rewritten).toBeGreaterThan(0)

    const { code, stdout, stderr } = await repair(input, output)
    expect(code).toBe(0)
    expect(stderr).toBe('')
    expect(stdout).toMatch(new RegExp(`^${input}: rewrote loop-breaker/(break|stall) ×${expected.rewritten} as hook/result → ${output}\\n$`))
    const bytes = await readFile(output)
    expect(text(bytes)).toBe(expected.text)
    // rc.8 reads the header from a frame of its own; then whole lines follow.
    const header = Buffer.from(original.slice(0, original.indexOf('\n') + 1))
    if (!zstdCompressionAvailable) expect(bytes.equals(Buffer.concat([rawZstdFrame(header), rawZstdFrame(Buffer.from(expected.text.slice(header.length)))]))).toBe(true)

    // The analyzer reads the same records, calls and verdicts from both.
    const before = JSON.parse((await analyze(input)).stdout)
    const after = JSON.parse((await analyze(output)).stdout)
    expect(after.files[0].calls).toEqual(before.files[0].calls)
    expect(after.files[0].calls.some((call: any) => call.recorded !== null)).toBe(true)
    expect(after.summary).toEqual(before.summary)
  })

  it('plain JSONL in, plain JSONL out', async () => {
    const original = text(await readFile(`${fixtures}/stall.0.1.0.rc8.jsonl.zstd`))
    const input = join(scratch, 'plain.jsonl')
    const output = join(scratch, 'plain-repaired.jsonl')
    await writeFile(input, original)
    expect((await repair(input, output)).code).toBe(0)
    expect(await readFile(output, 'utf8')).toBe(expectedRepair(original).text)
  })

  it('a log with nothing to repair is left alone: exit 0, nothing written', async () => {
    const output = join(scratch, 'untouched.jsonl.zstd')
    const { code, stdout } = await repair(`${fixtures}/work.rc8.jsonl.zstd`, output)
    expect(code).toBe(0)
    expect(stdout).toContain('no loop-breaker/* event, nothing to repair')
    expect(await exists(output)).toBe(false)
  })

  it('--dry-run says what it would rewrite and writes nothing', async () => {
    const output = join(scratch, 'dry.jsonl.zstd')
    const { code, stdout } = await repair('--dry-run', `${fixtures}/stall.0.1.0.rc8.jsonl.zstd`, output)
    expect(code).toBe(0)
    expect(stdout).toBe(`${fixtures}/stall.0.1.0.rc8.jsonl.zstd: would rewrite loop-breaker/stall ×2 as hook/result (zstd, 89 lines); nothing written\n`)
    expect(await exists(output)).toBe(false)
  })

  it('never overwrites an existing output without --force', async () => {
    const output = join(scratch, 'existing.jsonl.zstd')
    await writeFile(output, 'keep me')
    const refused = await repair(`${fixtures}/stall.0.1.0.rc8.jsonl.zstd`, output)
    expect(refused.code).toBe(2)
    expect(refused.stderr).toBe(`repair-session: ${output} exists: pass --force to overwrite it\nRun with --help for usage.\n`)
    expect(await readFile(output, 'utf8')).toBe('keep me')
    expect((await repair('--force', `${fixtures}/stall.0.1.0.rc8.jsonl.zstd`, output)).code).toBe(0)
    expect(text(await readFile(output))).toContain('"type":"hook/result"')
  })

  it('in place only with --force, through a temporary file; the original kept as .bak unless --no-backup', async () => {
    const dir = join(scratch, 'in-place')
    const log = join(dir, 'session.jsonl.zstd')
    await rm(dir, { recursive: true, force: true })
    await mkdir(dir)
    await copyFile(`${fixtures}/phrase-pool.0.1.0.rc8.jsonl.zstd`, log)
    // Neither the umask's 0644 nor the 0600 DSH writes logs with: the repair keeps whatever the log has.
    await chmod(log, 0o640)
    const original = await readFile(log)

    const refused = await repair(log)
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(`repairing ${log} in place replaces it: pass --force`)
    expect((await readFile(log)).equals(original)).toBe(true)

    const done = await repair('--force', log)
    expect(done.code).toBe(0)
    expect(done.stdout).toBe(`${log}: rewrote loop-breaker/break ×1 as hook/result → ${log} (original kept as ${log}.bak)\n`)
    expect((await readFile(`${log}.bak`)).equals(original)).toBe(true)
    expect(text(await readFile(log))).toBe(expectedRepair(text(original)).text)
    expect((await readdir(dir)).sort()).toEqual(['session.jsonl.zstd', 'session.jsonl.zstd.bak'])
    // The log and its backup keep the original's mode, whatever the umask gives a new file.
    expect((await stat(log)).mode & 0o777).toBe(0o640)
    expect((await stat(`${log}.bak`)).mode & 0o777).toBe(0o640)
    // Repaired once, there is nothing left to do.
    expect((await repair('--force', log)).stdout).toContain('nothing to repair')

    // A .bak is never overwritten; --no-backup keeps none.
    await copyFile(`${fixtures}/stall.0.1.0.rc8.jsonl.zstd`, log)
    const kept = await repair('--force', log)
    expect(kept.code).toBe(2)
    expect(kept.stderr).toContain(`${log}.bak exists and is never overwritten: move it away, or pass --no-backup`)
    expect((await repair('--force', '--no-backup', log)).code).toBe(0)
    expect((await readFile(`${log}.bak`)).equals(original)).toBe(true)
    expect((await readdir(dir)).sort()).toEqual(['session.jsonl.zstd', 'session.jsonl.zstd.bak'])
  })

  it('a file that is not a session log: one line, exit 2; a damaged log: exit 1, nothing written', async () => {
    const notLog = await repair('package.json', join(scratch, 'x.jsonl'))
    expect(notLog.code).toBe(2)
    expect(notLog.stderr).toBe('repair-session: package.json: not a DSH session log (no session header on line 1)\n')

    const bytes = await readFile(`${fixtures}/stall.0.1.0.rc8.jsonl.zstd`)
    const torn = join(scratch, 'torn.jsonl.zstd')
    const output = join(scratch, 'torn-out.jsonl.zstd')
    await writeFile(torn, bytes.subarray(0, bytes.length - 30))
    const damaged = await repair(torn, output)
    expect(damaged.code).toBe(1)
    expect(damaged.stderr).toMatch(/^repair-session: .*torn\.jsonl\.zstd: truncated zstd frame at byte \d+.*; nothing written/)
    expect(await exists(output)).toBe(false)
    expect((await readdir(scratch)).filter((file) => file.endsWith('.tmp'))).toEqual([])

    const missing = await repair(join(scratch, 'absent.jsonl'), output)
    expect(missing.code).toBe(2)
    expect(missing.stderr).toBe(`repair-session: ${join(scratch, 'absent.jsonl')}: no such file or directory\n`)
  })

  it('an unknown loop-breaker/* event is not guessed at: exit 1, nothing written', async () => {
    const input = join(scratch, 'unknown.jsonl')
    await writeFile(input, [
      JSON.stringify({ type: 'session', version: 0, id: 'u', createdAt: 1, delegationDepth: 0 }),
      JSON.stringify({ type: 'loop-breaker/explode', seq: 1, time: 1, data: { turn: 1, step: 1 } }),
      '',
    ].join('\n'))
    const { code, stderr } = await repair(input, join(scratch, 'unknown-out.jsonl'))
    expect(code).toBe(1)
    expect(stderr).toContain('line 2: a loop-breaker/explode event that loop-breaker never wrote')
    expect(await exists(join(scratch, 'unknown-out.jsonl'))).toBe(false)
  })

  it('usage: --help documents the options and exit codes; exit 2 on bad arguments', async () => {
    const help = await repair('--help')
    expect(help.code).toBe(0)
    for (const text of ['--dry-run', '--force', '--no-backup', 'Exit status: 0 repaired', '1 the log cannot be repaired', '2 bad usage']) expect(help.stdout).toContain(text)
    for (const [args, message] of [[[], 'expects <in> [out]'], [['a', 'b', 'c'], 'expects <in> [out]'], [['--overwrite', 'a'], 'unknown option --overwrite'], [['--force=yes', 'a'], '--force takes no value']] as const) {
      const run = await repair(...args)
      expect(run.code).toBe(2)
      expect(run.stderr).toBe(`repair-session: ${message}\nRun with --help for usage.\n`)
    }
  })
})

describe('rawZstdFrame (the frames written where node:zlib has no zstd)', () => {
  it.each([0, 1, 255, 256, 65_791, 65_792, 128 * 1024, 128 * 1024 + 1, 400_000])('%i bytes: one frame every decoder reads back', (size) => {
    const bytes = new Uint8Array(size).map((_, i) => (i * 31 + 7) & 0xff)
    const frame = rawZstdFrame(bytes)
    expect(Buffer.from(decompress(frame)).equals(Buffer.from(bytes))).toBe(true)
    const out: Uint8Array[] = []
    const damage: unknown[] = []
    const decoder = new ZstdFramesDecoder((part) => out.push(part.slice()), (found) => damage.push(found))
    decoder.push(Buffer.concat([frame, frame]))
    decoder.end()
    expect(damage).toEqual([])
    expect(decoder.frames).toBe(2)
    expect(Buffer.concat(out).equals(Buffer.concat([bytes, bytes]))).toBe(true)
  })
})
