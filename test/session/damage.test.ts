import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readSession } from '../../src/session/index.ts'

const fixtures = join(import.meta.dirname, '../fixtures/sessions')
const scratch = await mkdtemp(join(tmpdir(), 'session-damage-'))
afterAll(() => rm(scratch, { recursive: true, force: true }))

const zstdSample = await readFile(join(fixtures, 'work.rc8.jsonl.zstd'))
const jsonlSample = await readFile(join(fixtures, 'work.v4.jsonl'), 'utf8')
const intact = await readSession(join(fixtures, 'work.rc8.jsonl.zstd'))

/** Byte offsets where a zstd frame starts (the committed sample has no accidental magic inside frames). */
function frameStarts(bytes: Uint8Array): number[] {
  const starts: number[] = []
  for (let i = 0; i + 4 <= bytes.length; i++) {
    if (bytes[i] === 0x28 && bytes[i + 1] === 0xb5 && bytes[i + 2] === 0x2f && bytes[i + 3] === 0xfd) starts.push(i)
  }
  return starts
}

async function readBytes(name: string, bytes: Uint8Array | string) {
  const file = join(scratch, name)
  await writeFile(file, bytes)
  return readSession(file)
}

const starts = frameStarts(zstdSample)

describe('damaged zstd logs keep everything before the damage', () => {
  it('the sample has many frames (one per write batch)', () => {
    expect(starts.length).toBeGreaterThan(5)
    expect(starts[0]).toBe(0)
  })

  it('a truncated last frame: the calls of complete frames, and the offset of the torn frame', async () => {
    const torn = starts.at(-1)!
    const log = await readBytes('truncated.jsonl.zstd', zstdSample.subarray(0, torn + 20))
    expect(log.issues).toEqual([{ kind: 'truncated-frame', offset: torn, message: `truncated zstd frame at byte ${torn}: the file ends inside it, at byte ${torn + 20}` }])
    // Calls that ended in complete frames are whole; the last one may have lost its tail with the torn frame.
    expect(log.calls.length).toBeGreaterThan(1)
    expect(log.calls.slice(0, -1)).toEqual(intact.calls.slice(0, log.calls.length - 1))
    const last = log.calls.at(-1)!
    expect(intact.calls[log.calls.length - 1]!.deltas.slice(0, last.deltas.length)).toEqual(last.deltas)
  })

  it('a truncation inside a middle frame keeps exactly the frames before it', async () => {
    const middle = starts[Math.floor(starts.length / 2)]!
    const cut = await readBytes('cut-middle.jsonl.zstd', zstdSample.subarray(0, middle + 9))
    const whole = await readBytes('whole-prefix.jsonl.zstd', zstdSample.subarray(0, middle))
    expect(cut.issues.map((issue) => issue.kind)).toEqual(['truncated-frame'])
    expect(cut.issues[0]).toMatchObject({ offset: middle })
    expect(whole.issues.filter((issue) => issue.kind !== 'truncated-line')).toEqual([])
    expect(cut.calls).toEqual(whole.calls)
  })

  it('flipped bytes mid-file: reported with the damaged frame\'s offset or the damaged lines, calls before it intact', async () => {
    const target = starts[Math.floor(starts.length / 2)]!
    const flipped = Buffer.from(zstdSample)
    for (let i = target + 12; i < target + 40 && i < flipped.length; i++) flipped[i] = flipped[i]! ^ 0x5a
    const log = await readBytes('flipped.jsonl.zstd', flipped)
    expect(log.issues.length).toBeGreaterThan(0)
    for (const issue of log.issues) {
      if (issue.kind === 'corrupt-frame' || issue.kind === 'truncated-frame') expect(issue.offset).toBe(target)
      else expect(['malformed-line', 'malformed-record', 'truncated-line']).toContain(issue.kind)
    }
    const before = await readBytes('before-flip.jsonl.zstd', zstdSample.subarray(0, target))
    // Every call that ended before the damaged frame is read unchanged (the last one may continue in it).
    expect(before.calls.length).toBeGreaterThan(1)
    expect(log.calls.slice(0, before.calls.length - 1)).toEqual(before.calls.slice(0, -1))
  })

  it('a corrupt frame header stops the read there, naming its offset', async () => {
    const target = starts[3]!
    const bad = Buffer.from(zstdSample)
    bad[target + 4] = bad[target + 4]! | 0x08 // reserved frame-header bit
    const log = await readBytes('bad-header.jsonl.zstd', bad)
    expect(log.issues).toEqual([{ kind: 'corrupt-frame', offset: target, message: `corrupt zstd frame at byte ${target}: reserved frame header bit set` }])
  })

  it('a declared window beyond 128 MiB is rejected instead of allocated', async () => {
    const target = starts[2]!
    const bad = Buffer.from(zstdSample)
    const descriptor = bad[target + 4]!
    expect((descriptor >> 5) & 1).toBe(0) // Node writes a window descriptor byte
    bad[target + 5] = 0xf8 // 2^41 bytes
    const log = await readBytes('huge-window.jsonl.zstd', bad)
    expect(log.issues).toHaveLength(1)
    expect(log.issues[0]).toMatchObject({ kind: 'corrupt-frame', offset: target })
    expect(log.issues[0]!.message).toMatch(/window size \d+ exceeds 134217728/)
  })
})

