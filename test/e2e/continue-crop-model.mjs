/**
 * The scripted model of the e2e "continue-crop" flow (provider `e2e-continue-crop`, no network): it
 * repeats one identical step until the loop-breaker speaks, then writes a long answer the output length
 * limit cuts, and finishes it once told to continue. Like `scripted-model.mjs` it decides from the
 * request itself, so an extra or missing call shows up as a wrong answer:
 * - a request carrying the plugin's continuation notice: the rest of the answer (`ANSWER_REST`), `stop`;
 * - a request carrying any other plugin notice (the step judge's, after three identical steps): the
 *   start of the answer (`ANSWER_START`), finished with `max-tokens`;
 * - any other conversation request: the same call of a tool no profile has (`e2e_probe`), so every step
 *   is identical in its call, its arguments and its result (DSH's `UNKNOWN_TOOL` failure);
 * - an auxiliary call (`purpose`: session title, compaction): a short legal answer.
 */
import { LlmAdapter } from '@deepseek-ai/dsh-llm'
import { ANSWER_REST, ANSWER_START, PROBE_TOOL, TITLE } from './continue-crop-script.mjs'

export const name = 'e2e-continue-crop-model'
export const inject = ['llm']

async function* blocks(block, finish) {
  yield { type: 'block-start', index: 0, blockType: block.type }
  if (block.type === 'tool-call') yield { type: 'tool-call-delta', index: 0, id: block.id, name: block.name, argumentsDelta: block.arguments }
  else yield { type: 'text-delta', index: 0, text: block.text }
  yield { type: 'block-end', index: 0, block }
  yield { type: 'usage', usage: { inputTokens: 100, outputTokens: 20 } }
  yield { type: 'finish', reason: { kind: finish } }
}

const notices = (messages) => messages.filter((message) =>
  message?.role === 'user' && message.source?.kind === 'plugin' && message.source.plugin === 'loop-breaker')

class ContinueCropModel extends LlmAdapter {
  resolveModel(provider, model) {
    return Promise.resolve({ provider, id: model, name: model, context: { contextWindow: 128_000 } })
  }
  stream(options) {
    if (options.purpose !== undefined) return blocks({ type: 'text', text: TITLE }, 'stop')
    const spoken = notices(options.messages)
    if (spoken.some((notice) => notice.source.summary.startsWith('loop-breaker continue'))) return blocks({ type: 'text', text: ANSWER_REST }, 'stop')
    if (spoken.length > 0) return blocks({ type: 'text', text: ANSWER_START }, 'max-tokens')
    const step = options.messages.filter((message) => message.role === 'assistant').length
    return blocks({ type: 'tool-call', id: `probe-${step}`, name: PROBE_TOOL, arguments: JSON.stringify({ path: 'package.json' }) }, 'tool-calls')
  }
}

export function apply(ctx) {
  ctx.llm.registerAdapter(['e2e-continue-crop'], new ContinueCropModel())
}
