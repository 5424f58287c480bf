// The plugin's cost on a normal answer: a 4 MB response (2 MB reasoning, then 2 MB text, in 16-char
// deltas, no loop anywhere) streamed through a real rc.8 agent loop (`startAgentStack` of
// tools/agent-stack.mjs: dsh-llm, dsh-session, dsh-system-prompt, dsh-tools, dsh-agent, dsh-agent-loop), with
// and without the loop-breaker mounted, on two paths:
//   - deepseek: the path a user runs. The real `@deepseek-ai/dsh-llm-deepseek` adapter reads the answer
//     as DeepSeek's SSE (`data: {chat.completion.chunk}` per delta, `[DONE]` last) over HTTP from a
//     127.0.0.1 server. The server runs in a child process, so its work is not in the figures.
//   - in-process: an adapter that yields prebuilt chunks, so the loop's own per-chunk cost is as small
//     as it gets and the plugin's share as large as it gets: the worst case, reported, not the target.
// Measured per run: this process's CPU time (user + system) from the user message until the agent is
// idle (other work on the machine inflates wall time, not CPU time); the heap still retained after a
// full GC with the agent and its session alive (what the answer leaves behind); peak RSS of the process
// at the end. Rounds alternate in ABBA order (without, with, with, without, ...) so machine noise and
// drift hit both sides; after one warm-up run per side, the median of ROUNDS runs per side is compared. The target (≤ 1.15) applies to the deepseek
// path; the in-process figure is printed against it too. A missed target sets exit code 3 (see run.mjs).
import { spawn } from 'node:child_process'
import { createServer } from 'node:http'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const SIDE_BYTES = 2 * 1024 * 1024
const DELTA = 16
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const TARGET = 1.15
const MODEL = 'deepseek-bench'

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

if (process.argv[2] === 'serve') serveSse()
else await main()

/** The child: answers every POST /chat/completions with the answer as DeepSeek's SSE, prints its port. */
function serveSse() {
  const event = (delta, finishReason = null) => `data: ${JSON.stringify({
    id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 0, model: MODEL,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  })}\n\n`
  const parts = []
  for (let i = 0; i < REASONING.length; i += DELTA) parts.push(event({ reasoning_content: REASONING.slice(i, i + DELTA) }))
  for (let i = 0; i < TEXT.length; i += DELTA) parts.push(event({ content: TEXT.slice(i, i + DELTA) }))
  parts.push(event({}, 'stop'), 'data: [DONE]\n\n')
  const body = Buffer.from(parts.join(''))
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      res.end(body)
    })
  })
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`))
}

async function main() {
  // DSH's agent loop uses Promise.withResolvers; agent-stack.mjs polyfills it on Node 20.
  const { LlmAdapter, createUserMessage } = await import('@deepseek-ai/dsh-llm')
  const deepSeekPlugin = await import('@deepseek-ai/dsh-llm-deepseek')
  const loopBreaker = await import('../lib/index.js')
  const { startAgentStack } = await import('../tools/agent-stack.mjs')

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

  const server = spawn(process.execPath, [fileURLToPath(import.meta.url), 'serve'], { stdio: ['ignore', 'pipe', 'inherit'] })
  const port = await new Promise((resolve, reject) => {
    server.stdout.once('data', (data) => resolve(Number(String(data).trim())))
    server.once('exit', (code) => reject(new Error(`the SSE server exited (${code})`)))
  })
  process.env.DSH_LOOP_BREAKER_BENCH_KEY = 'sk-bench-dummy'
  // The adapter persists an anonymous user id under DSH_HOME; keep it out of the real home.
  process.env.DSH_HOME ??= mkdtempSync(join(tmpdir(), 'dsh-home-'))
  const deepSeek = [deepSeekPlugin, {
    baseURL: `http://127.0.0.1:${port}`,
    apiKeyEnv: 'DSH_LOOP_BREAKER_BENCH_KEY',
    models: [{ id: MODEL, contextWindow: 1_000_000 }],
  }]

  async function run(path, withPlugin) {
    const plugins = [...(path === 'deepseek' ? [deepSeek] : []), ...(withPlugin ? [[loopBreaker, {}]] : [])]
    const { ctx, dispose } = await startAgentStack({ after: plugins })
    if (path === 'in-process') ctx.llm.registerAdapter(['replay'], new Replay())
    const model = path === 'deepseek' ? { provider: 'deepseek-official', model: MODEL } : { provider: 'replay', model: 'replay' }
    const agent = ctx.agentLoop.create('bench', model, { cwd: process.cwd() })
    globalThis.gc?.()
    const heapBefore = process.memoryUsage().heapUsed
    const started = process.cpuUsage()
    agent.followup(createUserMessage({ content: [{ type: 'text', text: 'explain the compiler' }], source: { kind: 'user' } }))
    await agent.whenIdle()
    const cpu = process.cpuUsage(started)
    globalThis.gc?.()
    const retained = process.memoryUsage().heapUsed - heapBefore
    const message = agent.session.events.findLast((event) => event.type === 'assistant/message')?.data.message
    const text = message?.content.find((block) => block.type === 'text')?.text
    const breaks = agent.session.events.filter((event) => event.type.startsWith('loop-breaker/')).length
    if (text !== TEXT || breaks !== 0) throw new Error(`${path}: the normal answer did not come through untouched (loop-breaker events: ${breaks})`)
    await dispose()
    return { seconds: (cpu.user + cpu.system) / 1e6, retained }
  }

  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
  const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
  const ratios = {}
  try {
    console.log(`4 MB normal response (${(2 * SIDE_BYTES / DELTA).toLocaleString('en-US')} deltas of ${DELTA} chars) through a real rc.8 agent loop; median of ${ROUNDS} alternating rounds:`)
    for (const path of ['deepseek', 'in-process']) {
      await run(path, false) // warm-up: JIT and module caches for both sides
      await run(path, true)
      const without = []
      const withPlugin = []
      for (let round = 0; round < ROUNDS; round++) {
        // ABBA order: a drift over the process's life (heap growth, JIT state) hits both sides alike.
        const order = round % 2 === 0 ? [false, true] : [true, false]
        for (const side of order) (side ? withPlugin : without).push(await run(path, side))
      }
      const base = median(without.map((r) => r.seconds))
      const guarded = median(withPlugin.map((r) => r.seconds))
      ratios[path] = guarded / base
      const label = path === 'deepseek' ? 'deepseek adapter, SSE over 127.0.0.1 (the user\'s path)' : 'in-process scripted adapter (worst case)'
      console.log(`  ${label}:`)
      console.log(`    without loop-breaker  ${base.toFixed(2).padStart(6)} s CPU   heap retained ${mb(median(without.map((r) => r.retained)))}`)
      console.log(`    with loop-breaker     ${guarded.toFixed(2).padStart(6)} s CPU   heap retained ${mb(median(withPlugin.map((r) => r.retained)))}`)
      console.log(`    runs (s CPU): without ${without.map((r) => r.seconds.toFixed(2)).join(', ')}; with ${withPlugin.map((r) => r.seconds.toFixed(2)).join(', ')}`)
      console.log(`    ratio ${ratios[path].toFixed(3)} (target ≤ ${TARGET}: ${ratios[path] <= TARGET ? 'met' : 'missed'})`)
    }
    console.log(`  peak RSS of this process ${mb(process.resourceUsage().maxRSS * 1024)}`)
  } finally {
    server.kill()
  }
  if (ratios.deepseek > TARGET) {
    console.log(`MISSED: on the user's path the plugin costs more than ${Math.round((TARGET - 1) * 100)} % on a normal response`)
    process.exitCode = 3
  }
}
