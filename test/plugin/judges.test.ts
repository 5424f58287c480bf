import { afterEach, describe, expect, it } from 'vitest'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { ciStatusTool } from '../support/ci-status-tool.ts'
import { textAnswer } from '../support/host.ts'
import type { Script } from '../support/host.ts'
import { createGuardedHost, eventsOf, lastMessageText, streamBlocks, toDeltas } from '../support/loop-breaker.ts'
import { READ_FILE } from '../support/read-steps.ts'
import { productiveProse } from '../fixtures/detector/loops.mjs'

const hosts: Array<{ dispose(): Promise<void> }> = []
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.dispose()
})

/**
 * Long reasoning that never repeats itself inside one call: productive prose, seeded (a numbered
 * sentence template over a dozen words is a loop the in-call rules cut).
 */
function deliberation(seed: number, chars = 2600): string {
  return productiveProse(chars, 'en', seed)
}

/** One user turn of `script` in a guarded host that has the `read_file` tool. */
async function askWithReadFile(script: Script, prompt: string) {
  const host = await createGuardedHost(script)
  hosts.push(host)
  ;(host.ctx as any).tools.register(READ_FILE)
  const agent = host.createAgent()
  await host.ask(agent, prompt)
  return { agent, requests: host.adapter.requests }
}

