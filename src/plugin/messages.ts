/**
 * Every text the model reads from the loop-breaker, in Chinese (the default) and English: the notice that
 * follows a cut or a stall, and the marker that ends a trimmed block. A notice says what was repeated and
 * tells the model to carry on with its original task differently; it never asks the model to wrap up,
 * because a loop is a failure of generation, not a sign the task is done.
 */
import type { Context } from '@deepseek-ai/cordis'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import type { UserMessage } from '@deepseek-ai/dsh-llm'
import type { Side, RuleName, StallReason, StepVerdict } from '../detector/index.ts'
import type { Action } from './escalation.ts'
import { isMapping } from '../mapping.ts'
import { CONTINUATION_SUMMARY_HEAD, NOTICE_SOURCE } from '../message-source.ts'

export { trimMarker } from '../trim-marker.ts'

/** The languages the plugin speaks to the model and the user: Chinese and English. */
export type Locale = 'zh' | 'en'

/** What a notice reports: an in-stream cut, or a judge's verdict over whole calls or steps. */
export type Finding =
  | { kind: 'break'; rule: RuleName; side: Side; repeatedChars: number }
  | { kind: 'stall'; judge: 'call' | 'step'; reason: StallReason | StepVerdict }

/** How hard the notice pushes: remind (first), replan (repeated), resume (after the turn was cancelled). */
export type Tone = 'remind' | 'replan' | 'resume'

const PREFIX = '[loop-breaker]'

/**
 * The notice after a call the output length limit cut in its reply or reasoning: carry on from the exact
 * point, never start over (a restart re-spends the length budget on text the model already wrote).
 */
const CONTINUE_TEXT: Record<Locale, string> = {
  en: 'Your previous output was cut off by the output length limit. Continue exactly where it stopped, starting with the next character; do not repeat or summarise what you already wrote.',
  zh: '你上一次的输出因达到输出长度上限被截断。请从中断处紧接着继续，直接写出下一个字符；不要重复或概括已经写过的内容。',
}

/**
 * The notice after the limit cut a tool call inside its arguments: the half call was not run, and its
 * JSON cannot be continued in a new message, so the whole call is to be issued again (shorter if it can be).
 */
const REISSUE_TOOL_CALL: Record<Locale, (tool: string) => string> = {
  en: (tool) => `Your previous output was cut off by the output length limit inside the arguments of the ${tool} tool call, so that call was not run. Issue the whole ${tool} call again with complete arguments (split the work into smaller calls if the arguments are long); do not try to continue the half-written arguments.`,
  zh: (tool) => `你上一次的输出在 ${tool} 工具调用的参数中途因达到输出长度上限被截断，该调用没有执行。请重新发出完整的 ${tool} 调用（参数很长时拆成几次较小的调用）；不要试图接着写那半截参数。`,
}

/** The marker that ends the arguments of a tool call the length limit cut (no quote: never parses as JSON). */
const LENGTH_MARKER: Record<Locale, string> = {
  en: ' …[loop-breaker: cut by the output length limit]',
  zh: ' ……[loop-breaker：因输出长度上限在此截断]',
}

const SIDE: Record<Locale, Record<Side, string>> = {
  en: { reasoning: 'reasoning', text: 'reply', tool: 'tool-call arguments' },
  zh: { reasoning: '思考过程', text: '回复', tool: '工具调用参数' },
}

/** The loop shape each detector rule stands for, as the model is told it. */
const RULE: Record<Locale, Record<RuleName, string>> = {
  en: {
    cycle: 'the same passage repeated back to back',
    'phrase-pool': 'a few sentences reshuffled over and over',
    novelty: 'text that keeps saying what it already said, only reworded, renumbered or reshuffled',
    'symbol-run': 'one symbol or character repeated without end',
    'identical-chunks': 'identical pieces streamed again and again',
    'token-period': 'the same run of words repeated many times',
    'letter-cycle': 'the same fragments of words run together again and again',
    'growing-line': 'the same line written again and again, one more copy of a fragment each time',
  },
  zh: {
    cycle: '同一段内容首尾相接地反复出现',
    'phrase-pool': '少数几句话被反复打乱重组',
    novelty: '反复说已经说过的内容，只是换了措辞、编号或顺序',
    'symbol-run': '同一个符号或字符无休止地重复',
    'identical-chunks': '完全相同的片段被一再输出',
    'token-period': '同一串词语被连续重复多次',
    'letter-cycle': '同样的词语碎片连在一起反复出现',
    'growing-line': '同一行被一再重写，每次只多重复一段片段',
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
    source: { ...NOTICE_SOURCE, summary: noticeSummary(locale, finding, tone) },
  })
}

/** What a stall verdict is, as the user's log line names it. */
const STALL_LINE: Record<Locale, Record<StallReason | StepVerdict, string>> = {
  en: {
    'reasoning-only': 'calls that only reason, with no reply and no tool call',
    'repeated-material': 'reasoning that restates the previous call',
    'repeated-step': 'the same step repeated',
    'alternating-steps': 'two steps alternating',
    'step-cycle': 'the same few steps going round in a cycle',
  },
  zh: {
    'reasoning-only': '连续的调用只有思考，没有回复也没有工具调用',
    'repeated-material': '思考在复述上一次调用的内容',
    'repeated-step': '同一步操作被重复',
    'alternating-steps': '两步操作来回交替',
    'step-cycle': '同样的几步操作在循环往复',
  },
}

