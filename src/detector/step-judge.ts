// Cross-step repeat: the agent takes the same step again and again, or goes round a cycle of 2 to
// `maxStepCycleLength` steps (A-B-A-B, A-B-C-A-B-C), getting nowhere. See docs/judges.md.
//
// A step's identity is its tool calls (name + key-sorted arguments) when it makes any, so a failing
// edit retried with a reworded preface is the same step; a step without tool calls is identified by
// its normalised visible text (trimmed, lower-cased, white space collapsed, a leading "let me / I'll /
// I will / let's" dropped, first 200 chars). Steps with neither carry no identity and are ignored.
// Each step also gets a masked identity, its arguments (or text) with numbers, ids, hashes,
// timestamps and command-line flags replaced: the same command with a harmless changing flag or a
// counter in its arguments. A masked repeat is only evidence when the earlier steps' tool results are
// known and came back the same; reading file1, file2, file3 is progress.
//
// A run is excused, exact or masked, when the tool results the judge saw say the work is still going
// on: a result reading "in progress", "queued", "still running"... (a legitimate wait: three polls of
// a running CI job), or one that changed between two occurrences of the same step (a poll whose
// answer moves). The results of step N arrive with step N + 1 (`previousResults`: what the previous
// step's tool calls returned, as the next request carried them), so the judge keeps, per step, a hash
// of its masked results and whether they said "still running", never the results themselves.
// After a report the history restarts, so the same loop is reported again only after another full run.

import { resolveDetectorConfig, type DetectorConfig } from './settings.ts'
import type { StepVerdict } from './types.ts'

export interface StepToolCall {
  readonly name: string
  /** The arguments as streamed (a JSON string) or already parsed. */
  readonly arguments: unknown
}

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
/** A tool result is judged by its head and its tail: status lines sit at either end. */
const RESULT_EDGE_CHARS = 4096

// What changes between retries of one step without changing what it does. Order matters: ids and
// timestamps before the numbers inside them.
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi
const TIMESTAMP = /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b|\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b/g
const HEX_ID = /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi
const NUMBER = /\d+(?:\.\d+)?/g
const FLAG = /(^|[\s"'])--?[a-z][a-z0-9-]*(?==|[\s"']|$)/gim
const DURATION = /\b\d+(?:\.\d+)?\s?(?:ms|s|sec|secs|seconds?|m|min|minutes?|h)\b/gi
const LONG_NUMBER = /\b\d{5,}\b/g

/** Arguments or text with what a retry changes masked: ids, timestamps, numbers, flags. */
function maskArguments(text: string): string {
  return text.replace(UUID, '<id>').replace(TIMESTAMP, '<time>').replace(HEX_ID, '<id>')
    .replace(NUMBER, '#').replace(FLAG, '$1<flag>')
}

/**
 * A tool result with what changes between two runs of the same command masked: ids, timestamps,
 * durations, long numbers. Counts and percentages stay, so a poll whose progress moves is a change.
 */
function maskResult(text: string): string {
  return text.replace(UUID, '<id>').replace(TIMESTAMP, '<time>').replace(HEX_ID, '<id>')
    .replace(DURATION, '<duration>').replace(LONG_NUMBER, '<n>')
}

// A tool saying its work is not over yet: a status field or a sentence, in English or Chinese.
// A bare "pending" or "running" counts only as a field's value (after a tab, `|`, `:` or `=`): "3 pending"
// in a test summary is not a job waiting.
const STILL_RUNNING = /\b(?:in[ _-]progress|queued|still (?:running|pending|waiting|in progress|building|processing|working)|not (?:yet )?(?:finished|complete|completed|done|ready))\b|(?:^|[\t|:=])[ "']*(?:running|pending|queued|waiting|starting|building)\b|仍在运行|正在运行|运行中|进行中|排队中|等待中|尚未完成|还没有?完成/im

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

/** The identity of a step, or '' when it has neither text nor tool calls. */
export function stepSignature(step: StepObservation): string {
  if (step.toolCalls.length > 0) return step.toolCalls.map(toolSignature).join('\n')
  return step.text.trim().toLowerCase().replace(/\s+/g, ' ').replace(FILLER_OPENING, '').slice(0, SIGNIFICANT_TEXT_CHARS)
}

interface StepEntry {
  readonly exact: string
  readonly masked: string
  /** Hash of the masked results of this step's tool calls, once the next step brought them. */
  results?: number
  /** Whether those results said the work is still going on. */
  waiting?: boolean
}

export class StepJudge {
  private readonly config: DetectorConfig
  private recent: StepEntry[] = []

  constructor(config?: Partial<DetectorConfig>) {
    this.config = resolveDetectorConfig(config)
  }

  observe(step: StepObservation): StepVerdict | undefined {
    const last = this.recent[this.recent.length - 1]
    if (step.previousResults !== undefined && last !== undefined && last.results === undefined) {
      const texts = step.previousResults.map(resultEdges)
      last.results = hash(texts.map(maskResult).join('\u0000'))
      last.waiting = texts.some((text) => STILL_RUNNING.test(text))
    }
    const exact = stepSignature(step)
    if (exact === '') return undefined
    const { maxRepeatedSteps, maxAlternatingSteps, maxStepCycleLength } = this.config
    this.recent.push({ exact, masked: maskArguments(exact) })
    const keep = Math.max(maxRepeatedSteps, maxAlternatingSteps, 2 * maxStepCycleLength)
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
    // Results known for every step but the last (whose results come with the next step).
    const known = run.slice(0, -1).every((entry) => entry.results !== undefined)
    for (let i = 0; i < span - 1; i++) {
      const entry = run[i]
      if (entry.waiting) return false
      const earlier = run[i - period]
      if (i >= period && entry.results !== undefined && earlier.results !== undefined && entry.results !== earlier.results) return false
    }
    // A masked repeat (arguments differ in numbers, ids or flags) needs the results to show nothing changed.
    return exact || (known && span - 1 > period)
  }
}
