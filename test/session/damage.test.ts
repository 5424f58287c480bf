import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decompress } from 'fzstd'
import { afterAll, describe, expect, it } from 'vitest'
import { readSession } from '../../src/session/index.ts'
import type { SessionCall } from '../../src/session/index.ts'
import { concatBytes, frameLayout, rawFrame } from './zstd-layout.ts'

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
      if ('offset' in issue) expect(issue.offset).toBe(target)
      else expect(['malformed-line', 'malformed-record', 'truncated-line']).toContain(issue.kind)
    }
    const before = await readBytes('before-flip.jsonl.zstd', zstdSample.subarray(0, target))
    // Every call that ended before the damaged frame is read unchanged (the last one may continue in it).
    expect(before.calls.length).toBeGreaterThan(1)
    expect(log.calls.slice(0, before.calls.length - 1)).toEqual(before.calls.slice(0, -1))
  })

  it('a corrupt frame header: the frame is skipped by searching for the next frame magic', async () => {
    const target = starts[3]!
    const bad = Buffer.from(zstdSample)
    bad[target + 4] = bad[target + 4]! | 0x08 // reserved frame-header bit
    const log = await readBytes('bad-header.jsonl.zstd', bad)
    expect(log.issues).toEqual([expect.objectContaining({ kind: 'corrupt-frame', offset: target, end: starts[4], resynced: true })])
    expect(log.issues[0]!.message).toMatch(new RegExp(`^corrupt zstd frame at bytes ${target}-${starts[4]! - 1} \\(\\d+ bytes\\): reserved frame header bit set; its headers cannot be followed, so the next frame was found by searching forward for the zstd magic \\(28 b5 2f fd\\) at byte ${starts[4]}; seq gap: `))
    expect(strip(log.calls)).toEqual((await withoutFrames('no-frame-3.jsonl.zstd', zstdSample, [3])).calls)
  })

  it('a declared window beyond 128 MiB is rejected instead of allocated', async () => {
    const target = starts[2]!
    const bad = Buffer.from(zstdSample)
    const descriptor = bad[target + 4]!
    expect((descriptor >> 5) & 1).toBe(0) // Node writes a window descriptor byte
    bad[target + 5] = 0xf8 // 2^41 bytes
    const log = await readBytes('huge-window.jsonl.zstd', bad)
    expect(log.issues).toHaveLength(1)
    expect(log.issues[0]).toMatchObject({ kind: 'corrupt-frame', offset: target, end: starts[3], resynced: true })
    expect(log.issues[0]!.message).toMatch(/window size \d+ exceeds 134217728/)
  })
})

/** The calls without the damage marks (for comparing with a log that simply lacks the skipped bytes). */
function strip(calls: SessionCall[]): SessionCall[] {
  return calls.map(({ damaged: _damaged, ...call }) => call)
}

/** The log read with the given frames cut out whole: what a reader that skips exactly them must give. */
function withoutFrames(name: string, bytes: Uint8Array, skip: number[]) {
  const frames = frameLayout(bytes)
  return readBytes(name, concatBytes(frames.filter((_, index) => !skip.includes(index)).map((frame) => bytes.subarray(frame.start, frame.end))))
}

/** First and last seq of each frame's records (rows count one seq per packed delta). */
function frameSeqs(bytes: Uint8Array): Array<[number, number] | undefined> {
  return frameLayout(bytes).map((frame) => {
    const seqs = Buffer.from(decompress(bytes.subarray(frame.start, frame.end))).toString('utf8').trimEnd().split('\n').flatMap((line) => {
      const record = JSON.parse(line)
      if (typeof record.seq === 'number') return [record.seq]
      if (typeof record.seq0 === 'number') return [record.seq0, record.seq0 + (record.data.texts ?? record.data.args).length - 1]
      return []
    })
    return seqs.length === 0 ? undefined : [Math.min(...seqs), Math.max(...seqs)]
  })
}

/** The seq gap a reader must report for skipping frames `from`..`to`: last seq before, first after. */
function seqGap(bytes: Uint8Array, from: number, to: number) {
  const seqs = frameSeqs(bytes)
  return {
    seqBefore: seqs.slice(0, from).findLast((range) => range !== undefined)?.[1] ?? null,
    seqAfter: seqs.slice(to + 1).find((range) => range !== undefined)?.[0] ?? null,
  }
}

