/**
 * Every text the model reads from the loop-breaker, in Chinese (the default) and English: the notice that
 * follows a cut or a stall, and the marker that ends a trimmed block. A notice says what was repeated and
 * tells the model to carry on with its original task differently; it never asks the model to wrap up,
 * because a loop is a failure of generation, not a sign the task is done.
 */
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import type { UserMessage } from '@deepseek-ai/dsh-llm'
import type { Side, RuleName, StallReason, StepVerdict } from '../detector/index.ts'

export type Locale = 'zh' | 'en'

/** What a notice reports: an in-stream cut, or a judge's verdict over whole calls or steps. */
export type Finding =
  | { kind: 'break'; rule: RuleName; side: Side; repeatedChars: number }
  | { kind: 'stall'; judge: 'call' | 'step'; reason: StallReason | StepVerdict }

/** How hard the notice pushes: remind (first), replan (repeated), resume (after the turn was cancelled). */
export type Tone = 'remind' | 'replan' | 'resume'

const PREFIX = '[loop-breaker]'

const SIDE: Record<Locale, Record<Side, string>> = {
  en: { reasoning: 'reasoning', text: 'reply', tool: 'tool-call arguments' },
  zh: { reasoning: '思考过程', text: '回复', tool: '工具调用参数' },
}

/** The loop shape each detector rule stands for, as the model is told it. */
const RULE: Record<Locale, Record<RuleName, string>> = {
  en: {
    cycle: 'the same passage repeated back to back',
    'phrase-pool': 'a few sentences reshuffled over and over',
    'near-pool': 'the same sentences or lines again and again with only a number, an id or one word changed',
    'symbol-run': 'one symbol or character repeated without end',
    'identical-chunks': 'identical pieces streamed again and again',
    'token-period': 'the same run of words repeated many times',
  },
  zh: {
    cycle: '同一段内容首尾相接地反复出现',
    'phrase-pool': '少数几句话被反复打乱重组',
    'near-pool': '同样的句子或行反复出现，只有数字、编号或一个词在变',
    'symbol-run': '同一个符号或字符无休止地重复',
    'identical-chunks': '完全相同的片段被一再输出',
    'token-period': '同一串词语被连续重复多次',
  },
}

/** What a stall verdict means, as the model is told it. */
const STALL: Record<Locale, Record<StallReason | StepVerdict, string>> = {
  en: {
    'reasoning-only': 'Your recent calls only reasoned and produced no reply and no tool call.',
    'repeated-material': 'Your reasoning restated the same material as your previous call.',
    'repeated-step': 'Your last steps repeated the same action.',
    'alternating-steps': 'Your last steps alternated between the same two actions.',
    'step-cycle': 'Your last steps went round the same short cycle of actions again and again.',
  },
  zh: {
    'reasoning-only': '你最近几次调用只有思考，没有产生任何回复或工具调用。',
    'repeated-material': '你的思考在重复上一次调用已经写过的内容。',
    'repeated-step': '你最近几步一直在重复同样的操作。',
    'alternating-steps': '你最近几步在两个相同的操作之间来回切换。',
    'step-cycle': '你最近几步在同一组操作之间反复循环。',
  },
}

const INSTRUCTION: Record<Locale, Record<Tone, (streak: number) => string>> = {
  en: {
    remind: () =>
      'Do not repeat that text. Continue the original task from where the useful part ended, and take a different next step.',
    replan: (streak) =>
      `This has happened ${streak} times in a row. Before writing more, re-plan: state in one or two sentences what is already done, then choose a different approach for what remains of the original task and carry it out. Do not restate earlier text.`,
    resume: (streak) =>
      `The previous turn was stopped after ${streak} loops in a row. Resume the original task: state briefly what is already done, pick an approach you have not tried yet, and continue. Do not repeat earlier text.`,
  },
  zh: {
    remind: () => '不要重复那些内容。从有效内容结束的地方继续原来的任务，换一种方式推进下一步。',
    replan: (streak) =>
      `这已经连续发生了 ${streak} 次。继续之前先重新规划：用一两句话说明已经完成了什么，然后为原任务剩下的部分选择一种不同的方法并执行。不要复述之前的内容。`,
    resume: (streak) =>
      `上一轮在连续 ${streak} 次循环后被中止。请继续原来的任务：简要说明已经完成了什么，选择一种还没尝试过的方法，然后继续。不要重复之前的内容。`,
  },
}

