/**
 * A scripted model for the e2e run of the real `dsh` CLI: a Cordis plugin that registers an `LlmAdapter`
 * under provider `e2e-scripted`, model `e2e-loop`, inserted into the headless profile by
 * `test/e2e/scripted-model.patch.yml`. It makes no network call.
 *
 * What it answers, decided from the request itself rather than from a call counter, so an extra or
 * missing call shows up as a wrong answer instead of a shifted script:
 * - a request whose last message is the `loop-breaker` plugin's notice: a normal, short answer
 *   (`NORMAL_ANSWER`), which the headless runner must print;
 * - any other conversation request (the user's task): an endless phrase-pool loop, a few sentences
 *   reshuffled for ever, which only the live plugin can stop (the e2e wraps the run in a timeout);
 * - an auxiliary call (`purpose`: session title, compaction): a short legal answer.
 */
import { LlmAdapter } from '@deepseek-ai/dsh-llm'

export const name = 'e2e-scripted-model'
export const inject = ['llm']

export const PROVIDER = 'e2e-scripted'
export const MODEL = 'e2e-loop'
export const NORMAL_ANSWER = 'Done: the build script now runs the tests before packing.'

// Sentences of a plan the model keeps restating in a new order: the shape of a phrase-pool loop
// (a small vocabulary reshuffled), not an exact cycle, so no periodic rule can claim it first.
const POOL = [
  'Let me check the build script once more before changing it.\n',
  'The tests should run before the package is packed.\n',
  'I will open package.json and look at the scripts section again.\n',
  'First I need to confirm which command packs the package.\n',
  'Then I can add the test step in front of it.\n',
]

/** mulberry32: a seeded generator, so every run streams the same loop and the e2e is reproducible. */
function seeded(seed) {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve))

async function* answer(text) {
  yield { type: 'block-start', index: 0, blockType: 'text' }
  yield { type: 'text-delta', index: 0, text }
  yield { type: 'block-end', index: 0, block: { type: 'text', text } }
  yield { type: 'usage', usage: { inputTokens: 100, outputTokens: 20 } }
  yield { type: 'finish', reason: { kind: 'stop' } }
}

/** The endless loop: one pool sentence per delta, never the same sentence twice in a row. */
async function* phrasePoolLoop(signal) {
  const random = seeded(20260829)
  let previous = -1
  let text = ''
  yield { type: 'block-start', index: 0, blockType: 'text' }
  for (;;) {
    await tick()
    if (signal?.aborted) {
      yield { type: 'block-end', index: 0, block: { type: 'text', text } }
      yield { type: 'finish', reason: { kind: 'aborted', failure: { message: 'aborted by the caller', code: 'ABORTED' } } }
      return
    }
    let next = Math.floor(random() * (POOL.length - 1))
    if (next >= previous && previous >= 0) next++
    previous = next
    text += POOL[next]
    yield { type: 'text-delta', index: 0, text: POOL[next] }
  }
}

const isLoopBreakerNotice = (message) =>
  message?.role === 'user' && message.source?.kind === 'plugin' && message.source.plugin === 'loop-breaker'

class ScriptedModel extends LlmAdapter {
  resolveModel(provider, model) {
    return Promise.resolve({ provider, id: model, name: model, context: { contextWindow: 128_000 } })
  }
  listModels() {
    return Promise.resolve([{ id: MODEL, name: MODEL }])
  }
  stream(options) {
    if (options.purpose !== undefined) return answer('Build script test step')
    if (isLoopBreakerNotice(options.messages.at(-1))) return answer(NORMAL_ANSWER)
    return phrasePoolLoop(options.signal)
  }
}

export function apply(ctx) {
  ctx.llm.registerAdapter([PROVIDER], new ScriptedModel())
}
