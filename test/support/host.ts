/**
 * A real in-process DSH host for tests: the rc.8 agent-loop stack mounted by
 * dev/agent-stack.mjs (the same mount the demo and the bench use), plus a scripted adapter. Nothing here
 * is a mock of DSH; only the model is scripted.
 */
import { LlmAdapter, createUserMessage } from '@deepseek-ai/dsh-llm'
import type { GenerateOptions, StreamChunk } from '@deepseek-ai/dsh-llm'
import { startAgentStack } from '../../dev/agent-stack.mjs'

export type Script = (options: GenerateOptions, call: number) => AsyncIterable<StreamChunk>

/** An adapter whose every call is answered by `script(options, callIndex)`. */
export class ScriptedAdapter extends LlmAdapter {
  readonly requests: GenerateOptions[] = []
  constructor(private readonly script: Script, private readonly contextWindow = 128_000) {
    super()
  }
  override async resolveModel(provider: string, model: string) {
    return { provider, id: model, name: model, context: { contextWindow: this.contextWindow } }
  }
  stream(options: GenerateOptions): AsyncIterable<StreamChunk> {
    this.requests.push(options)
    return this.script(options, this.requests.length - 1)
  }
}

export interface HostOptions {
  /** Plugins mounted after dsh-llm and before the session/agent stack, e.g. invariants. */
  before?: Array<[plugin: any, config?: any]>
  /** Plugins mounted after the agent loop (the plugin under test, retry executors, ...). */
  after?: Array<[plugin: any, config?: any]>
}

export async function createHost(script: Script, options: HostOptions = {}) {
  // Startup errors (including a plugin's config validation) surface here.
  const { ctx, dispose } = await startAgentStack(options)
  const adapter = new ScriptedAdapter(script)
  ;(ctx as any).llm.registerAdapter(['scripted'], adapter)
  let sessions = 0
  const createAgent = (id = `test-session-${++sessions}`) =>
    (ctx as any).agentLoop.create(id, { provider: 'scripted', model: 'scripted-model' }, { cwd: process.cwd() })
  return { ctx, adapter, createAgent, ask: say, dispose }
}

/** The user sends `text` to an agent, as the real UI does, and the agent's turn runs to its end. */
export async function say(agent: any, text: string): Promise<void> {
  agent.followup(userText(text))
  await agent.whenIdle()
}

/** A user-typed message as the real UI sends it: content blocks (real adapters serialise blocks). */
export function userText(text: string) {
  return createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } } as any)
}

/** Chunks of one plain text answer, legal by the rc.8 stream grammar. */
export async function* textAnswer(text: string, reasoning?: string): AsyncIterable<StreamChunk> {
  let index = 0
  if (reasoning !== undefined) {
    yield { type: 'block-start', index, blockType: 'reasoning' } as any
    yield { type: 'reasoning-delta', index, text: reasoning } as any
    yield { type: 'block-end', index, block: { type: 'reasoning', text: reasoning } } as any
    index++
  }
  yield { type: 'block-start', index, blockType: 'text' } as any
  yield { type: 'text-delta', index, text } as any
  yield { type: 'block-end', index, block: { type: 'text', text } } as any
  yield { type: 'finish', reason: { kind: 'stop' } } as any
}
