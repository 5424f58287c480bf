#!/usr/bin/env node
// `npm run demo`: the loop-breaker inside a real in-process DSH agent loop (the rc.8 packages, DSH's own
// stream-grammar checker mounted), driven by a scripted model that falls into the loops seen in the
// field. Every line of the transcript is read back from the session log the agent loop wrote: the raw
// chunks, the cut, the trimmed message the model reads next, the notice, the continuation, the events.
// Offline, a few seconds. Colour only on a terminal (and never with NO_COLOR).
import { LlmAdapter, createUserMessage } from '@deepseek-ai/dsh-llm'
import * as llmInvariant from '@deepseek-ai/dsh-llm/invariant'
import * as invariantsPlugin from '@deepseek-ai/dsh-invariants'
import * as sessionInvariant from '@deepseek-ai/dsh-session/invariant'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { SettingsProvider, settingsNamespace } from '@deepseek-ai/dsh-settings'
import Schema from '@deepseek-ai/schemastery'
import * as loopBreaker from '../lib/index.js'
import { readJournalRecord } from '../lib/session.js'
import * as loopBreakerInvariant from '../lib/invariant.js'
import { startAgentStack } from './agent-stack.mjs'
import { pathToFileURL } from 'node:url'

// ── terminal ─────────────────────────────────────────────────────────────────────────────────────────
const colour = process.stdout.isTTY && !process.env.NO_COLOR
const paint = (code) => (text) => colour ? `\x1b[${code}m${text}\x1b[0m` : String(text)
const bold = paint('1'), dim = paint('2'), red = paint('31'), green = paint('32'), yellow = paint('33'), cyan = paint('36'), magenta = paint('35')
const width = Math.min(process.stdout.columns || 100, 110)
const out = (line = '') => process.stdout.write(`${line}\n`)
const number = (n) => n.toLocaleString('en-US')
const WIDE = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/
/** Terminal columns a string takes (CJK characters take two). */
const columns = (text) => [...text].reduce((sum, char) => sum + (WIDE.test(char) ? 2 : 1), 0)

/** The longest start (or, with `fromEnd`, end) of `text` that fits in `room` columns. */
function fit(text, room, fromEnd = false) {
  const chars = [...text]
  if (fromEnd) chars.reverse()
  let used = 0
  let taken = 0
  while (taken < chars.length && used + (WIDE.test(chars[taken]) ? 2 : 1) <= room) used += WIDE.test(chars[taken++]) ? 2 : 1
  const kept = chars.slice(0, taken)
  return (fromEnd ? kept.reverse() : kept).join('')
}

/** One line of at most `max` columns, newlines shown as ⏎, the middle elided when too long. */
function clip(text, max) {
  const flat = text.replace(/\n/g, '⏎')
  if (columns(flat) <= max) return flat
  const head = Math.floor((max - 3) * 0.45)
  return `${fit(flat, head)} … ${fit(flat, max - 3 - head, true)}`
}

/** Wrap prose to the terminal, indented. */
function wrap(text, indent) {
  const room = width - indent.length
  const lines = []
  for (const paragraph of text.split('\n')) {
    let line = ''
    // CJK has no spaces: break after any character; other text at spaces.
    for (const piece of paragraph.match(/[\u3000-\u9fff\uff00-\uffef]\s*|[^\s\u3000-\u9fff\uff00-\uffef]+\s*/g) ?? ['']) {
      if (columns(line + piece) > room && line !== '') {
        lines.push(line.trimEnd())
        line = ''
      }
      line += piece
    }
    lines.push(line.trimEnd())
  }
  return lines.map((line) => indent + line).join('\n')
}

// ── the scripted model ───────────────────────────────────────────────────────────────────────────────
/** Deltas of 2–6 characters, the grain a provider streams tokens at. */
function* tokens(text) {
  let i = 0
  let size = 3
  while (i < text.length) {
    size = (size * 5 + 3) % 5 + 2
    yield text.slice(i, i + size)
    i += size
  }
}

