// Types of agent-stack.mjs for the TypeScript tests.
import type { Context } from '@deepseek-ai/cordis'

export declare function startAgentStack(options?: {
  before?: Array<[plugin: any, config?: any]>
  after?: Array<[plugin: any, config?: any]>
}): Promise<{ ctx: Context; dispose: () => Promise<void> }>
