import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readSession } from '../../src/session/index.ts'
import type { SessionCall } from '../../src/session/index.ts'
import { FINAL_REPORT, PLANNING, splitDeltas } from './scenarios.ts'

const fixtures = join(import.meta.dirname, '../fixtures/sessions')
const scratch = await mkdtemp(join(tmpdir(), 'session-reader-'))
afterAll(() => rm(scratch, { recursive: true, force: true }))

const sideText = (call: SessionCall, side: string) => call.deltas.filter((delta) => delta.side === side).map((delta) => delta.text).join('')

describe('readSession on a real rc.8 log (work.rc8.jsonl.zstd)', async () => {
  const log = await readSession(join(fixtures, 'work.rc8.jsonl.zstd'))

  it('reads every frame, with no issue', () => {
    expect(log.format).toBe('rc.8')
    expect(log.encoding).toBe('zstd')
    expect(log.issues).toEqual([])
    expect(log.header).toMatchObject({ type: 'session', version: 0, id: 'work-session' })
  })

  it('rebuilds every call in order: tool call, answer, failed attempt, its retry, the cancelled call', () => {
    expect(log.calls.map((call) => [call.turn, call.step, call.attempt, call.finish?.kind, call.hasMessage])).toEqual([
      [1, 1, 1, 'tool-calls', true],
      [1, 2, 1, 'stop', true],
      [2, 1, 1, 'error', false],
      [2, 1, 2, 'stop', true],
      [3, 1, 1, undefined, true],
    ])
    expect(log.calls[0]!.toolCalls).toEqual([{ id: 'call-1', name: 'read_file', arguments: '{"path":"ci/summary.txt"}' }])
    expect(log.calls[2]!.finish).toEqual({ kind: 'error', failure: { message: 'upstream overloaded (503)', code: 'SERVER' } })
  })

  it('keeps the deltas in their original boundaries, from packed rows and single chunks alike', () => {
    const answer = log.calls[1]!
    expect(answer.deltas.filter((delta) => delta.side === 'reasoning').map((delta) => delta.text)).toEqual(splitDeltas(PLANNING, 1))
    expect(answer.deltas.filter((delta) => delta.side === 'text').map((delta) => delta.text)).toEqual(splitDeltas(FINAL_REPORT, 2))
    expect(answer.reasoningChars).toBe(PLANNING.length)
    expect(answer.textChars).toBe(FINAL_REPORT.length)
    expect(sideText(log.calls[0]!, 'tool')).toBe('{"path":"ci/summary.txt"}')
    // The failed attempt streamed a single delta: stored as one assistant/chunk, not a packed row.
    expect(log.calls[2]!.deltas).toEqual([{ side: 'text', text: 'Let me', block: 0 }])
    // Packed rows name their block too (the replay needs it for the count a cut reports).
    expect(new Set(answer.deltas.map((delta) => delta.block))).not.toContain(undefined)
  })

  it('counts the records it does not use, by type', () => {
    expect(log.skipped['llm/retry']).toBe(1)
    expect(log.skipped['turn/end']).toBe(3)
  })
})

describe('v4 logs built from the same session', async () => {
  const rc8 = await readSession(join(fixtures, 'work.rc8.jsonl.zstd'))

  it.each(['work.v4.jsonl.zstd', 'work.v4.jsonl'])('%s yields exactly the rc.8 calls', async (name) => {
    const v4 = await readSession(join(fixtures, name))
    expect(v4.format).toBe('v4')
    expect(v4.issues).toEqual([])
    expect(v4.calls).toEqual(rc8.calls)
  })
})

describe('encoding is told by the magic bytes, not the name', () => {
  it('reads zstd named .jsonl and JSONL named .zstd', async () => {
    const zstdAsJsonl = join(scratch, 'misnamed.jsonl')
    const jsonlAsZstd = join(scratch, 'misnamed.jsonl.zstd')
    await copyFile(join(fixtures, 'work.rc8.jsonl.zstd'), zstdAsJsonl)
    await copyFile(join(fixtures, 'work.v4.jsonl'), jsonlAsZstd)
    expect((await readSession(zstdAsJsonl)).encoding).toBe('zstd')
    expect((await readSession(zstdAsJsonl)).calls).toHaveLength(5)
    expect((await readSession(jsonlAsZstd)).encoding).toBe('jsonl')
    expect((await readSession(jsonlAsZstd)).calls).toHaveLength(5)
  })
})

describe('plugin events', () => {
  it('land beside the call of their turn and step; others stay standalone', async () => {
    const lines = (await readFile(join(fixtures, 'work.v4.jsonl'), 'utf8')).trimEnd().split('\n')
    const at = lines.findIndex((line) => line.includes('"assistant/message"') && line.includes('"turn":1,"step":2'))
    const recorded = { type: 'loop-breaker/break', seq: 9000, time: 1, data: { turn: 1, step: 2, rule: 'cycle', side: 'text', at: 50, repeatedChars: 40, level: 1, action: 'steer' } }
    const orphan = { type: 'loop-breaker/stall', seq: 9001, time: 2, data: { turn: 9, step: 9, reason: 'reasoning-only' } }
    lines.splice(at + 1, 0, JSON.stringify(recorded))
    lines.push(JSON.stringify(orphan))
    const file = join(scratch, 'with-events.jsonl')
    await writeFile(file, lines.join('\n') + '\n')
    const log = await readSession(file)
    expect(log.calls[1]!.recorded).toEqual([recorded])
    expect(log.calls.filter((call) => call.recorded.length > 0)).toHaveLength(1)
    expect(log.events).toEqual([orphan])
  })
})