/** A pseudo-random but reproducible pick, so the pool never settles into a period. */
function picker(seed) {
  let state = seed
  return (items) => {
    state = (state * 1103515245 + 12345) % 2147483648
    // The low bits of this generator repeat with a short period; the high ones do not.
    return items[(state >>> 16) % items.length]
  }
}

/** An answer, possibly endless: each block is text (or a generator of text) streamed as tokens. */
function answer(blocks, stats) {
  return (async function* () {
    let streamed = 0
    let finished = false
    try {
      for (const [index, block] of blocks.entries()) {
        yield { type: 'block-start', index, blockType: block.type }
        if (block.type === 'tool-call') {
          yield { type: 'tool-call-delta', index, id: block.id, name: block.name, argumentsDelta: '' }
          for (const delta of tokens(block.arguments)) {
            streamed += delta.length
            yield { type: 'tool-call-delta', index, id: block.id, argumentsDelta: delta }
          }
          yield { type: 'block-end', index, block: { type: 'tool-call', id: block.id, name: block.name, arguments: block.arguments } }
          continue
        }
        let text = ''
        const source = typeof block.text === 'string' ? [block.text] : block.text
        for (const piece of source) {
          for (const delta of tokens(piece)) {
            text += delta
            streamed += delta.length
            await new Promise((resolve) => setImmediate(resolve))
            yield { type: block.type === 'text' ? 'text-delta' : 'reasoning-delta', index, text: delta }
          }
        }
        yield { type: 'block-end', index, block: { type: block.type, text } }
      }
      yield { type: 'usage', usage: { inputTokens: 1200, outputTokens: Math.round(streamed / 4) } }
      yield { type: 'finish', reason: { kind: blocks.some((block) => block.type === 'tool-call') ? 'tool-calls' : 'stop' } }
      finished = true
    } finally {
      stats.push({ streamed, closedEarly: !finished })
    }
  })()
}

/** Endless: the model would go on for ever (until max tokens, hours later). */
function* forever(prefix, next) {
  yield prefix
  for (;;) yield next()
}

class ScriptedModel extends LlmAdapter {
  constructor(script) {
    super()
    this.script = script
    this.calls = 0
    this.stats = []
  }
  async resolveModel(provider, model) {
    return { provider, id: model, name: model, context: { contextWindow: 128_000 } }
  }
  stream() {
    return answer(this.script(this.calls++), this.stats)
  }
}

// ── the scenarios ────────────────────────────────────────────────────────────────────────────────────
const POOL = ['好。\n', '执行。\n', 'OK.\n', 'Writing.\n', 'Let me write.\n', 'Go.\n', 'Output.\n', 'Now.\n']