/** What the plugin did, as the user's log line says it. */
const ACTION_LINE: Record<Locale, Record<Action, (resume: boolean) => string>> = {
  en: {
    warn: () => 'the notice goes with the next request',
    remind: () => 'the model was told to carry on differently',
    replan: () => 'the model was told to re-plan',
    cancel: (resume) => resume ? 'the turn was cancelled; a follow-up with the notice is queued to resume the task' : 'the turn was cancelled',
    stop: () => 'no reaction left in this user turn (maxFires): no notice, the turn was cancelled',
  },
  zh: {
    warn: () => '提示将随下一次请求发给模型',
    remind: () => '已提醒模型换一种做法继续',
    replan: () => '已要求模型重新规划',
    cancel: (resume) => resume ? '已中止本轮，并已排入带提示的后续消息以继续任务' : '已中止本轮',
    stop: () => '本次用户回合的反应次数已用完（maxFires）：不再发提示，已中止本轮',
  },
}

/**
 * The one line the user sees in DSH's log for a reaction: what was found, where, and what was done. It
 * names the rule and the position so that the analyzer's report can be matched to it.
 */
export function reactionLine(locale: Locale, finding: Finding, where: { turn: number; step: number }, reaction: { action: Action; level: number; resume: boolean }): string {
  const done = ACTION_LINE[locale][reaction.action](reaction.resume)
  if (finding.kind === 'break') {
    const side = SIDE[locale][finding.side]
    const count = formatCount(locale, finding.repeatedChars)
    return locale === 'en'
      ? `${PREFIX} cut a repetition loop in the ${side} (${finding.rule}, ${count} repeated characters) at turn ${where.turn} step ${where.step}; ${done} (${reaction.level} in a row).`
      : `${PREFIX} 第 ${where.turn} 轮第 ${where.step} 步：${side}陷入重复循环（${finding.rule}，重复 ${count} 个字符），已截断；${done}（连续第 ${reaction.level} 次）。`
  }
  const what = STALL_LINE[locale][finding.reason]
  return locale === 'en'
    ? `${PREFIX} ${what} (${finding.judge} judge) at turn ${where.turn} step ${where.step}; ${done} (${reaction.level} in a row).`
    : `${PREFIX} 第 ${where.turn} 轮第 ${where.step} 步：${what}（${finding.judge} judge）；${done}（连续第 ${reaction.level} 次）。`
}

/** The line the user sees once the request that carries the resume notice goes to the model. */
export function resumeLine(locale: Locale, where: { turn: number }): string {
  return locale === 'en'
    ? `${PREFIX} resumed the task after turn ${where.turn} was cancelled: the notice went to the model.`
    : `${PREFIX} 第 ${where.turn} 轮被中止后，已自动继续原任务：提示已发给模型。`
}

/** The one call of dsh-settings' service the plugin makes (dsh-settings is not among its dependencies). */
interface SettingsReader {
  get(namespace: string): unknown
}

/**
 * The locale the user chose in DSH's settings (`locale.preference`, `'zh'` or `'en'`), or `undefined`
 * when there is no settings service (headless) or the user left the choice to the client.
 */
export function chosenLocale(ctx: Context): Locale | undefined {
  try {
    const settings: SettingsReader | undefined = ctx.get('settings')
    const section = settings?.get('locale')
    const preference = isMapping(section) ? section.preference : undefined
    if (typeof preference !== 'string') return undefined
    return preference.toLowerCase().startsWith('en') ? 'en' : preference.toLowerCase().startsWith('zh') ? 'zh' : undefined
  } catch {
    return undefined
  }
}

