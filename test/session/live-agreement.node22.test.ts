/**
 * Sessions written by the real rc.8 JSONL persistence from real agent-loop
 * runs with the live `loop-breaker` plugin mounted; read back by the reader
 * and replayed by the analyzer, which must agree with the plugin's recorded
 * events on every call: same rule, same side, same `at`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import * as detector from '../../src/detector/index.ts'
import * as plugin from '../../src/plugin/index.ts'
import { analyzeFile, disagreement, readSession } from '../../src/session/index.ts'
import { ciStatusTool } from '../support/ci-status-tool.ts'
import type { SessionCall } from '../../src/session/index.ts'
import { recordLoopSession, recordWorkSession } from './record-sessions.ts'
import type { RecordedSession } from './record-sessions.ts'
import { PLANNING, phrasePool, restatingStep } from './scenarios.ts'
import type { Block } from './scenarios.ts'
import { v4Lines } from './v4-log.ts'

const root = await mkdtemp(join(tmpdir(), 'live-agreement-'))
afterAll(() => rm(root, { recursive: true, force: true }))

/** The deltas DSH itself recorded for each call, from the live session's own events. */
function liveDeltas(events: any[]): string[][] {
  const calls: string[][] = []
  let current: string[] | undefined
  for (const event of events) {
    if (event.type !== 'assistant/chunk') continue
    const chunk = event.data.chunk
    if (current === undefined) calls.push(current = [])
    if (chunk.type === 'text-delta' || chunk.type === 'reasoning-delta') current.push(chunk.text)
    if (chunk.type === 'tool-call-delta') current.push(chunk.argumentsDelta)
    if (chunk.type === 'finish') current = undefined
  }
  return calls
}

const textOf = (call: SessionCall, side: string) => call.deltas.filter((delta) => delta.side === side).map((delta) => delta.text).join('')

async function expectAgreement(session: RecordedSession) {
  const analysis = await analyzeFile(session.file, detector, [detector.DEFAULT_CONFIG])
  expect(analysis.errors).toEqual([])
  for (const call of analysis.calls) expect(disagreement(call, analysis.pluginActive)).toBeNull()
  return analysis
}

const loops: Array<[string, Block[]]> = [
  ['a phrase pool in reasoning after real planning', [{ type: 'reasoning', text: `${PLANNING}\n${phrasePool(6000)}` }, { type: 'text', text: 'done' }]],
  ['a periodic restatement in visible text', [{ type: 'text', text: 'Here is the plan.\n' + 'I will now check the build log and then write the report for the user. '.repeat(60) }]],
  ['the same line written into a file, in tool arguments', [{ type: 'tool-call', id: 'w1', name: 'write_file', arguments: JSON.stringify({ path: 'out.txt', content: 'let me check the file\n'.repeat(600) }) }]],
]

describe('live plugin vs offline analyzer on real session logs', () => {
  it('a session with normal turns, a retried request and a cancelled turn: nothing to cut, nothing recorded', async () => {
    const session = await recordWorkSession(root, 'work-with-plugin')
    const log = await readSession(session.file)
    expect(log.issues).toEqual([])
    expect(log.calls.map((call) => call.deltas.map((delta) => delta.text))).toEqual(liveDeltas(session.events))
    const analysis = await expectAgreement(session)
    expect(analysis.calls.map((call) => call.finish)).toEqual(['tool-calls', 'stop', 'error', 'stop', null])
    expect(analysis.calls.every((call) => call.break === null && call.recorded === null)).toBe(true)
  })

  it.each(loops)('%s: cut live, recorded, and found by the replay at the same rule, side and at', async (_name, loop) => {
    const session = await recordLoopSession(root, { after: [[plugin]], calls: [loop], id: `loop-${Math.random().toString(36).slice(2)}` })
    const recorded = session.events.filter((event) => event.type === 'loop-breaker/break')
    expect(recorded).toHaveLength(1)
    const log = await readSession(session.file)
    expect(log.calls.map((call) => call.deltas.map((delta) => delta.text))).toEqual(liveDeltas(session.events))
    const cut = log.calls[0]!
    expect(cut.recorded.map((event) => event.data)).toEqual([recorded[0].data])
    // The plugin's cut means the recorded stream of that side ends at the tripping delta.
    const side = recorded[0].data.side
    expect(textOf(cut, side).length).toBe(recorded[0].data.at)
    const analysis = await expectAgreement(session)
    expect(analysis.pluginActive).toBe(true)
    expect(analysis.calls[0]!.break).toEqual({
      rule: recorded[0].data.rule, side, at: recorded[0].data.at, repeatedChars: recorded[0].data.repeatedChars,
    })
    // The model was steered and answered: the next call is clean.
    expect(analysis.calls.slice(1).every((call) => call.break === null)).toBe(true)

    // The same session as DSH >= 0.1.7 would write it (v4) replays identically.
    const v4 = join(root, `${session.header.id}.v4.jsonl`)
    await writeFile(v4, v4Lines(session.header, session.events).join('\n') + '\n')
    const v4Analysis = await analyzeFile(v4, detector, [detector.DEFAULT_CONFIG])
    expect(v4Analysis.format).toBe('v4')
    expect(v4Analysis.calls).toEqual(analysis.calls)
  })

  it('a stall across steps (the same long reasoning and tool call again and again): judged live and by the replay on the same call', async () => {
    const session = await recordLoopSession(root, { after: [[plugin]], calls: [1, 2, 3, 4, 5].map(restatingStep), id: 'stall-session' })
    const recorded = session.events.filter((event) => event.type === 'loop-breaker/stall')
    expect(recorded.length).toBeGreaterThan(0)
    const analysis = await expectAgreement(session)
    const stalled = analysis.calls.filter((call) => call.stall !== null)
    expect(stalled.map((call) => [call.turn, call.step, call.stall])).toEqual(recorded.map((event) => [event.data.turn, event.data.step, event.data.reason]))
    expect(stalled.every((call) => call.recorded?.type === 'loop-breaker/stall')).toBe(true)
  })

  it('polls of a CI job: the step judge reads the same tool results live and in the replay', async () => {
    const poll = (step: number): Block[] => [{ type: 'tool-call', id: `poll-${step}`, name: 'ci_status', arguments: '{"run":8812}' }]
    for (const [id, answers, reasons] of [
      ['ci-running', ['{"status":"in_progress"}', '{"status":"in_progress"}', '{"status":"in_progress"}', '{"status":"in_progress"}', '{"status":"completed"}'], []],
      ['ci-stuck', Array(5).fill('{"status":"completed","conclusion":"failure"}'), ['repeated-step']],
    ] as const) {
      const session = await recordLoopSession(root, { after: [[plugin]], calls: [1, 2, 3, 4, 5].map(poll), tools: [ciStatusTool(answers).tool], id })
      const recorded = session.events.filter((event) => event.type === 'loop-breaker/stall')
      expect(recorded.map((event) => event.data.reason), id).toEqual(reasons)
      const analysis = await expectAgreement(session)
      expect(analysis.calls.filter((call) => call.stall !== null).map((call) => call.stall), id).toEqual(reasons)
      const v4 = join(root, `${session.header.id}.v4.jsonl`)
      await writeFile(v4, v4Lines(session.header, session.events).join('\n') + '\n')
      expect((await analyzeFile(v4, detector, [detector.DEFAULT_CONFIG])).calls, id).toEqual(analysis.calls)
    }
  })
})
