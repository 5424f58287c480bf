// The plugin's cost on a normal answer: a 4 MB response (2 MB reasoning, 2 MB text, 16-char deltas, no
// loop anywhere) streamed through a real rc.8 agent loop, with and without the loop-breaker mounted.
// Rounds alternate so machine noise hits both sides, time is this process's CPU time (other work on the
// machine inflates wall time, not CPU time), and the median of each side is compared. Fails when the
// plugin costs more than 15 % of the loop's own time.
import { LlmAdapter, createUserMessage } from '@deepseek-ai/dsh-llm'
import * as loopBreaker from '../lib/index.js'
import { startAgentStack } from '../tools/demo.mjs'

const SIDE_BYTES = 2 * 1024 * 1024
const DELTA = 16
const ROUNDS = 3
const TARGET = 1.15

/** Varied prose that never repeats: numbered sentences of words drawn from a wide vocabulary. */
function normalText(chars, seed) {
  const words = 'the parser reads each token and builds a tree while the checker walks it to find scope errors before code generation emits the final module with source maps for every file in the project graph so that tests can map failures back to lines quickly'.split(' ')
  let state = seed
  let text = ''
  for (let sentence = 0; text.length < chars; sentence++) {
    let line = `${sentence}. `
    for (let i = 0; i < 8 + (sentence % 7); i++) {
      state = (state * 1103515245 + 12345) % 2147483648
      line += `${words[(state >>> 16) % words.length]} `
    }
    text += `${line.trim()}.\n`
  }
  return text.slice(0, chars)
}

const REASONING = normalText(SIDE_BYTES, 3)
const TEXT = normalText(SIDE_BYTES, 5)

async function* response() {
  yield { type: 'block-start', index: 0, blockType: 'reasoning' }
  for (let i = 0; i < REASONING.length; i += DELTA) yield { type: 'reasoning-delta', index: 0, text: REASONING.slice(i, i + DELTA) }
  yield { type: 'block-end', index: 0, block: { type: 'reasoning', text: REASONING } }
  yield { type: 'block-start', index: 1, blockType: 'text' }
  for (let i = 0; i < TEXT.length; i += DELTA) yield { type: 'text-delta', index: 1, text: TEXT.slice(i, i + DELTA) }
  yield { type: 'block-end', index: 1, block: { type: 'text', text: TEXT } }
  yield { type: 'finish', reason: { kind: 'stop' } }
}

class Replay extends LlmAdapter {
  async resolveModel(provider, model) {
    return { provider, id: model, name: model, context: { contextWindow: 1_000_000 } }
  }
  stream() {
    return response()
  }
}

async function run(withPlugin) {
  const { ctx, dispose } = await startAgentStack({ after: withPlugin ? [[loopBreaker, {}]] : [] })
  ctx.llm.registerAdapter(['replay'], new Replay())
  const agent = ctx.agentLoop.create('bench', { provider: 'replay', model: 'replay' }, { cwd: process.cwd() })
  globalThis.gc?.()
  const heapBefore = process.memoryUsage().heapUsed
  const started = process.cpuUsage()
  agent.followup(createUserMessage({ content: [{ type: 'text', text: 'explain the compiler' }], source: { kind: 'user' } }))
  await agent.whenIdle()
  const cpu = process.cpuUsage(started)
  const ms = (cpu.user + cpu.system) / 1000
  const heapAfter = process.memoryUsage().heapUsed
  const message = agent.session.events.findLast((event) => event.type === 'assistant/message').data.message
  const breaks = agent.session.events.filter((event) => event.type === 'loop-breaker/break').length
  if (message.content[1].text !== TEXT || breaks !== 0) throw new Error(`the normal answer did not come through untouched (breaks: ${breaks})`)
  await dispose()
  return { ms, heapDelta: heapAfter - heapBefore }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`

await run(false) // warm-up: JIT and module caches for both paths
await run(true)
const without = []
const withPlugin = []
for (let round = 0; round < ROUNDS; round++) {
  without.push(await run(false))
  withPlugin.push(await run(true))
}
const base = median(without.map((r) => r.ms))
const guarded = median(withPlugin.map((r) => r.ms))
const ratio = guarded / base
console.log(`4 MB normal response (${(2 * SIDE_BYTES / DELTA).toLocaleString('en-US')} deltas of ${DELTA} chars) through a real rc.8 agent loop, median of ${ROUNDS} rounds:`)
console.log(`  without loop-breaker  ${base.toFixed(0).padStart(6)} ms CPU   heap +${mb(median(without.map((r) => r.heapDelta)))}`)
console.log(`  with loop-breaker     ${guarded.toFixed(0).padStart(6)} ms CPU   heap +${mb(median(withPlugin.map((r) => r.heapDelta)))}`)
console.log(`  ratio ${ratio.toFixed(3)} (target ≤ ${TARGET})   peak RSS ${mb(process.memoryUsage().rss)}`)
if (ratio > TARGET) {
  console.log(`FAIL: the plugin costs more than ${Math.round((TARGET - 1) * 100)} % on a normal response`)
  process.exit(1)
}