const scenarios = [
  {
    title: 'Phrase-pool bleed in reasoning',
    caption: 'The model plans well, then its reasoning dissolves into a handful of short phrases reshuffled for ever (the seed\'s "好。执行。OK. Writing. Go." loop). No tool is ever called, so no tool-based guard can see it.',
    locale: undefined,
    config: {},
    task: '给 report 命令加一个 --json 选项，输出和表格相同的字段。',
    script: (call) => {
      const pick = picker(11)
      if (call === 0) {
        return [{
          type: 'reasoning',
          text: forever(
            'The report command lives in src/cli/report.ts. It builds rows with collectRows() and prints them with renderTable(). ' +
            'For --json I should reuse collectRows(), serialise the same fields, and skip renderTable(). I need to register the flag in the argument parser, ' +
            'then branch before rendering. Tests: add one in test/cli/report.test.ts that parses the JSON output.\n\nLet me write it.\n',
            () => pick(POOL),
          ),
        }]
      }
      if (call === 1) {
        return [
          { type: 'reasoning', text: 'Continue from the plan: register --json, branch before renderTable().' },
          { type: 'tool-call', id: 'call-edit-1', name: 'edit_file', arguments: JSON.stringify({ path: 'src/cli/report.ts', change: 'add --json: print JSON.stringify(collectRows(args), null, 2) instead of renderTable()' }) },
        ]
      }
      return [{ type: 'text', text: '已完成：report 命令新增 --json 选项，复用 collectRows() 输出与表格相同的字段；并在 test/cli/report.test.ts 中加了解析 JSON 输出的测试。' }]
    },
  },
  {
    title: 'A visible answer that repeats itself',
    caption: 'The reply starts as a good summary, then one sentence comes back again and again. The user would watch it scroll; the plugin cuts it after a few copies and the model finishes properly.',
    locale: 'en',
    config: {},
    task: 'Why did CI fail on main?',
    script: (call) => {
      if (call === 0) {
        return [{
          type: 'text',
          text: forever(
            'CI failed in 2 of 7 jobs:\n\n1. `test:unit` — `report.test.ts` cannot find `fixtures/rows.json` (deleted in a1b2c3d).\n2. `test:e2e` — same missing fixture, through the CLI.\n\n',
            () => 'The root cause is the missing fixture file; once it is restored, the remaining jobs will pass. ',
          ),
        }]
      }
      return [{ type: 'text', text: 'Restore `fixtures/rows.json` from a1b2c3d^ (or regenerate it with `npm run fixtures`); both failing jobs read it and nothing else failed.' }]
    },
  },
  {
    title: 'A loop that persists after correction → cancel (and resume)',
    caption: 'Reminded, the model loops again; told to re-plan, it loops a third time. The plugin cancels the turn (cause: repetition-loop). With resumeAfterBreak it then waits for the agent to be idle and follows up with a notice, and the model recovers.',
    locale: undefined,
    config: { resumeAfterBreak: true },
    task: '写一份把 users 表从 MySQL 迁移到 Postgres 的方案。',
    script: (call) => {
      const loops = [
        () => '先备份数据，再迁移表结构，然后校验数据一致性。',
        () => '第一步：导出 users 表；第二步：导入 Postgres；第三步：核对行数。',
        () => '我现在开始写方案。',
      ]
      if (call < 3) {
        return [{ type: call === 1 ? 'text' : 'reasoning', text: forever(call === 0 ? '迁移方案的要点：' : '', loops[call]) }]
      }
      return [{
        type: 'text',
        text: '迁移方案（已完成部分：确认了 users 表结构与数据量）：\n1. 用 pgloader 做一次全量迁移到影子库，类型映射 DATETIME→timestamptz、TINYINT(1)→boolean；\n2. 用 binlog 增量同步追平，双写一周；\n3. 按主键分段比对校验和，通过后切读、再切写；\n4. 回滚预案：保留 MySQL 只读副本 30 天。',
      }]
    },
  },
]

// ── the host ─────────────────────────────────────────────────────────────────────────────────────────
class FixedLocale extends SettingsProvider {
  writable = false
  static preference = 'en'
  async load() { return { locale: { preference: FixedLocale.preference } } }
  async persist() {}
}
/** What DSH's locale plugin does on a real host: register the `locale` settings section. */
const localeSection = {
  name: 'locale-section',
  inject: ['settings'],
  apply(ctx) {
    ctx.settings.register(settingsNamespace('locale'), Schema.object({ preference: Schema.string() }))
  },
}
const EDIT_FILE = defineTool({
  name: 'edit_file',
  description: 'Apply a described change to a file.',
  parameters: { path: { type: 'string', required: true }, change: { type: 'string', required: true } },
  output: { schema: { type: 'string' }, render: (_args, value) => [{ type: 'text', text: value }] },
  async execute(args) {
    return `patched ${args.path} (+14 −2)`
  },
})

/**
 * The rc.8 agent-loop stack in a fresh Cordis context, mounted in DSH's documented order, with `before`
 * plugins right after dsh-llm and `after` plugins after the agent loop. Shared with bench/plugin.bench.mjs.
 */
/** Turns run and invariant violations seen, over every scenario: the demo's summary is derived from them. */
let turnsChecked = 0
const violations = []