describe('damaged JSONL logs', () => {
  it('a malformed line is reported with its number and skipped; everything else is read', async () => {
    const lines = jsonlSample.trimEnd().split('\n')
    const victim = lines.findIndex((line) => line.includes('"turn/start"'))
    lines[victim] = '{"type":"turn/start","seq": 1, "data": {"turn"'
    const log = await readBytes('malformed.jsonl', lines.join('\n') + '\n')
    expect(log.issues).toEqual([{ kind: 'malformed-line', line: victim + 1, message: expect.stringMatching(new RegExp(`^line ${victim + 1}: malformed JSON \\(.+\\), skipped$`)) }])
    expect(log.calls).toEqual(intact.calls)
  })

  it('a malformed line inside a call loses only that record', async () => {
    const lines = jsonlSample.trimEnd().split('\n')
    const victim = lines.findIndex((line) => line.includes('"assistant/attempt"'))
    lines[victim] = lines[victim]!.slice(0, 40)
    const log = await readBytes('malformed-attempt.jsonl', lines.join('\n') + '\n')
    expect(log.issues.map((issue) => [issue.kind, 'line' in issue ? issue.line : -1])).toEqual([['malformed-line', victim + 1]])
    expect(log.calls.map((call) => [call.turn, call.step, call.attempt])).toEqual([[1, 1, 1], [1, 2, 1], [2, 1, 1], [3, 1, 1]])
  })

  it('a last line without its newline is a torn write: reported and skipped', async () => {
    const log = await readBytes('torn.jsonl', jsonlSample.trimEnd().slice(0, -10))
    expect(log.issues).toEqual([{ kind: 'truncated-line', line: jsonlSample.trimEnd().split('\n').length, message: expect.stringContaining('incomplete last line') }])
  })

  it('unknown record types, unknown chunk types and unknown fields are skipped and counted, never fatal', async () => {
    const lines = jsonlSample.trimEnd().split('\n')
    const at = lines.findIndex((line) => line.includes('"assistant/message"'))
    const message = JSON.parse(lines[at]!)
    message.data.stream.unshift({ type: 'chunk', time: 1, chunk: { type: 'citation-delta', index: 9, url: 'x' } }, { type: 'hologram', time: 1 })
    message.data.futureField = { nested: true }
    lines[at] = JSON.stringify(message)
    lines.splice(2, 0, JSON.stringify({ type: 'other-plugin/audit', seq: 99, time: 1, data: { any: 1 } }), JSON.stringify({ no: 'type' }), '[1,2]')
    const log = await readBytes('unknown.jsonl', lines.join('\n') + '\n')
    expect(log.calls).toEqual(intact.calls)
    expect(log.skipped).toMatchObject({ 'other-plugin/audit': 1, '(no type)': 1, 'chunk:citation-delta': 1, 'stream:hologram': 1 })
    expect(log.issues).toEqual([{ kind: 'malformed-record', line: 5, message: 'line 5: not a JSON object' }])
  })
})

describe('inputs that are not session logs get one clear error', () => {
  it('an empty file', async () => {
    const log = await readBytes('empty.jsonl.zstd', '')
    expect(log.issues).toEqual([{ kind: 'not-a-session', message: 'empty file' }])
    expect(log.calls).toEqual([])
  })

  it('random bytes', async () => {
    const bytes = Uint8Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 251)
    const log = await readBytes('random.bin', bytes)
    const start = Array.from(bytes.subarray(0, 4), (byte) => byte.toString(16).padStart(2, '0')).join(' ')
    expect(log.issues).toEqual([{ kind: 'not-a-session', message: `not a session log (neither zstd frames nor JSONL; starts with ${start})` }])
  })

  it('JSON lines that are not a session', async () => {
    const log = await readBytes('package.jsonl', '{"name":"x"}\n{"name":"y"}\n')
    expect(log.issues).toEqual([{ kind: 'not-a-session', message: 'no session header and no session event in 2 lines' }])
  })

  it('a directory or a missing file is unreadable, not a crash', async () => {
    const log = await readSession(join(scratch, 'missing.jsonl'))
    expect(log.issues).toHaveLength(1)
    expect(log.issues[0]).toMatchObject({ kind: 'unreadable', message: expect.stringContaining('ENOENT') })
  })
})
