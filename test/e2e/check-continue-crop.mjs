/**
 * Checks the "continue-crop" flow's session, written by the real `dsh` CLI:
 * - `tools/analyze-session.mjs --json` reads it without errors and reports exactly one continuation and
 *   one crop, both on the call that wrote the cut start of the answer;
 * - the log holds the whole answer: the cut start and the continued rest join into the script's text;
 * - the session still resumes with rc.8 (its own `dsh-session-persistence-jsonl`, this package's built
 *   loop-breaker with `crop: true`, the code that was packed; the installed copy would load the
 *   profile's own `dsh-llm`, whose agent-loop request marks this stack's loop does not set), the crop
 *   record is read back, and the resumed request leaves the same repeated steps out.
 * Usage: `node check-continue-crop.mjs <analysis.json> <sessions root> <session id> <cwd>`;
 * prints what it checked, exits 1 with the reasons when anything disagrees.
 */
import { readFileSync } from 'node:fs'
import { LlmAdapter, createUserMessage } from '@deepseek-ai/dsh-llm'
import { startAgentStack } from '../../dev/agent-stack.mjs'
import { ANSWER_REST, ANSWER_START, PROBE_TOOL } from './continue-crop-script.mjs'

const [analysisFile, sessionsRoot, sessionId, cwd] = process.argv.slice(2)
if (cwd === undefined) {
  process.stderr.write('usage: check-continue-crop.mjs <analysis.json> <sessions root> <session id> <cwd>\n')
  process.exit(2)
}
const problems = []
const check = (ok, what) => {
  process.stdout.write(`${ok ? 'ok' : 'FAILED'}: ${what}\n`)
  if (!ok) problems.push(what)
}

const analysis = JSON.parse(readFileSync(analysisFile, 'utf8'))
check(analysis.summary.errors.length === 0, `the analyzer read the session without errors ${JSON.stringify(analysis.summary.errors)}`)
check(analysis.summary.continuations === 1 && analysis.summary.crops === 1,
  `one continuation and one crop (analyzer: ${analysis.summary.continuations} and ${analysis.summary.crops})`)
const calls = analysis.files[0]?.calls ?? []
const marked = calls.filter((call) => call.continuation !== null || call.crop !== null)
check(marked.length === 1 && marked[0].continuation?.action === 'continue' && marked[0].crop?.steps === 2,
  `both on one call, the one the length limit cut: ${JSON.stringify(marked.map(({ turn, step, continuation, crop }) => ({ turn, step, continuation, crop })))}`)

process.chdir(cwd)
const persistence = await import('@deepseek-ai/dsh-session-persistence-jsonl')
const loopBreaker = await import('../../lib/index.js')
const requests = []
class Resumed extends LlmAdapter {
  resolveModel(provider, model) {
    return Promise.resolve({ provider, id: model, name: model, context: { contextWindow: 128_000 } })
  }
  async *stream(options) {
    requests.push(options)
    const text = options.purpose === undefined ? 'Resumed.' : 'title'
    yield { type: 'block-start', index: 0, blockType: 'text' }
    yield { type: 'text-delta', index: 0, text }
    yield { type: 'block-end', index: 0, block: { type: 'text', text } }
    yield { type: 'finish', reason: { kind: 'stop' } }
  }
}
const { ctx, dispose } = await startAgentStack({ after: [[persistence, { root: sessionsRoot }], [loopBreaker, { crop: true }]] })
try {
  ctx.llm.registerAdapter(['e2e-continue-crop'], new Resumed())
  const { agent } = await ctx.agentLoop.resume(ctx, { resumeSessionId: sessionId, agentOptions: { provider: 'e2e-continue-crop', model: 'e2e-continue-crop' } })
  const records = agent.session.events.filter((event) => event.type === 'hook/result' && event.data.handlerId === 'loop-breaker')
  check(records.some((event) => event.data.point === 'loop-breaker/crop') && records.some((event) => event.data.point === 'loop-breaker/continue'),
    `the resumed session holds the crop and continue records (${records.map((event) => event.data.point).join(', ')})`)
  const texts = agent.session.deriveMessages().filter((message) => message.role === 'assistant')
    .flatMap((message) => message.content.filter((block) => block.type === 'text').map((block) => block.text))
  check(texts.join('') === ANSWER_START + ANSWER_REST, `the log joins the cut start and the continued rest into the whole answer: ${JSON.stringify(texts.join(''))}`)
  agent.followup(createUserMessage({ content: [{ type: 'text', text: 'Thanks, go on.' }], source: { kind: 'user' } }))
  await agent.whenIdle()
  const request = requests.find((candidate) => candidate.purpose === undefined)
  const probes = (messages) => messages.filter((message) => message.role === 'assistant' && message.content.some((block) => block.name === PROBE_TOOL)).length
  check(request !== undefined && probes(request.messages) === 1 && probes(agent.session.deriveMessages()) === 3,
    `the resumed request keeps 1 of the 3 identical steps the log holds (request: ${request === undefined ? 'none' : probes(request.messages)})`)
} finally {
  await dispose()
}
if (problems.length > 0) {
  process.stderr.write(`check-continue-crop: ${problems.length} problem(s)\n`)
  process.exit(1)
}
