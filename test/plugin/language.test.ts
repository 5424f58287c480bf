import { afterEach, describe, expect, it } from 'vitest'
import { localeOfText } from '../../src/plugin/messages.ts'
import { textAnswer } from '../support/host.ts'
import { createGuardedHost, eventsOf, lastMessageText, phrasePoolReasoning, streamBlocks, toDeltas } from '../support/loop-breaker.ts'
import type { BlockScript } from '../support/loop-breaker.ts'

const hosts: Array<{ dispose(): Promise<void> }> = []
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.dispose()
})

const POOL: BlockScript[] = [{ type: 'reasoning', deltas: toDeltas(phrasePoolReasoning('Plan: patch.')) }]

/** What DSH's client locale plugin does when the user picked a language: the `locale` settings section. */
async function localeSetting(preference: string): Promise<Array<[any, any?]>> {
  const { SettingsProvider, settingsNamespace } = await import('@deepseek-ai/dsh-settings')
  const Schema = (await import('@deepseek-ai/schemastery')).default
  class FixedSettings extends (SettingsProvider as any) {
    writable = false
    async load() { return { locale: { preference } } }
    async persist() {}
  }
  const localeSection = {
    name: 'locale-section',
    inject: ['settings'],
    apply: (ctx: any) => {
      ctx.settings.register(settingsNamespace('locale'), Schema.object({ preference: Schema.string() }))
    },
  }
  return [[FixedSettings], [localeSection]]
}

/**
 * The lines an exporter with no level of its own receives from the plugin: what DSH shows at its
 * default log level (Cordis's default threshold is `info`; its `warn` sits above it and stays hidden).
 */
function visibleLines(host: { ctx: any }): string[] {
  const lines: string[] = []
  host.ctx.logger.exporter({
    export: (message: any) => {
      if (message.name === 'loop-breaker') lines.push(message.args.map(String).join(' '))
    },
  })
  return lines
}

async function cutOnce(task: string, before: Array<[any, any?]> = []) {
  const host = await createGuardedHost((_options, call) => call === 0 ? streamBlocks(POOL) : textAnswer('ok'), {}, { before })
  hosts.push(host)
  const lines = visibleLines(host)
  const agent = host.createAgent()
  await host.ask(agent, task)
  return {
    notice: lastMessageText(host.adapter.requests[1]!),
    trimmed: eventsOf(agent, 'assistant/message')[0].message.content[0].text as string,
    lines,
  }
}

describe('the language of notices, trim markers and the visible line', () => {
  it('answers a Chinese task in Chinese, with one visible line per reaction', async () => {
    const { notice, trimmed, lines } = await cutOnce('修复 src/parser.ts 里的越界错误，然后运行 `npm test`')
    expect(notice).toMatch(/^\[loop-breaker\] 你上一次的输出被截断了，因为思考过程陷入了重复循环/)
    expect(trimmed).toMatch(/ ……\[loop-breaker：已删去 \d+ 个重复字符\]$/)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^\[loop-breaker\] 第 1 轮第 1 步：思考过程陷入重复循环（phrase-pool，重复 \d+ 个字符），已截断；已提醒模型换一种做法继续（连续第 1 次）。$/)
  })

  it('answers an English task in English, marker and line included', async () => {
    const { notice, trimmed, lines } = await cutOnce('Fix the off-by-one in src/parser.ts, then run the tests.')
    expect(notice).toMatch(/^\[loop-breaker\] Your last output was cut because its reasoning fell into a repetition loop/)
    expect(trimmed).toMatch(/ …\[loop-breaker: [\d,]+ repeated characters removed\]$/)
    expect(lines).toEqual([expect.stringMatching(/^\[loop-breaker\] cut a repetition loop in the reasoning \(phrase-pool, [\d,]+ repeated characters\) at turn 1 step 1; the model was told to carry on differently \(1 in a row\)\.$/)])
  })

  it("lets the user's explicit locale setting win over the task's language, both ways", async () => {
    const english = await cutOnce('修复 parser.ts 里的越界错误', await localeSetting('en-GB'))
    expect(english.notice).toMatch(/^\[loop-breaker\] Your last output was cut/)
    expect(english.lines[0]).toMatch(/^\[loop-breaker\] cut a repetition loop/)
    const chinese = await cutOnce('Fix the off-by-one in parser.ts', await localeSetting('zh'))
    expect(chinese.notice).toMatch(/^\[loop-breaker\] 你上一次的输出被截断了/)
    expect(chinese.trimmed).toMatch(/loop-breaker：已删去/)
  })

  it('falls back to Chinese when the user wrote no letters at all', async () => {
    const { notice } = await cutOnce('??? 42 !!!')
    expect(notice).toMatch(/^\[loop-breaker\] 你上一次的输出被截断了/)
  })

  it("follows the user's latest message: a Chinese task continued in English gets English notices", async () => {
    const host = await createGuardedHost((_options, call) => call === 0 || call === 2 ? streamBlocks(POOL) : textAnswer('ok'))
    hosts.push(host)
    const agent = host.createAgent()
    await host.ask(agent, '请重构这个模块')
    expect(lastMessageText(host.adapter.requests[1]!)).toMatch(/^\[loop-breaker\] 你上一次的输出被截断了/)
    await host.ask(agent, 'continue please')
    expect(lastMessageText(host.adapter.requests[3]!)).toMatch(/^\[loop-breaker\] Your last output was cut/)
  })
})

describe('localeOfText', () => {
  it.each([
    ['修复 src/index.ts 里的 bug，并运行 npm test', 'zh'],
    ['请把 README 翻译成英文', 'zh'],
    ['Fix the bug in the 日志 module', 'en'],
    ['Make the build script run the tests before it packs the package.', 'en'],
    ['```ts\nconst x = 1\n```\n继续', 'zh'],
    ['`npm run build` 失败了', 'zh'],
    ['Réécris la fonction', 'en'],
  ])('%s → %s', (text, locale) => {
    expect(localeOfText(text)).toBe(locale)
  })

  it('has no verdict on text without letters', () => {
    expect(localeOfText('42 ... !!! `code only`')).toBeUndefined()
  })
})
