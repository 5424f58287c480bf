/**
 * A scripted model for the e2e run of the real `dsh` CLI: a Cordis plugin that registers an `LlmAdapter`
 * under provider `e2e-scripted`, inserted into the headless profile by the overlay patch `run.sh` writes.
 * The model id names the loop it falls into (`LOOPS` in script.mjs: `e2e-phrase-pool`, `e2e-counter-loop`,
 * `e2e-loop-every-call`), so each flow picks its loop in its patch as a user picks a model. It makes no
 * network call.
 *
 * What it answers is decided from the request itself rather than from a call counter, so an extra or
 * missing call shows up as a wrong answer instead of a shifted script:
 * - a conversation request whose latest user message is the follow-up prompt (`FOLLOW_UP_TASK`, sent
 *   through the web API to continue a cut session): `FOLLOW_UP_ANSWER`;
 * - a conversation request that carries the `loop-breaker` plugin's notice (a user-role message whose
 *   source is the plugin): the normal answer (`NORMAL_ANSWER`), which the headless runner must print;
 *   except for a model in `LOOPS_ON_EVERY_CALL`, which loops again whatever the notice says;
 * - any other conversation request (the user's task): the model's endless loop, which only the live
 *   plugin can stop (`run.sh` bounds the run with a timeout);
 * - an auxiliary call (`purpose`: session title, compaction): a short legal answer.
 * When `E2E_MODEL_REQUEST_LOG` names a file, every request appends one JSON line to it: what the model
 * was answered with and the loop-breaker notices it read, so the e2e can check what the model received.
 * When `E2E_MODEL_STREAM_LOG` names a file, every loop appends one JSON line once it stops being read:
 * the characters it streamed (`{ chars }`), so the e2e can check how much of a loop got through.
 */
import { appendFileSync } from 'node:fs'
import { LlmAdapter } from '@deepseek-ai/dsh-llm'
import { FOLLOW_UP_ANSWER, FOLLOW_UP_TASK, LOOPS, LOOPS_ON_EVERY_CALL, NORMAL_ANSWER, TITLE } from './script.mjs'

export const name = 'e2e-scripted-model'
export const inject = ['llm']

const PROVIDER = 'e2e-scripted'

const tick = () => new Promise((resolve) => setImmediate(resolve))

async function* answer(text) {
  yield { type: 'block-start', index: 0, blockType: 'text' }
  yield { type: 'text-delta', index: 0, text }
  yield { type: 'block-end', index: 0, block: { type: 'text', text } }
  yield { type: 'usage', usage: { inputTokens: 100, outputTokens: 20 } }
  yield { type: 'finish', reason: { kind: 'stop' } }
}

/** One sentence per delta, a macrotask apart like network reads, until the consumer stops pulling. */
async function* loop(sentences, signal) {
  let text = ''
  try {
    yield { type: 'block-start', index: 0, blockType: 'text' }
    for (const sentence of sentences) {
      await tick()
      if (signal?.aborted) {
        yield { type: 'block-end', index: 0, block: { type: 'text', text } }
        yield { type: 'finish', reason: { kind: 'aborted', failure: { message: 'aborted by the caller', code: 'ABORTED' } } }
        return
      }
      text += sentence
      yield { type: 'text-delta', index: 0, text: sentence }
    }
  } finally {
    // Runs when the consumer returns the iterator (the plugin's cut closes the request this way).
    if (process.env.E2E_MODEL_STREAM_LOG) appendFileSync(process.env.E2E_MODEL_STREAM_LOG, JSON.stringify({ chars: text.length }) + '\n')
  }
}

const isLoopBreakerNotice = (message) =>
  message?.role === 'user' && message.source?.kind === 'plugin' && message.source.plugin === 'loop-breaker'

const textOf = (message) => message.content.filter((part) => part.type === 'text').map((part) => part.text).join('')

const latestUserText = (messages) => {
  const latest = messages.findLast((message) => message.role === 'user' && message.source?.kind === 'user')
  return latest === undefined ? undefined : textOf(latest)
}

function logRequest(answer, options) {
  const file = process.env.E2E_MODEL_REQUEST_LOG
  if (!file) return
  const notices = options.messages.filter(isLoopBreakerNotice).map(textOf)
  appendFileSync(file, JSON.stringify({ answer, purpose: options.purpose ?? null, notices }) + '\n')
}

class ScriptedModel extends LlmAdapter {
  resolveModel(provider, model) {
    if (!Object.hasOwn(LOOPS, model)) return Promise.reject(new Error(`e2e-scripted has no model ${model}; it has ${Object.keys(LOOPS).join(', ')}`))
    return Promise.resolve({ provider, id: model, name: model, context: { contextWindow: 128_000 } })
  }
  stream(options) {
    const [kind, stream] = this.choose(options)
    logRequest(kind, options)
    return stream
  }
  choose(options) {
    if (options.purpose !== undefined) return ['title', answer(TITLE)]
    if (latestUserText(options.messages) === FOLLOW_UP_TASK) return ['follow-up', answer(FOLLOW_UP_ANSWER)]
    if (options.messages.some(isLoopBreakerNotice) && !LOOPS_ON_EVERY_CALL.has(options.model)) return ['normal', answer(NORMAL_ANSWER)]
    return ['loop', loop(LOOPS[options.model](), options.signal)]
  }
}

export function apply(ctx) {
  ctx.llm.registerAdapter([PROVIDER], new ScriptedModel())
}
