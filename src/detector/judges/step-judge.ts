// Cross-step repeat: the agent takes the same step again and again, or goes round a cycle of 2 to
// `maxStepCycleLength` steps (A-B-A-B, A-B-C-A-B-C), getting nowhere. See docs/judges.md.
//
// A step's identity is its tool calls (name + key-sorted arguments) when it makes any, so a failing
// edit retried with a reworded preface is the same step; a step without tool calls is identified by
// its normalised visible text (trimmed, lower-cased, white space collapsed, a leading "let me / I'll /
// I will / let's" dropped, first 200 chars). Steps with neither carry no identity and are ignored.
// The plugin's crop asks a stricter "same step" of this file too (`stepContentIdentity`, beside it).
// Each step also gets a masked identity, its arguments (or text) with temp paths, ids, hashes,
// timestamps, standalone numbers, command-line flags and white space replaced: the same command with a
// harmless changing flag, a counter in its arguments, an edit retried with other spacing. A number in a
// path stays (file1, file2 are different files). A masked repeat is only evidence when the earlier
// steps' tool results are known, said something and came back the same, and did not hand back a next
// page's cursor: reading file1, file2, file3 is progress.
//
// A run is excused, exact or masked, when the tool results the judge saw say the work is still going
// on: a result reading "in progress", "queued", "still running", a status field whose value is
// pending... (a legitimate wait: three polls of a running CI job), or one that changed between two
// occurrences of the same step (a poll whose answer moves). The results of step N arrive with step N + 1
// (`previousResults`: what the previous step's tool calls returned, as the next request carried them),
// so the judge keeps, per step, a hash of its masked results and a few flags, never the results themselves.
// After a report the history restarts, so the same loop is reported again only after another full run.

import { resolveDetectorConfig, type DetectorConfig } from '../settings.ts'
import type { StepVerdict } from '../types.ts'

/** One tool call of a step, as the cross-step judge identifies it. */
export interface StepToolCall {
  readonly name: string
  /** The arguments as streamed (a JSON string) or already parsed. */
  readonly arguments: unknown
}

/** What the cross-step judge is given of one completed step. */
export interface StepObservation {
  readonly text: string
  readonly toolCalls: ReadonlyArray<StepToolCall>
  /**
   * What the previous step's tool calls returned, as this step's request carried them, in call order:
   * each a string, content blocks or a tool-result message (its text is read); absent when unknown.
   */
  readonly previousResults?: ReadonlyArray<unknown>
}

const FILLER_OPENING = /^(?:let me|i'll|i’ll|i will|let's|let’s)\s+/
const SIGNIFICANT_TEXT_CHARS = 200
/**
 * Non-white-space chars of a step's text that fix its identity whatever its white space: each
 * normalised char but a collapsed space comes from one of them, so the 200 significant chars, the
 * filler opening of at most 7 dropped before them, and a margin for a case mapping that looks at the
 * next char. A caller that collects a step's text keeps it until it holds this many (the plugin's
 * completed-call.ts).
 */
export const STEP_TEXT_NON_WHITESPACE = 256
/** A tool result is judged by its head and its tail: status lines sit at either end. */
const RESULT_EDGE_CHARS = 4096

