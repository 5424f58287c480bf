/**
 * What the cross-call and cross-step judges get of a model call that ended by itself, gathered from the
 * call's `block-end`s as they pass and bounded whatever the call's length: the reasoning's tail with its
 * whole length, the head of the visible text that fixes the step's identity, and the tool calls. The
 * judges never see more than this, so a long answer costs the plugin no more memory than a short one.
 */
import type { ContentBlock } from '@deepseek-ai/dsh-llm'
import { STEP_TEXT_NON_WHITESPACE } from '../detector/index.ts'

/** A completed call as the judges see it. */
export interface CompletedCall {
  /** The last `reasoningTailChars` chars of the call's reasoning (all of it when shorter). */
  reasoning: string
  /** The length of the call's whole reasoning. */
  reasoningLength: number
  /** The head of the call's visible text that fixes its StepJudge identity (all of it when shorter). */
  text: string
  toolCalls: Array<{ name: string; arguments: string }>
}

export class CompletedCallCollector {
  /** The call so far; one object for the whole call, complete once its finish arrives. */
  readonly call: CompletedCall = { reasoning: '', reasoningLength: 0, text: '', toolCalls: [] }
  private textHeadComplete = false

  /** @param reasoningTailChars - how much of the reasoning's end to keep (the cross-call judge's window). */
  constructor(private readonly reasoningTailChars: number) {}

  /** Add one block the call ended. */
  collect(block: ContentBlock): void {
    const call = this.call
    if (block.type === 'reasoning') {
      call.reasoningLength += block.text.length
      call.reasoning = appendTail(call.reasoning, block.text, this.reasoningTailChars)
    } else if (block.type === 'text') {
      if (this.textHeadComplete) return
      const joined = call.text + block.text
      const end = stepTextEnd(joined)
      this.textHeadComplete = end !== undefined
      // The StepJudge collapses white space runs anyway; collapsing them here bounds the head.
      call.text = (end === undefined ? joined : joined.slice(0, end)).replace(WHITE_SPACE_RUN, ' ')
    } else if (block.type === 'tool-call') {
      call.toolCalls.push({ name: block.name, arguments: block.arguments })
    }
  }
}

const NON_WHITE_SPACE = /\S/g
const WHITE_SPACE_RUN = /\s+/g

/** Where the head of `text` that fixes its step identity ends, or undefined when all of it is needed. */
function stepTextEnd(text: string): number | undefined {
  NON_WHITE_SPACE.lastIndex = 0
  for (let seen = 1; NON_WHITE_SPACE.exec(text) !== null; seen++) {
    if (seen === STEP_TEXT_NON_WHITESPACE) return NON_WHITE_SPACE.lastIndex
  }
  return undefined
}

/** The last `chars` chars of `kept + more`, without concatenating a long `more` first. */
function appendTail(kept: string, more: string, chars: number): string {
  if (more.length >= chars) return detached(more.slice(more.length - chars))
  const joined = kept + more
  return joined.length <= chars ? joined : detached(joined.slice(joined.length - chars))
}

/**
 * A copy of `text` that does not pin the string it was sliced from (V8 slices share their parent's
 * storage, which would keep the whole reasoning alive): slicing a concatenation flattens it first.
 */
function detached(text: string): string {
  return ` ${text}`.slice(1)
}