describe('a damaged middle frame is skipped; every frame after it is read', () => {
  const frames = frameLayout(zstdSample)

  it('the layout helper agrees with the frame magics', () => {
    expect(frames.map((frame) => frame.start)).toEqual(starts)
    expect(frames.at(-1)!.end).toBe(zstdSample.length)
  })

  it.each(frames.slice(1, -1).map((_, index) => index + 1))('frame %i fails to decode: reported with its bytes and seq gap, the calls outside it read as usual', async (index) => {
    const frame = frames[index]!
    const bad = Uint8Array.from(zstdSample)
    const block = frame.blocks.find((candidate) => candidate.type === 'compressed')!
    bad.fill(0xff, block.body, block.body + block.size) // block sizes intact: the next frame's start is known
    const log = await readBytes(`undecodable-${index}.jsonl.zstd`, bad)
    const gap = seqGap(zstdSample, index, index)
    expect(log.issues).toEqual([{
      kind: 'corrupt-frame', offset: frame.start, end: frame.end, resynced: false, ...gap,
      message: expect.stringMatching(new RegExp(`^corrupt zstd frame at bytes ${frame.start}-${frame.end - 1} \\(${frame.end - frame.start} bytes\\): .+; skipped, reading goes on with the next frame; seq gap: last seq before it ${gap.seqBefore ?? 'none'}, first seq after it ${gap.seqAfter ?? 'none'}$`)),
    }])
    const cut = await withoutFrames(`cut-${index}.jsonl.zstd`, zstdSample, [index])
    expect(strip(log.calls)).toEqual(cut.calls)
    // At most the call open across the gap and the one resuming after it are marked; the rest are intact calls.
    const damaged = log.calls.filter((call) => call.damaged !== undefined)
    expect(damaged.length).toBeLessThanOrEqual(2)
    for (const call of damaged) expect(call.damaged).toMatch(new RegExp(`bytes ${frame.start}-${frame.end - 1} skipped \\(corrupt-frame\\)`))
    for (const call of log.calls.filter((candidate) => candidate.damaged === undefined)) expect(intact.calls).toContainEqual(call)
  })

  it('a frame that decodes to wrong content is caught by its content checksum', async () => {
    // The same log re-framed with raw blocks: a flipped payload byte still decodes, to wrong bytes.
    const contents = frames.map((frame) => decompress(zstdSample.subarray(frame.start, frame.end)))
    const raw = contents.map((content) => rawFrame(content))
    const bytes = concatBytes(raw)
    expect((await readBytes('raw.jsonl.zstd', bytes)).calls).toEqual(intact.calls)
    const index = 2
    const layout = frameLayout(bytes)
    const frame = layout[index]!
    const flipped = Uint8Array.from(bytes)
    const at = frame.blocks[0]!.body + 40
    flipped[at] = flipped[at]! ^ 0x01
    // Without the checksum nothing would notice: the frame decodes, to other bytes of the same length.
    const decoded = decompress(flipped.subarray(frame.start, frame.end))
    expect(decoded.length).toBe(contents[index]!.length)
    expect(Buffer.from(decoded).equals(Buffer.from(contents[index]!))).toBe(false)
    const log = await readBytes('raw-flipped.jsonl.zstd', flipped)
    const gap = seqGap(bytes, index, index)
    expect(log.issues).toEqual([{
      kind: 'checksum-mismatch', offset: frame.start, end: frame.end, resynced: false, ...gap,
      message: expect.stringMatching(new RegExp(`^zstd frame at bytes ${frame.start}-${frame.end - 1} \\(\\d+ bytes\\): content checksum mismatch \\(stored [0-9a-f]{8}, content decodes to [0-9a-f]{8}\\); skipped, reading goes on with the next frame; seq gap: `)),
    }])
    expect(strip(log.calls)).toEqual((await withoutFrames('raw-cut.jsonl.zstd', bytes, [index])).calls)
  })

  it('a damaged block header: the next frame is found by its magic, and the report says so', async () => {
    const index = 2
    const frame = frames[index]!
    const bad = Uint8Array.from(zstdSample)
    bad[frame.blocks[0]!.header] = bad[frame.blocks[0]!.header]! | 0x06 // reserved block type 3
    const log = await readBytes('bad-block.jsonl.zstd', bad)
    expect(log.issues).toEqual([expect.objectContaining({ kind: 'corrupt-frame', offset: frame.start, end: frame.end, resynced: true, ...seqGap(zstdSample, index, index) })])
    expect(log.issues[0]!.message).toContain('reserved block type; its headers cannot be followed, so the next frame was found by searching forward for the zstd magic (28 b5 2f fd)')
    expect(strip(log.calls)).toEqual((await withoutFrames('bad-block-cut.jsonl.zstd', zstdSample, [index])).calls)
  })

  it('a block size that runs into the next frames: those frames are still found and read', async () => {
    const index = 3
    const frame = frames[index]!
    const bad = Uint8Array.from(zstdSample)
    const header = frame.blocks[0]!.header
    const raw = bad[header]! | (bad[header + 1]! << 8) | (bad[header + 2]! << 16)
    const grown = (raw & 7) | ((frame.blocks[0]!.size + 200) << 3) // 200 bytes into the next frame
    bad[header] = grown & 0xff
    bad[header + 1] = (grown >> 8) & 0xff
    bad[header + 2] = (grown >> 16) & 0xff
    const log = await readBytes('long-block.jsonl.zstd', bad)
    // It may fail to decode or decode to wrong bytes (checked against bytes of the next frame); either way
    // the walk ended inside the next frame, whose magic is then found within the bytes already read.
    expect(log.issues).toEqual([expect.objectContaining({ kind: expect.stringMatching(/^(?:corrupt-frame|checksum-mismatch)$/), offset: frame.start, end: frame.end, resynced: true, ...seqGap(zstdSample, index, index) })])
    expect(strip(log.calls)).toEqual((await withoutFrames('long-block-cut.jsonl.zstd', zstdSample, [index])).calls)
  })

  it('damage with no frame magic after it skips the rest of the file, and says so', async () => {
    const last = frames.at(-1)!
    const bad = Uint8Array.from(zstdSample)
    bad[last.start] = 0x00 // the last frame's magic
    const log = await readBytes('bad-last-magic.jsonl.zstd', bad)
    expect(log.issues).toEqual([expect.objectContaining({ kind: 'corrupt-frame', offset: last.start, end: zstdSample.length, resynced: true, seqAfter: null })])
    expect(log.issues[0]!.message).toContain('no zstd frame magic follows: the rest of the file is skipped; seq gap: last seq before it')
    expect(log.issues[0]!.message).toMatch(/first seq after it none$/)
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