// What changes between retries of one step without changing what it does. Order matters: temp paths,
// ids and timestamps before the numbers inside them.
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi
const TIMESTAMP = /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b|\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b/g
const HEX_ID = /\b(?:0x)?(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi
// An entry of a temp directory is named at random (mktemp's tmp.XXXXXXXXXX, Python's tmpXXXXXXXX):
// the whole entry is masked, since its suffix can be letters only.
const TEMP_PATH = /(?:\/tmp|\/var\/tmp|\/var\/folders\/[^\s"'\\]*?\/T|\\Temp)[\\/][^\s"'\\/]+/gi
const ALNUM_RUN = /[a-z0-9]{6,}/gi
// A number standing alone (a flag's value, a counter, a port) is masked; a number in a file's path or
// name, or glued to a word, names a different thing (chapter2.md, logs/worker-3.log, img3.png), and
// reading those is progress even when they read the same. Paths are matched first and left as they are.
const PATH_OR_NUMBER = /((?:[\w.-]*\/)+[\w.-]+|\b[\w-]+\.[a-z][a-z0-9]{0,4}\b)|(?<![a-z_])\d+(?:\.\d+)?(?![a-z_])/gi
const FLAG = /(^|[\s"'])--?[a-z][a-z0-9-]*(?==|[\s"']|$)/gim
// White space, as written or JSON-escaped: a retried edit whose strings differ only in spacing.
const SPACE = /(?:\s|\\[nrt])+/g
// But the indentation that opens a line (a line break, then spaces or tabs) stays: in Python or YAML it
// is what the edit says, and an IndentationError is fixed by changing it alone. On 826 real SWE-agent
// runs (gpt-4-0125-preview, AutoCodeRover's repository), 20 of the 53 reports with all white space
// masked came at that fixing edit, the third of an edit whose first two failed the linter.
const LINE_INDENT = /(?:\r|\n|\\[rn])((?:[ \t]|\\t)+)$/

/** A run of white space as the masked identity keeps it: the indentation opening a line, else nothing. */
function maskSpace(run: string): string {
  const line = LINE_INDENT.exec(run)
  return line === null ? '' : `\n${line[1].replace(/\\t/g, '\t')}`
}

const DURATION = /\b\d+(?:\.\d+)?\s?(?:ms|s|sec|secs|seconds?|m|min|minutes?|h)\b/gi
const LONG_NUMBER = /\b\d{5,}\b/g

/** A run of letters and digits that switches between them 3 times or more: a random suffix or token. */
function randomLooking(run: string): boolean {
  let switches = 0
  for (let i = 1; i < run.length; i++) if ((run[i] >= '0' && run[i] <= '9') !== (run[i - 1] >= '0' && run[i - 1] <= '9')) switches++
  return switches >= 3
}

/** Arguments or text with what a retry changes masked: temp paths, ids, timestamps, numbers, flags, spacing (not indentation). */
function maskArguments(text: string): string {
  return text.replace(TEMP_PATH, '<tmp>').replace(UUID, '<id>').replace(TIMESTAMP, '<time>').replace(HEX_ID, '<id>')
    .replace(ALNUM_RUN, (run) => (randomLooking(run) ? '<id>' : run))
    .replace(PATH_OR_NUMBER, (_match, path: string | undefined) => path ?? '#').replace(FLAG, '$1<flag>').replace(SPACE, maskSpace)
}

/**
 * A tool result with what changes between two runs of the same command masked: temp paths, ids,
 * addresses, timestamps, durations, long numbers. Counts and percentages stay, so a poll whose
 * progress moves is a change.
 */
function maskResult(text: string): string {
  return text.replace(TEMP_PATH, '<tmp>').replace(UUID, '<id>').replace(TIMESTAMP, '<time>').replace(HEX_ID, '<id>')
    .replace(DURATION, '<duration>').replace(LONG_NUMBER, '<n>')
}

// A tool saying its work is not over yet, in English or Chinese: a phrase ("still running", "in
// progress", "queued", "the job is running", a line opening "Waiting for"), or a status field whose
// whole value is running, pending, queued... (after a line start, a tab, `|`, `:`, `=`, a quote or a
// column gap, and before the line's end, a tab, a quote, `,`, `}` or a column gap). A status word inside
// a sentence is not a field: "running 3 tests" (cargo test), "Pending:" (RSpec's heading), "Error:
// running the migration failed", "Starting a Gradle Daemon", "3 pending" in a test summary. A rebase
// or merge "in progress" is the repository's state, not a job to wait for.
const STILL_RUNNING = new RegExp([
  String.raw`(?<!\b(?:rebase|merge|cherry-pick|revert|bisect|am) )\bin[ _-]progress\b`,
  String.raw`\bqueued\b`,
  String.raw`\bstill (?:running|pending|queued|waiting|in progress|building|processing|working|deploying)\b`,
  String.raw`\b(?:job|build|run|workflow|pipeline|deploy(?:ment)?|rollout|task|check|export|import|operation)s? (?:is|are) (?:still )?(?:running|pending|queued|waiting|building|processing)\b`,
  String.raw`\b(?:not|has not|hasn't) (?:yet )?(?:finished|complete|completed|done|ready)\b`,
  String.raw`^[ \t]*waiting (?:for|on|until)\b`,
  String.raw`(?:^|[\t|:=,{(\[]| {2})[ \t"']*(?:running|pending|queued|waiting|starting|building|scheduled|in_progress|inprogress)[ \t"']*(?=[.…]*$|[\t|,;})\]]| {2})`,
  '仍在运行|正在运行|运行中|仍在进行|正在进行|进行中|正在排队|排队中|等待中|等待执行|等待运行|待处理|待执行|待运行|正在执行|执行中|正在构建|构建中|正在部署|部署中|正在处理|处理中|尚未完成|还没有?完成|还没结束|尚未结束',
].join('|'), 'im')

// A listing that hands back a cursor for its next page: the same call with the next cursor reads
// new entries, even when they look alike once their ids and timestamps are masked.
const NEXT_PAGE = /\bnext[_-]?(?:page[_-]?)?(?:cursor|token|marker)\b|\bnextPageToken\b|\bendCursor\b|\bhas[_-]?more\b|\bhasNextPage\b|\bcontinuation[_-]?token\b|rel="?next\b/i

/**
 * The text of a tool result: a string as is; content blocks or messages by their `text` fields,
 * following nested `content` arrays (so ids and other fields never make two results differ).
 */
function resultText(result: unknown): string {
  if (typeof result === 'string') return result
  if (Array.isArray(result)) return result.map(resultText).join('\n')
  if (result === null || typeof result !== 'object') return String(result)
  const { text, content } = result as { text?: unknown, content?: unknown }
  if (typeof text === 'string') return text
  return Array.isArray(content) || typeof content === 'string' ? resultText(content) : ''
}

function resultEdges(result: unknown): string {
  const text = resultText(result)
  return text.length <= 2 * RESULT_EDGE_CHARS ? text : text.slice(0, RESULT_EDGE_CHARS) + text.slice(-RESULT_EDGE_CHARS)
}

function hash(text: string): number {
  let value = 0x811c9dc5
  for (let i = 0; i < text.length; i++) value = Math.imul(value ^ text.charCodeAt(i), 0x01000193)
  return value >>> 0
}

function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep)
  if (value === null || typeof value !== 'object') return value
  const sorted: Record<string, unknown> = {}
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeysDeep((value as Record<string, unknown>)[key])
  return sorted
}

function toolSignature(call: StepToolCall): string {
  let args = call.arguments
  if (typeof args === 'string') {
    const written = args
    try {
      args = JSON.parse(written)
    } catch {
      // Arguments that are not JSON (a truncated stream) are compared as written.
      return `${call.name}(${written.trim()})`
    }
  }
  return `${call.name}(${JSON.stringify(sortKeysDeep(args)) ?? ''})`
}

// What makes two completed steps the same, in its two strengths. Both look at the tool calls when the
// step made any, else at its text, normalised the same way (`normalizedStepText`):
// - `stepSignature`, what this judge compares: lenient, since it only reports. Arguments are key-sorted,
//   a filler opening is dropped and only the first 200 chars of text count.
// - `stepContentIdentity`, for leaving repeats out of what the model reads again (the plugin's crop):
//   strict, since dropping a step is harmless only when nothing of it differs. Arguments as written, each
//   call's result (a repeated call whose result changed is progress), the whole text, else the reasoning.

/** A step's text as both identities compare it: trimmed, lower-cased, white space collapsed. */
function normalizedStepText(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, ' ')
}

/** The identity of a step, or '' when it has neither text nor tool calls. */
export function stepSignature(step: StepObservation): string {
  if (step.toolCalls.length > 0) return step.toolCalls.map(toolSignature).join('\n')
  return normalizedStepText(step.text).replace(FILLER_OPENING, '').slice(0, SIGNIFICANT_TEXT_CHARS)
}

/** All a completed step left in the conversation, as `stepContentIdentity` reads it. */
export interface StepContent {
  /** The step's reasoning blocks, joined by line breaks. */
  readonly reasoning: string
  /** The step's text blocks, joined by line breaks. */
  readonly text: string
  readonly toolCalls: ReadonlyArray<{
    readonly name: string
    /** The arguments as the model wrote them. */
    readonly arguments: unknown
    /** The call's result: its own content and outcome, not its envelope (the call id differs on every call); absent when not known. */
    readonly result: { readonly content: unknown; readonly isError: boolean } | undefined
  }>
}

/** The strict identity of a step (see above): equal strings for the same step, whatever its ids. */
export function stepContentIdentity(step: StepContent): string {
  if (step.toolCalls.length > 0) {
    return JSON.stringify(['tools', step.toolCalls.map((call) => [call.name, call.arguments, call.result === undefined ? null : [call.result.content, call.result.isError]])])
  }
  const text = normalizedStepText(step.text)
  return text !== '' ? JSON.stringify(['text', text]) : JSON.stringify(['reasoning', normalizedStepText(step.reasoning)])
}

interface StepEntry {
  readonly exact: string
  readonly masked: string
  /** Hash of the masked results of this step's tool calls, once the next step brought them. */
  results?: number
  /** Whether those results said the work is still going on. */
  waiting?: boolean
  /** Whether those results say nothing a repeat could be judged on: empty or blank ("" from `mkdir -p out/2`). */
  blank?: boolean
  /** Whether those results hand back a cursor for a next page. */
  paged?: boolean
}

/**
 * The cross-step judge of one agent: it reports the same step taken again and again, or a cycle of 2 to
 * `maxStepCycleLength` steps, unless the tool results show progress or a job still running. See docs/judges.md.
 */
export class StepJudge {
  private readonly config: DetectorConfig
  private recent: StepEntry[] = []

  /**
   * A judge with no history yet.
   * @param config - thresholds to override; every field left out takes its default.
   * @throws Error naming the field and the value, on a config the detector refuses.
   */
  constructor(config?: Partial<DetectorConfig>) {
    this.config = resolveDetectorConfig(config)
  }

  /**
   * Judge the agent's next completed step.
   * @param step - its visible text, its tool calls, and what the previous step's tool calls returned.
   * @returns `'repeated-step'`, `'alternating-steps'` or `'step-cycle'` when a loop is reported, else `undefined`.
   */
  observe(step: StepObservation): StepVerdict | undefined {
    const last = this.recent[this.recent.length - 1]
    if (step.previousResults !== undefined && last !== undefined && last.results === undefined) {
      const texts = step.previousResults.map(resultEdges)
      const masked = texts.map(maskResult)
      last.results = hash(masked.join('\u0000'))
      last.waiting = texts.some((text) => STILL_RUNNING.test(text))
      last.blank = masked.every((text) => text.trim() === '')
      last.paged = texts.some((text) => NEXT_PAGE.test(text))
    }
    const exact = stepSignature(step)
    if (exact === '') return undefined
    const { maxRepeatedSteps, maxAlternatingSteps, maxStepCycleLength } = this.config
    this.recent.push({ exact, masked: maskArguments(exact) })
    const keep = Math.max(maxRepeatedSteps, maxAlternatingSteps, 2 * maxStepCycleLength) + maxStepCycleLength
    if (this.recent.length > keep) this.recent.splice(0, this.recent.length - keep)
    const verdict = (maxRepeatedSteps > 0 && this.stuck(1, maxRepeatedSteps) ? 'repeated-step' : undefined)
      ?? (maxAlternatingSteps > 0 ? this.cycle(maxAlternatingSteps, maxStepCycleLength) : undefined)
    if (verdict !== undefined) this.recent = []
    return verdict
  }

  /** The shortest cycle of 2..maxLength steps the recent steps go round, over `minSteps` and two full cycles. */
  private cycle(minSteps: number, maxLength: number): StepVerdict | undefined {
    for (let period = 2; period <= maxLength; period++) {
      if (this.stuck(period, Math.max(minSteps, 2 * period))) return period === 2 ? 'alternating-steps' : 'step-cycle'
    }
    return undefined
  }

  /**
   * Whether the last `span` steps repeat with `period` (each step equal to the one `period` before),
   * with no shorter period inside one cycle, and nothing in their results says the work moves on.
   */
  private stuck(period: number, span: number): boolean {
    const steps = this.recent
    if (steps.length < span) return false
    const run = steps.slice(steps.length - span)
    const cycleOf = (key: 'exact' | 'masked') => {
      for (let i = period; i < span; i++) if (run[i][key] !== run[i - period][key]) return false
      // A-A-A-A is a repeat of one step, not a cycle of two: every shorter period must fail.
      for (let shorter = 1; shorter < period; shorter++) {
        if (period % shorter === 0 && run.slice(0, period).every((entry, i) => i < shorter || entry[key] === run[i - shorter][key])) return false
      }
      return true
    }
    const exact = cycleOf('exact')
    if (!exact && !cycleOf('masked')) return false
    const key = exact ? 'exact' : 'masked'
    const start = steps.length - span
    const last = steps.length - 1
    // Results known for every step but the last (whose results come with the next step).
    const known = run.slice(0, -1).every((entry) => entry.results !== undefined)
    for (let j = start; j < last; j++) {
      const entry = steps[j]
      if (entry.waiting) return false
      // Each step's results against its previous occurrence's. The step the last one repeats has no
      // later results in the run, so it is held against its occurrence before the run, when there is
      // one: in edit → test → read rounds, the test whose counts move shows only there.
      const k = j - period
      const earlier = k >= start || (k >= 0 && j + period >= last && steps[k][key] === entry[key]) ? steps[k] : undefined
      if (earlier?.results !== undefined && entry.results !== undefined && earlier.results !== entry.results) return false
    }
    if (exact) return true
    // A masked repeat (arguments differ in numbers, ids, flags or spacing) needs results that show
    // nothing changed: known, the same, saying something (an empty result from `mkdir -p out/2` shows
    // nothing), and not a listing handing back its next cursor.
    return known && span - 1 > period && run.slice(0, -1).every((entry) => !entry.blank && !entry.paged)
  }
}
