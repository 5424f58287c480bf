/**
 * The line a headless run ends with when the plugin cancelled its turn: written when the tree is disposed
 * (rc.8's headless runner asks the launcher to exit right after printing), only in the headless profile
 * (the `headlessStartup` service its `headless-startup` row provides, mounted here as that row mounts it),
 * and only when no later turn followed the cancel. The real CLI run is test/e2e/run.sh step 16.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { textAnswer } from '../support/host.ts'
import type { Script } from '../support/host.ts'
import { createGuardedHost, phrasePoolReasoning, streamBlocks, toDeltas } from '../support/loop-breaker.ts'
import type { Config } from '../../src/plugin/index.ts'

/** What rc.8's `@deepseek-ai/dsh-headless/startup` row does once it has parsed the task. */
const headlessStartup = {
  name: 'headless-startup',
  apply: (ctx: any) => ctx.provide('headlessStartup', { task: 'fix the parser' }),
}

const hosts: Array<{ dispose(): Promise<void> }> = []
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.dispose()
})

const LOOP = () => streamBlocks([{ type: 'reasoning', deltas: toDeltas(phrasePoolReasoning('Plan: read parser.ts.')) }])

/** One user turn; the model loops on the calls `loops` says; returns every line the plugin wrote, after disposal. */
async function run(options: { headless: boolean; config: Config; loops: (call: number) => boolean; task?: string; script?: Script }) {
  const lines: string[] = []
  const script: Script = options.script ?? ((_options, call) => options.loops(call) ? LOOP() : textAnswer('Continuing with the task.'))
  const host = await createGuardedHost(script, options.config, {
    before: options.headless ? [[headlessStartup]] : [],
    internals: { writeLine: (line) => lines.push(line) },
  })
  const agent = host.createAgent()
  await host.ask(agent, options.task ?? 'fix the parser')
  await agent.whenIdle()
  const linesBeforeDisposal = lines.length
  await host.dispose()
  return { lines, linesBeforeDisposal, agent }
}

describe('the last line of a headless run whose turn the plugin cancelled', () => {
  it('is written at disposal, after every other line, and names the turn, the loops in a row and the session', async () => {
    const { lines, linesBeforeDisposal, agent } = await run({ headless: true, config: { maxBreaksPerTurn: 2 }, loops: () => true })
    expect(lines.length).toBe(linesBeforeDisposal + 1)
    expect(lines.at(-1)).toBe(`[loop-breaker] turn 1 was stopped after 2 loops in a row, so dsh exits with status 1: the text above is the model's output up to the cut, not an answer. Session ${agent.id} keeps it; continue it in dsh --profile web, or run the task again reworded or in smaller steps.`)
  })

  it('speaks the user\'s language', async () => {
    const { lines } = await run({ headless: true, config: { maxBreaksPerTurn: 1 }, loops: () => true, task: '修复解析器' })
    expect(lines.at(-1)).toMatch(/^\[loop-breaker\] 第 1 轮出现循环后被中止，dsh 因此以状态 1 退出：.*会话 test-session-\d+ 已保存/)
  })

  it('is not written outside the headless profile', async () => {
    const { lines, linesBeforeDisposal } = await run({ headless: false, config: { maxBreaksPerTurn: 1 }, loops: () => true })
    expect(lines.length).toBe(linesBeforeDisposal)
    expect(lines.some((line) => line.includes('was stopped'))).toBe(false)
  })

  it('is not written when the turn completed', async () => {
    const { lines, linesBeforeDisposal } = await run({ headless: true, config: {}, loops: (call) => call === 0 })
    expect(lines.length).toBe(linesBeforeDisposal)
  })

  it('is not written when a resumed turn followed the cancel and completed', async () => {
    const { lines, linesBeforeDisposal, agent } = await run({ headless: true, config: { maxBreaksPerTurn: 1, resumeAfterBreak: true }, loops: (call) => call === 0 })
    expect(agent.session.events.filter((event: any) => event.type === 'turn/end').map((event: any) => event.data.reason.kind)).toEqual(['aborted', 'completed'])
    expect(lines.length).toBe(linesBeforeDisposal)
  })
})

describe('the last line of a headless run whose answer the plugin continued after the output length limit', () => {
  /** The answer in three parts: the limit cuts the first two calls. */
  const parts = ['Plan: 1. run the unit tests; 2. run the ty', 'pe check; 3. pack the pack', 'age only when both pass.']
  const script: Script = (_options, call) => streamBlocks([{ type: 'text', deltas: toDeltas(parts[call]!) }], call < 2 ? { finish: 'max-tokens' } : {})

  it('says the printed answer is the last of its parts, and where the whole one is', async () => {
    const { lines, linesBeforeDisposal, agent } = await run({ headless: true, config: {}, loops: () => false, script })
    const printed = agent.session.events.filter((event: any) => event.type === 'assistant/message').at(-1).data.message.content[0].text
    expect(printed).toBe(parts[2])
    expect(lines.length).toBe(linesBeforeDisposal + 1)
    expect(lines.at(-1)).toBe(`[loop-breaker] the answer above is only the last of 3 parts: the output length limit cut turn 1's answer and the plugin continued it. Session ${agent.id} keeps the whole answer (the web UI shows every part).`)
  })

  it('is not written outside the headless profile, nor when the answer that follows a continuation stands alone', async () => {
    expect((await run({ headless: false, config: {}, loops: () => false, script })).lines.some((line) => line.includes('parts'))).toBe(false)
    // The continued call held only reasoning: the printed text is the whole answer.
    const alone: Script = (_options, call) => call === 0
      ? streamBlocks([{ type: 'reasoning', deltas: ['Thinking about the plan'] }], { finish: 'max-tokens' })
      : textAnswer('The whole answer.')
    const { lines, linesBeforeDisposal } = await run({ headless: true, config: {}, loops: () => false, script: alone })
    expect(lines.filter((line) => line.includes('the output length limit cut the call'))).toHaveLength(1)
    expect(lines.length).toBe(linesBeforeDisposal)
  })
})
