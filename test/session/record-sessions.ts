/**
 * Writes real rc.8 session logs (Node 22: the real JSONL persistence) from
 * scripted agent-loop runs. Shared by the Node 22 tests and by the generator
 * of the committed samples, so both describe the same sessions.
 */
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import * as llmRetry from '@deepseek-ai/dsh-llm-retry'
import { createPersistentHost } from '../support/persistence.ts'
import { FINAL_REPORT, PLANNING, failedCall, modelCall, phrasePool } from './scenarios.ts'
import type { Block } from './scenarios.ts'

type Plugins = Array<[plugin: any, config?: any]>

export interface RecordedSession {
  file: string
  /** The live session's events, as the agent loop produced them. */
  events: any[]
  header: { id: string; createdAt: number; cwd?: string }
}

/**
 * Three turns: a tool call then an answer; a request that fails once with a
 * retryable SERVER error and is retried by the real `dsh-llm-retry`; and a
 * turn the user cancels while reasoning streams.
 */
export async function recordWorkSession(root: string, id = 'work-session'): Promise<RecordedSession> {
  let releaseCancel!: () => void
  const cancelPoint = new Promise<void>((resolve) => { releaseCancel = resolve })
  let cancelDeltas = 0
  const host = await createPersistentHost((_options, call) => {
    switch (call) {
      case 0: return modelCall([
        { type: 'reasoning', text: 'I need the CI summary before I can answer.' },
        { type: 'tool-call', id: 'call-1', name: 'read_file', arguments: JSON.stringify({ path: 'ci/summary.txt' }) },
      ])
      case 1: return modelCall([{ type: 'reasoning', text: PLANNING }, { type: 'text', text: FINAL_REPORT }])
      case 2: return failedCall('SERVER', 'upstream overloaded (503)')
      case 3: return modelCall([{ type: 'text', text: 'Retried answer: the lockfile needs `npm install` and a commit.' }])
      default: return modelCall([{ type: 'reasoning', text: PLANNING }], {
        pause: async () => {
          if (++cancelDeltas === 40) releaseCancel()
          await new Promise((resolve) => setTimeout(resolve, 1))
        },
      })
    }
  }, { root, after: [[llmRetry]] })
  try {
    const agent = host.createAgent(id)
    await host.ask(agent, 'Why did last night\'s build fail?')
    await host.ask(agent, 'And what should I do about the lockfile?')
    agent.followup(createUserMessage({ content: 'Write the full report.' } as any))
    await cancelPoint
    agent.cancel({ kind: 'user' })
    await agent.whenIdle()
    return { file: await host.sessionFile(agent), events: [...agent.session.events], header: agent.session.header }
  } finally {
    await host.dispose()
  }
}

/**
 * One user turn whose first calls are `calls` (by default one call of real
 * planning drifting into the seed's phrase pool in its reasoning); every later
 * call answers. With the `loop-breaker` plugin among `after`, the live plugin
 * cuts the loop (or judges the stall) and steers the model on; without it, the
 * loop runs its whole length.
 */
export async function recordLoopSession(root: string, options: { after?: Plugins; id?: string; calls?: Block[][]; tools?: unknown[] } = {}): Promise<RecordedSession> {
  const calls = options.calls ?? [[{ type: 'reasoning', text: `${PLANNING}\n${phrasePool(6000)}` }, { type: 'text', text: FINAL_REPORT }]]
  const host = await createPersistentHost((_options, call) => modelCall(calls[call] ?? [{ type: 'text', text: FINAL_REPORT }]), { root, after: options.after })
  for (const tool of options.tools ?? []) (host.ctx as any).tools.register(tool)
  try {
    const agent = host.createAgent(options.id ?? 'loop-session')
    await host.ask(agent, 'Summarize last night\'s build failures.')
    return { file: await host.sessionFile(agent), events: [...agent.session.events], header: agent.session.header }
  } finally {
    await host.dispose()
  }
}
