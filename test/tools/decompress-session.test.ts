import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decompress } from 'fzstd'
import { afterAll, describe, expect, it } from 'vitest'
import { runTool } from './run-tool.ts'
import { frameLayout } from '../session/zstd-layout.ts'

const sample = 'test/fixtures/sessions/work.rc8.jsonl.zstd'
const scratch = await mkdtemp(join(tmpdir(), 'decompress-session-'))
afterAll(() => rm(scratch, { recursive: true, force: true }))
const bytes = await readFile(sample)
const expected = Buffer.from(decompress(new Uint8Array(bytes)))
const run = (...args: string[]) => runTool('decompress-session.mjs', args)

describe('decompress-session', () => {
  it('writes every frame to stdout', async () => {
    const { code, stdoutBytes, stderr } = await run(sample)
    expect(code).toBe(0)
    expect(stderr).toBe('')
    expect(stdoutBytes.equals(expected)).toBe(true)
    expect(stdoutBytes.toString('utf8').trimEnd().split('\n').length).toBeGreaterThan(50)
  })

  it('writes to a file', async () => {
    const out = join(scratch, 'out.jsonl')
    const { code } = await run(sample, out)
    expect(code).toBe(0)
    expect((await readFile(out)).equals(expected)).toBe(true)
  })

  it('never overwrites an existing [out] without --force, and never the input', async () => {
    const out = join(scratch, 'kept.jsonl')
    await writeFile(out, 'mine\n')
    const refused = await run(sample, out)
    expect(refused.code).toBe(2)
    expect(refused.stderr).toBe(`decompress-session: ${out} exists: pass --force to overwrite it\nRun with --help for usage.\n`)
    expect(await readFile(out, 'utf8')).toBe('mine\n')
    const forced = await run('--force', sample, out)
    expect(forced.code).toBe(0)
    expect((await readFile(out)).equals(expected)).toBe(true)
    const copy = join(scratch, 'self.jsonl.zstd')
    await writeFile(copy, bytes)
    const self = await run('--force', copy, copy)
    expect(self.code).toBe(2)
    expect(self.stderr).toContain(`decompress-session: ${copy} is the input: give another [out] file`)
    expect((await readFile(copy)).equals(bytes)).toBe(true)
  })

  it('copies a plain JSONL log as is', async () => {
    const plain = 'test/fixtures/sessions/work.v4.jsonl'
    const { code, stdoutBytes } = await run(plain)
    expect(code).toBe(0)
    expect(stdoutBytes.equals(await readFile(plain))).toBe(true)
  })

  it('on a truncated frame: writes what it decoded, names the frame offset, exits 1', async () => {
    const torn = join(scratch, 'torn.jsonl.zstd')
    await writeFile(torn, bytes.subarray(0, bytes.length - 30))
    const { code, stdoutBytes, stderr } = await run(torn)
    expect(code).toBe(1)
    expect(stderr).toMatch(/truncated zstd frame at byte \d+: the file ends inside it, at byte \d+\n.*wrote \d+ decoded bytes: \d+ complete frame\(s\)/)
    expect(stdoutBytes.length).toBeGreaterThan(0)
    expect(expected.subarray(0, stdoutBytes.length).equals(stdoutBytes)).toBe(true)
  })

  it('on a corrupt middle frame: skips it, names its bytes on stderr, writes every other frame, exits 1', async () => {
    const frames = frameLayout(new Uint8Array(bytes))
    const frame = frames[4]!
    const block = frame.blocks.find((candidate) => candidate.type === 'compressed')!
    const bad = Buffer.from(bytes)
    bad.fill(0xff, block.body, block.body + block.size)
    const corrupt = join(scratch, 'corrupt.jsonl.zstd')
    await writeFile(corrupt, bad)
    const { code, stdoutBytes, stderr } = await run(corrupt)
    expect(code).toBe(1)
    const others = Buffer.concat(frames.filter((other) => other !== frame).map((other) => decompress(new Uint8Array(bytes.subarray(other.start, other.end)))))
    expect(stdoutBytes.equals(others)).toBe(true)
    expect(stderr).toBe(
      `decompress-session: corrupt zstd frame at bytes ${frame.start}-${frame.end - 1} (${frame.end - frame.start} bytes): invalid zstd data; skipped, reading goes on with the next frame\n`
      + `decompress-session: wrote ${others.length} decoded bytes: ${frames.length - 1} complete frame(s), 1 damaged stretch(es) skipped\n`)
  })

  it('on an empty file: exit 1 with one clear message', async () => {
    const empty = join(scratch, 'empty.jsonl.zstd')
    await writeFile(empty, '')
    const { code, stderr } = await run(empty)
    expect(code).toBe(1)
    expect(stderr).toBe(`decompress-session: ${empty}: empty file\n`)
  })

  it('usage: --help, and exit 2 on bad arguments', async () => {
    const help = await run('--help')
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('Usage: node tools/decompress-session.mjs <in> [out]')
    expect((await run()).code).toBe(2)
    expect((await run('a', 'b', 'c')).code).toBe(2)
    expect((await run('--frames', sample)).stderr).toContain('unknown option --frames')
  })
})
