// Cross-step repeat: the agent takes the same step again and again (same words, same tool call), or
// swings between two steps (A-B-A-B...). A step's identity is its normalised visible text (trimmed,
// lower-cased, white space collapsed, a leading "let me / I'll / I will / let's" dropped, first 200
// chars: models reword the filler but not the substance) plus each tool call's name and key-sorted
// arguments. Steps with neither text nor tool calls carry no identity and are ignored. After a report
// the history restarts, so the same loop is reported again only after another full run.

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
}

const FILLER_OPENING = /^(?:let me|i'll|i’ll|i will|let's|let’s)\s+/
const SIGNIFICANT_TEXT_CHARS = 200

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
  const text = step.text.trim().toLowerCase().replace(/\s+/g, ' ').replace(FILLER_OPENING, '')
    .slice(0, SIGNIFICANT_TEXT_CHARS)
  if (text === '' && step.toolCalls.length === 0) return ''
  return [text, ...step.toolCalls.map(toolSignature)].join('\n')
}

export class StepJudge {
  private readonly config: DetectorConfig
  private recent: string[] = []

  constructor(config?: Partial<DetectorConfig>) {
    this.config = resolveDetectorConfig(config)
  }

  observe(step: StepObservation): StepVerdict | undefined {
    const signature = stepSignature(step)
    if (signature === '') return undefined
    const { maxRepeatedSteps, maxAlternatingSteps } = this.config
    this.recent.push(signature)
    const keep = Math.max(maxRepeatedSteps, maxAlternatingSteps)
    if (this.recent.length > keep) this.recent.splice(0, this.recent.length - keep)
    const last = this.recent.length - 1
    let sameRun = 1
    while (sameRun <= last && this.recent[last - sameRun] === signature) sameRun++
    if (maxRepeatedSteps > 0 && sameRun >= maxRepeatedSteps) {
      this.recent = []
      return 'repeated-step'
    }
    let alternatingRun = 1
    while (alternatingRun <= last) {
      const index = last - alternatingRun
      const twoBack = this.recent[index + 2]
      if (this.recent[index] === this.recent[index + 1]) break
      if (twoBack !== undefined && this.recent[index] !== twoBack) break
      alternatingRun++
    }
    if (maxAlternatingSteps > 0 && alternatingRun >= maxAlternatingSteps) {
      this.recent = []
      return 'alternating-steps'
    }
    return undefined
  }
}