describe('cross-call and cross-step judges feed the same ladder', () => {
  it('reports a repeated step (same tool call three times) and steers the notice after the tool result', async () => {
    const script: Script = (_options, call) => call < 3
      ? streamBlocks([{ type: 'tool-call', id: `c${call}`, name: 'read_file', deltas: ['{"path":"parser.ts"}'] }])
      : textAnswer('Read it; now patching.')
    const { agent, requests } = await askWithReadFile(script, 'fix the parser')
    expect(eventsOf(agent, 'loop-breaker/stall')).toEqual([
      { turn: 1, step: 3, judge: 'step', reason: 'repeated-step', level: 1, action: 'remind' },
    ])
    const next = requests[3]!
    expect(lastMessageText(next)).toContain('Your last steps repeated the same action')
    expect((next.messages.at(-2) as any).content[0].type).toBe('tool-result')
  })

  it('reports reasoning that restates the previous call, even while tool calls go on', async () => {
    const same = deliberation(1)
    const script: Script = (_options, call) => call < 4
      ? streamBlocks([
        { type: 'reasoning', deltas: toDeltas(same, 40) },
        { type: 'tool-call', id: `c${call}`, name: 'read_file', deltas: [`{"path":"file${call}.ts"}`] },
      ])
      : textAnswer('ok')
    const { agent } = await askWithReadFile(script, 'look around')
    expect(eventsOf(agent, 'loop-breaker/break')).toEqual([])
    expect(eventsOf(agent, 'loop-breaker/stall')).toEqual([
      { turn: 1, step: 4, judge: 'call', reason: 'repeated-material', level: 1, action: 'remind' },
    ])
  })

  it('reports calls that only think across the user\'s "continue" messages', async () => {
    const script: Script = (_options, call) => call < 3
      ? streamBlocks([{ type: 'reasoning', deltas: toDeltas(deliberation(call + 10), 40) }])
      : textAnswer('Here is the patch.')
    const host = await createGuardedHost(script)
    hosts.push(host)
    const agent = host.createAgent()
    for (const prompt of ['fix it', 'continue', 'continue']) await host.ask(agent, prompt)
    expect(eventsOf(agent, 'loop-breaker/stall')).toEqual([
      { turn: 3, step: 1, judge: 'call', reason: 'reasoning-only', level: 1, action: 'remind' },
    ])
    expect(lastMessageText(host.adapter.requests[3]!)).toContain('only reasoned and produced no reply and no tool call')
    expect(eventsOf(agent, 'assistant/message').at(-1).message.content[0].text).toBe('Here is the patch.')
  })

  it('reports a cycle of three steps (A → B → C → A → B → C) with the step-cycle notice', async () => {
    const cycle = [
      { name: 'read_file', args: { path: 'src/config.ts' } },
      { name: 'read_file', args: { path: 'src/config.test.ts' } },
      { name: 'read_file', args: { path: 'build.log' } },
    ]
    const script: Script = (_options, call) => call < 9
      ? streamBlocks([{ type: 'tool-call', id: `c${call}`, name: cycle[call % 3]!.name, deltas: [JSON.stringify(cycle[call % 3]!.args)] }])
      : textAnswer('Stopping the cycle; here is what I found.')
    const { agent, requests } = await askWithReadFile(script, 'why does the build fail?')
    // Two full cycles (6 steps): reported at the sixth.
    expect(eventsOf(agent, 'loop-breaker/stall')).toEqual([{ turn: 1, step: 6, judge: 'step', reason: 'step-cycle', level: 1, action: 'remind' }])
    expect(lastMessageText(requests[6]!)).toContain('Your last steps went round the same short cycle of actions again and again')
  })

  it('lets polls of a CI job that the tool reports as still running go on, and reports the same poll once its answer stays the same', async () => {
    for (const [label, answers, expected] of [
      ['running, then done', ['{"status":"in_progress"}', '{"status":"in_progress"}', '{"status":"in_progress"}', '{"status":"in_progress"}', '{"status":"completed","conclusion":"success"}'], []],
      ['zh: queued, then running', ['流水线 #8812：排队中', '流水线 #8812：排队中', '流水线 #8812：运行中（3/7 个任务完成）', '流水线 #8812：运行中（5/7 个任务完成）', '流水线 #8812：成功'], []],
      ['a checks table with a pending build', Array(5).fill('build\tpending\t0\thttps://ci.example.com/8812\nlint\tpass\t12s\thttps://ci.example.com/8813'), []],
      ['failed every time', Array(5).fill('{"status":"completed","conclusion":"failure"}'), [{ turn: 1, step: 3, judge: 'step', reason: 'repeated-step', level: 1, action: 'remind' }]],
      // cargo's "running 3 tests" is a test run's heading, not a job still running.
      ['a test run failing the same way', Array(5).fill('running 3 tests\ntest a ... ok\ntest b ... FAILED\ntest result: FAILED. 2 passed; 1 failed'), [{ turn: 1, step: 3, judge: 'step', reason: 'repeated-step', level: 1, action: 'remind' }]],
    ] as const) {
      const ciStatus = ciStatusTool(answers)
      const script: Script = (_options, call) => call < 5
        ? streamBlocks([
          { type: 'text', deltas: [call % 2 === 0 ? 'Checking CI again.' : 'Still waiting; one more look.'] },
          { type: 'tool-call', id: `c${call}`, name: 'ci_status', deltas: ['{"run":8812}'] },
        ])
        : textAnswer('CI finished.')
      const host = await createGuardedHost(script)
      hosts.push(host)
      ;(host.ctx as any).tools.register(ciStatus.tool)
      const agent = host.createAgent()
      await host.ask(agent, 'wait for CI')
      expect(ciStatus.polls(), label).toBe(5)
      expect(eventsOf(agent, 'loop-breaker/stall'), label).toEqual(expected)
    }
  })

  it('reports the same failing edit retried with a reworded preface (English and Chinese), through a real edit tool that fails each time', async () => {
    const prefaces = {
      en: ['Let me fix the import.', 'The edit did not apply; trying again.', 'One more attempt with the exact text.', 'Retrying the edit.'],
      zh: ['我来修复这个导入。', '刚才的修改没有生效，再试一次。', '用完全相同的文本再替换一次。', '重新编辑一次。'],
    }
    for (const language of ['en', 'zh'] as const) {
      let edits = 0
      const editFile = defineTool({
        name: 'edit_file',
        description: 'Replace old_string with new_string in a file.',
        parameters: { path: { type: 'string', required: true }, old_string: { type: 'string', required: true }, new_string: { type: 'string', required: true } },
        output: { schema: { type: 'string' }, render: (_args: unknown, value: string) => [{ type: 'text' as const, text: value }] },
        async execute(args: { path: string }) {
          edits++
          return `Error: old_string not found in ${args.path} (attempt at ${new Date(Date.UTC(2025, 4, 2, 8, 0, edits)).toISOString()})`
        },
      })
      // The same edit each time, its old string respaced on the third try.
      const script: Script = (_options, call) => call < 4
        ? streamBlocks([
          { type: 'text', deltas: [prefaces[language][call]!] },
          { type: 'tool-call', id: `e${call}`, name: 'edit_file', deltas: [JSON.stringify({ path: 'src/index.ts', old_string: call === 2 ? "import {  parse } from './parse'" : "import { parse } from './parse'", new_string: "import { parse } from './parser.ts'" })] },
        ])
        : textAnswer('The file does not contain that import; reading it first.')
      const host = await createGuardedHost(script)
      hosts.push(host)
      ;(host.ctx as any).tools.register(editFile)
      const agent = host.createAgent()
      await host.ask(agent, language === 'zh' ? '修复导入' : 'fix the import')
      expect(eventsOf(agent, 'loop-breaker/stall'), language).toEqual([{ turn: 1, step: 3, judge: 'step', reason: 'repeated-step', level: 1, action: 'remind' }])
    }
  })

  it('reports an edit → run tests → read the same error cycle, and lets tests after each real edit go on', async () => {
    const outputs: Record<string, (args: any) => string> = {
      edit_file: (args) => `Edited ${args.path}`,
      run_tests: () => 'FAIL src/config.test.ts\nTypeError: Duration.seconds is not a function\nTests: 1 failed, 11 passed',
      read_file: (args) => `contents of ${args.path}`,
    }
    const tools = Object.entries(outputs).map(([name, output]) => defineTool({
      name,
      description: name,
      parameters: { path: { type: 'string', required: true } },
      output: { schema: { type: 'string' }, render: (_args: unknown, value: string) => [{ type: 'text' as const, text: value }] },
      async execute(args: any) { return output(args) },
    }))
    const run = async (steps: Array<{ name: string, args: object }>) => {
      const script: Script = (_options, call) => call < steps.length
        ? streamBlocks([{ type: 'tool-call', id: `c${call}`, name: steps[call]!.name, deltas: [JSON.stringify(steps[call]!.args)] }])
        : textAnswer('Done.')
      const host = await createGuardedHost(script)
      hosts.push(host)
      for (const tool of tools) (host.ctx as any).tools.register(tool)
      const agent = host.createAgent()
      await host.ask(agent, 'make the config tests pass')
      return eventsOf(agent, 'loop-breaker/stall')
    }
    const cycle = [{ name: 'edit_file', args: { path: 'src/config.ts' } }, { name: 'run_tests', args: { path: 'src/config.test.ts' } }, { name: 'read_file', args: { path: 'test-results/config.log' } }]
    expect(await run([...cycle, ...cycle, ...cycle])).toEqual([{ turn: 1, step: 6, judge: 'step', reason: 'step-cycle', level: 1, action: 'remind' }])
    // A different file edited each round, the tests run after each: a workflow.
    const rounds = ['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/d.ts'].flatMap((path) => [{ name: 'edit_file', args: { path } }, { name: 'run_tests', args: { path: 'src/config.test.ts' } }])
    expect(await run(rounds)).toEqual([])
  })
})