// A CJK character carries about a word; a Latin word is about 4-5 letters. Weighting CJK 4:1 makes a
// Chinese request that names files and commands ("修复 src/index.ts 里的 bug") Chinese, and an English
// one that quotes a Chinese term English.
const CJK_WEIGHT = 4
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]/g
const LATIN = /[A-Za-z\u00c0-\u024f]/g
// Code is not the user's language: fenced blocks and inline code spans are left out of the count.
const CODE = /```[\s\S]*?(?:```|$)|`[^`\n]*`/g

/** The language a user's message is written in, or `undefined` when it holds no letters of either script. */
export function localeOfText(text: string): Locale | undefined {
  const prose = text.replace(CODE, ' ')
  const cjk = prose.match(CJK)?.length ?? 0
  const latin = prose.match(LATIN)?.length ?? 0
  if (cjk === 0 && latin === 0) return undefined
  return cjk * CJK_WEIGHT >= latin ? 'zh' : 'en'
}

/** The language a user's message is written in: its text parts, as `localeOfText` reads them. */
export function localeOfMessage(message: UserMessage): Locale | undefined {
  return localeOfText(message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n'))
}

/** The notice language: the user's explicit choice, else the language of their own messages, else Chinese. */
export function resolveLocale(chosen: Locale | undefined, spoken: Locale | undefined): Locale {
  return chosen ?? spoken ?? 'zh'
}

/** The notice that continues a turn after a call the output length limit cut. */
export function createContinuationNotice(locale: Locale, cutToolCall: string | undefined): UserMessage {
  const text = cutToolCall === undefined ? CONTINUE_TEXT[locale] : REISSUE_TOOL_CALL[locale](cutToolCall)
  const summary = locale === 'en'
    ? `${CONTINUATION_SUMMARY_HEAD}: ${cutToolCall === undefined ? 'output length limit' : `re-issue ${cutToolCall}`}`
    : `${CONTINUATION_SUMMARY_HEAD}：${cutToolCall === undefined ? '输出长度上限' : `重新发出 ${cutToolCall}`}`
  return createUserMessage({
    content: [{ type: 'text', text: `${PREFIX} ${text}` }],
    source: { ...NOTICE_SOURCE, summary: summary.slice(0, SUMMARY_MAX) },
  })
}

/** The marker that ends the arguments of a tool call the output length limit cut, when the turn continues. */
export function lengthMarker(locale: Locale): string {
  return LENGTH_MARKER[locale]
}

/**
 * The line the user sees for a call that hit the output length limit: continued (the count so far and
 * the cap), or left to end the turn because the cap is spent.
 */
export function continuationLine(locale: Locale, where: { turn: number; step: number }, continuation: { continued: boolean; count: number; max: number; cutToolCall?: string }): string {
  const { continued, count, max, cutToolCall } = continuation
  if (locale === 'en') {
    const what = continued
      ? `continued the turn (${count} of ${max})${cutToolCall === undefined ? '' : `; the cut ${cutToolCall} call was not run and is to be re-issued`}`
      : `${max} continuations used, the turn ends`
    return `${PREFIX} the output length limit cut the call at turn ${where.turn} step ${where.step}; ${what}.`
  }
  const what = continued
    ? `已继续本轮（第 ${count} 次，上限 ${max} 次）${cutToolCall === undefined ? '' : `；被截断的 ${cutToolCall} 调用没有执行，已要求重新发出`}`
    : `已用完 ${max} 次续写，本轮结束`
  return `${PREFIX} 第 ${where.turn} 轮第 ${where.step} 步：输出达到长度上限被截断；${what}。`
}

/** The line the user sees when repeated steps are left out of every later request. */
export function cropLine(locale: Locale, where: { turn: number; step: number }, crop: { steps: number; messages: number }): string {
  return locale === 'en'
    ? `${PREFIX} ${crop.steps} repeated step(s) (${crop.messages} messages) are left out of every later request from turn ${where.turn} step ${where.step} on; the session log keeps them.`
    : `${PREFIX} 第 ${where.turn} 轮第 ${where.step} 步起，之后的每次请求都略去 ${crop.steps} 个重复步骤（${crop.messages} 条消息）；会话日志仍完整保留。`
}

/**
 * The last line of a headless run whose turn the plugin cancelled (headless-end.ts): the runner prints the
 * cut call's kept text as if it were the answer and exits 1, so the line says what that text is, that the
 * session is kept, and what to do.
 */
export function headlessStopLine(locale: Locale, stop: { turn: number; loops: number | undefined; session: string }): string {
  const { turn, loops, session } = stop
  if (locale === 'en') {
    const after = loops === undefined || loops === 1 ? 'after a loop' : `after ${loops} loops in a row`
    return `${PREFIX} turn ${turn} was stopped ${after}, so dsh exits with status 1: the text above is the model's output up to the cut, not an answer. Session ${session} keeps it; continue it in dsh --profile web, or run the task again reworded or in smaller steps.`
  }
  const after = loops === undefined || loops === 1 ? '出现循环后' : `在连续 ${loops} 次循环后`
  return `${PREFIX} 第 ${turn} 轮${after}被中止，dsh 因此以状态 1 退出：上面的文字是模型截断前的输出，不是答案。会话 ${session} 已保存；可在 dsh --profile web 中继续，或换个说法、拆成更小的步骤重新运行任务。`
}

/**
 * The last line of a headless run whose answer the plugin continued after the output length limit
 * (headless-end.ts): the runner prints only the answer's last part, so the line says where the whole is.
 */
export function headlessPartsLine(locale: Locale, answer: { turn: number; parts: number; session: string }): string {
  const { turn, parts, session } = answer
  return locale === 'en'
    ? `${PREFIX} the answer above is only the last of ${parts} parts: the output length limit cut turn ${turn}'s answer and the plugin continued it. Session ${session} keeps the whole answer (the web UI shows every part).`
    : `${PREFIX} 上面的回答只是 ${parts} 段中的最后一段：第 ${turn} 轮的回答被输出长度上限截断，插件让模型接着写完。会话 ${session} 保存了完整回答（Web 界面会显示每一段）。`
}