async function runScenario(scenario) {
  if (scenario.locale) FixedLocale.preference = scenario.locale
  const { ctx, dispose } = await startAgentStack({
    before: [[invariantsPlugin], [llmInvariant], [sessionInvariant], [loopBreakerInvariant], ...(scenario.locale ? [[FixedLocale], [localeSection]] : [])],
    after: [[loopBreaker, scenario.config]],
  })
  // What the user sees at DSH's default log level (an exporter with no level of its own).
  const lines = []
  ctx.logger.exporter({ export: (message) => message.name === 'loop-breaker' && lines.push(message) })
  ctx.tools.register(EDIT_FILE)
  const model = new ScriptedModel(scenario.script)
  ctx.llm.registerAdapter(['scripted'], model)
  const agent = ctx.agentLoop.create('demo', { provider: 'scripted', model: 'deepseek-v4-demo' }, { cwd: process.cwd() })
  const started = performance.now()
  agent.followup(createUserMessage({ content: [{ type: 'text', text: scenario.task }], source: { kind: 'user' } }))
  do {
    await agent.whenIdle()
    await new Promise((resolve) => setImmediate(resolve))
  } while (agent.status !== 'idle')
  const elapsed = performance.now() - started
  const result = { events: agent.session.events, stats: model.stats, lines, elapsed }
  // An invariant that throws ends the turn as failed with the InvariantError's message.
  for (const event of result.events) {
    if (event.type !== 'turn/end') continue
    turnsChecked++
    const message = event.data.reason?.error?.message
    if (typeof message === 'string' && message.includes('invariant violated')) violations.push(`${scenario.title}, turn ${event.data.turn}: ${message}`)
  }
  await dispose()
  return result
}