/** The first notice after a stall: there is no repeated text to drop, only a step to take. */
const STALL_REMIND: Record<Locale, string> = {
  en: 'Take the next concrete step of the original task now, and make it a different one from what you have been doing.',
  zh: '现在就推进原任务的下一个具体步骤，并且换一种与之前不同的做法。',
}

const SUMMARY_MAX = 120

function formatCount(locale: Locale, n: number): string {
  return locale === 'en' ? n.toLocaleString('en-US') : String(n)
}

function describeFinding(locale: Locale, finding: Finding): string {
  if (finding.kind === 'stall') return STALL[locale][finding.reason]
  const rule = RULE[locale][finding.rule]
  const side = SIDE[locale][finding.side]
  const count = formatCount(locale, finding.repeatedChars)
  return locale === 'en'
    ? `Your last output was cut because its ${side} fell into a repetition loop: ${rule} (${count} characters of repetition).`
    : `你上一次的输出被截断了，因为${side}陷入了重复循环：${rule}（重复内容 ${count} 个字符）。`
}

/** The full notice text the model reads. */
export function noticeText(locale: Locale, finding: Finding, tone: Tone, streak: number): string {
  const separator = locale === 'en' ? ' ' : ''
  const instruction = tone === 'remind' && finding.kind === 'stall' ? STALL_REMIND[locale] : INSTRUCTION[locale][tone](streak)
  return `${PREFIX} ${describeFinding(locale, finding)}${separator}${instruction}`
}

/** The one-line label a UI shows for the notice (at most 120 characters). */
export function noticeSummary(locale: Locale, finding: Finding, tone: Tone): string {
  const what = finding.kind === 'break'
    ? `${finding.rule} / ${SIDE[locale][finding.side]} / ${formatCount(locale, finding.repeatedChars)}`
    : `${finding.judge}: ${finding.reason}`
  const summary = locale === 'en' ? `loop-breaker ${tone}: ${what}` : `loop-breaker ${tone}：${what}`
  return summary.length <= SUMMARY_MAX ? summary : `${summary.slice(0, SUMMARY_MAX - 1)}…`
}

/** A notice as DSH carries it: a user-role message whose source is this plugin, form `notice`. */
export function createNotice(locale: Locale, finding: Finding, tone: Tone, streak: number): UserMessage {
  return createUserMessage({
    content: [{ type: 'text', text: noticeText(locale, finding, tone, streak) }],
    source: { kind: 'plugin', plugin: 'loop-breaker', form: 'notice', summary: noticeSummary(locale, finding, tone) },
  } as any)
}

/**
 * The marker that ends a trimmed block. It starts with an ellipsis and holds no quote, so a tool call's
 * arguments ending in it can never parse as JSON (see open-blocks.ts).
 */
export function trimMarker(locale: Locale, removedChars: number): string {
  if (locale === 'en') {
    return removedChars > 0 ? ` …[loop-breaker: ${formatCount(locale, removedChars)} repeated characters removed]` : ' …[loop-breaker: cut here]'
  }
  return removedChars > 0 ? ` ……[loop-breaker：已删去 ${removedChars} 个重复字符]` : ' ……[loop-breaker：在此截断]'
}

/**
 * The user's language from the settings service (`locale.preference`), when one is mounted: English when
 * the preference starts with "en", Chinese otherwise and when there is no settings service at all.
 */
export function resolveLocale(ctx: { get(name: string): any }): Locale {
  try {
    const preference = ctx.get('settings')?.get('locale')?.preference
    return typeof preference === 'string' && preference.toLowerCase().startsWith('en') ? 'en' : 'zh'
  } catch {
    return 'zh'
  }
}
