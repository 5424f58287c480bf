// The real rc.8 agent-loop stack mounted in-process, in DSH's documented order (dsh-llm, then `before`,
// dsh-session, dsh-system-prompt, dsh-tools, dsh-agent, dsh-agent-loop, then `after`). One mount for the
// demo, the plugin bench and the test host, so all three run the same host.
import './promise-with-resolvers.mjs'
import { Context } from '@deepseek-ai/cordis'
import * as llmPlugin from '@deepseek-ai/dsh-llm'
import * as sessionPlugin from '@deepseek-ai/dsh-session'
import * as systemPromptPlugin from '@deepseek-ai/dsh-system-prompt'
import * as toolsPlugin from '@deepseek-ai/dsh-tools'
import * as agentPlugin from '@deepseek-ai/dsh-agent'
import * as agentLoopPlugin from '@deepseek-ai/dsh-agent-loop'

/**
 * @param {{ before?: Array<[plugin: any, config?: any]>, after?: Array<[plugin: any, config?: any]> }} [options]
 * @returns {Promise<{ ctx: Context, dispose: () => Promise<void> }>} startup errors (a plugin's config
 *   validation included) reject here.
 */
export async function startAgentStack({ before = [], after = [] } = {}) {
  const ctx = new Context()
  const fibers = []
  // Service packages default-export their class; plugin modules export name/apply.
  const mount = ([plugin, config]) => fibers.push(ctx.plugin(plugin.default ?? plugin, config))
  for (const entry of [[llmPlugin], ...before, [sessionPlugin], [systemPromptPlugin, { persona: '' }], [toolsPlugin], [agentPlugin], [agentLoopPlugin, { agents: [] }], ...after]) mount(entry)
  for (const fiber of fibers) await fiber.await()
  return {
    ctx,
    dispose: async () => {
      for (const fiber of fibers.reverse()) await fiber.dispose()
    },
  }
}