// ── the transcript, read back from the session log ─────────────────────────────────────────────────
function printTranscript(scenario, { events, stats, lines, elapsed }) {
  const chunksByStep = new Map()
  let call = 0
  const label = (text) => dim(text.padEnd(9))
  for (const event of events) {
    // The plugin's records travel as DSH `hook/result` events; read them under their record name.
    const record = readJournalRecord(event.type, event.data)
    const data = record?.data ?? event.data
    switch (record?.name ?? event.type) {
      case 'user/message': {
        const text = data.content.map?.((part) => part.text ?? '').join('') ?? String(data.content)
        if (data.source?.plugin === 'loop-breaker') {
          out(`${label('notice')}${magenta('▶')} ${dim(`to the model, ${text.length} chars:`)}`)
          out(magenta(wrap(text, ' '.repeat(11))))
        } else if (data.source?.kind === 'user') out(`${label('user')}${bold(text)}`)
        break
      }
      case 'step/start':
        chunksByStep.set(data.step, { raw: { reasoning: '', text: '', tool: '' } })
        break
      case 'assistant/chunk': {
        const raw = chunksByStep.get(data.step).raw
        const chunk = data.chunk
        if (chunk.type === 'reasoning-delta') raw.reasoning += chunk.text
        else if (chunk.type === 'text-delta') raw.text += chunk.text
        else if (chunk.type === 'tool-call-delta') raw.tool += chunk.argumentsDelta
        break
      }
      case 'loop-breaker/break': {
        const stat = stats[call]
        out(`${label('')}${red('✂ cut')} ${bold(data.rule)} in ${data.side} at char ${number(data.at)} · ${number(data.repeatedChars)} chars of repetition · level ${data.level} → ${bold(data.action)}`)
        if (stat?.closedEarly) out(`${label('')}${dim(`provider stream closed by the plugin after ${number(stat.streamed)} chars (it was endless)`)}`)
        break
      }
      case 'loop-breaker/stall':
        out(`${label('')}${yellow('⟳ stall')} ${data.judge} judge: ${data.reason} · level ${data.level} → ${bold(data.action)}`)
        break
      case 'assistant/message': {
        call++
        const raw = chunksByStep.get(data.step)?.raw ?? { reasoning: '', text: '', tool: '' }
        out(`${cyan(`call ${call}`.padEnd(9))}${dim(data.interrupted ? 'assistant message (interrupted by the cancel):' : 'assistant message the model reads back:')}`)
        for (const block of data.message.content) {
          const shown = block.type === 'tool-call' ? `${block.name}(${block.arguments})` : block.text
          const rawLength = block.type === 'tool-call' ? raw.tool.length : raw[block.type]?.length ?? shown.length
          const trimmed = /\[loop-breaker[:：]/.test(shown)
          if (!trimmed) {
            out(`${label('')}${dim(block.type.padEnd(10))}${clip(shown, width - 20)}`)
            continue
          }
          // A trimmed block: its start, then its end with the marker, and how much the log still holds.
          const flat = shown.replace(/\n/g, '⏎')
          const note = ` (${number(shown.length)} of ${number(rawLength)} streamed chars kept; all ${number(rawLength)} stay in the log)`
          const first = fit(flat, width - 20)
          const rest = flat.slice(first.length)
          out(`${label('')}${dim(block.type.padEnd(10))}${first}${columns(rest) > width - 20 ? ' …' : ''}`)
          if (columns(rest) > width - 20) out(`${label('')}${' '.repeat(10)}… ${fit(rest, width - 22, true)}`)
          else if (rest !== '') out(`${label('')}${' '.repeat(10)}${rest}`)
          out(`${label('')}${' '.repeat(10)}${yellow(note.trim())}`)
        }
        break
      }
      case 'tool/result':
        out(`${label('tool')}${dim('→')} ${data.message.content[0].content.map((part) => part.text).join('')}`)
        break
      case 'turn/end': {
        const reason = data.reason
        const text = reason.kind === 'aborted' ? red(`aborted (${JSON.stringify(reason.reason)})`) : green(reason.kind)
        out(`${label(`turn ${data.turn}`)}ended: ${text}`)
        break
      }
    }
  }
  const recorded = events.filter((event) => readJournalRecord(event.type, event.data) !== undefined)
  out()
  out(dim(`recorded session events (${recorded.length}):`))
  for (const event of recorded) out(`  ${dim(`#${event.seq}`)} ${event.type} ${JSON.stringify(event.data)}`)
  out(dim(`log lines the user sees (${lines.length}):`))
  for (const message of lines) out(`  ${yellow(message.type)} ${format(message.args)}`)
  out(dim(`${stats.length} model calls · ${Math.round(elapsed)} ms`))
}

function format([template, ...args]) {
  return String(template).replace(/%[sd]/g, () => String(args.shift()))
}

// ── main ─────────────────────────────────────────────────────────────────────────────────────────────
async function main() {
  out(bold('dsh-loop-breaker demo') + dim(' — a real DSH rc.8 agent loop, a scripted model, the stream-grammar checker on'))
  out(dim('Every line below is read back from the session log the agent loop wrote.'))
  const begin = performance.now()
  for (const [index, scenario] of scenarios.entries()) {
    out()
    const title = ` ${index + 1}/${scenarios.length} · ${scenario.title} `
    out(bold(`━━${title}${'━'.repeat(Math.max(4, width - title.length - 2))}`))
    out(dim(wrap(scenario.caption, '')))
    out(dim(`config: ${JSON.stringify(scenario.config)} · locale: ${scenario.locale ?? 'none set (the language the task is written in)'}`))
    out()
    printTranscript(scenario, await runScenario(scenario))
  }
  out()
  const seconds = ((performance.now() - begin) / 1000).toFixed(1)
  if (violations.length === 0) {
    out(green(`✓ ${scenarios.length} scenarios in ${seconds} s, ${turnsChecked} turns checked by DSH's invariants (stream grammar, session log, loop-breaker records): no violation.`))
    return
  }
  out(red(`✗ ${violations.length} invariant violation(s) in ${scenarios.length} scenarios:`))
  for (const violation of violations) out(red(`  ${violation}`))
  process.exitCode = 1
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main()
