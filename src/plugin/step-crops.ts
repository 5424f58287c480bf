/**
 * The crops of one session: runs of identical completed steps left out of every request after the first
 * step of the run (the anchor), so the repeated steps stop serving the model as an example. Identical is
 * the detector's strict step identity (`stepContentIdentity`, beside the step judge's). A step is an
 * assistant message together with the tool results of its calls, so a crop removes whole groups and the
 * request keeps every tool call paired with its result. What lies between the repeated steps (notices,
 * the user's messages, steps that differ) stays. Crops are message ids, recorded durably by the plugin
 * and read back on resume, so every later request (and a resumed session's) is built the same way and
 * its prefix up to the first cropped message never changes. The log itself is never touched.
 * See docs/continuation-and-crop.md#crop-repeated-steps.
 */
import { createHash } from 'node:crypto'
import type { ContentBlock, Message, ToolCallBlock } from '@deepseek-ai/dsh-llm'
import { stepContentIdentity } from '../detector/index.ts'
import type { StepContent } from '../detector/index.ts'

export interface CropSettings {
  /** Identical completed steps in a row that make a streak (the anchor included). */
  cropAfter: number
  /** At most this many steps of one streak are left out by one crop (the most recent ones). */
  cropMaxSteps: number
}

/** One new crop: the streak's identity, its anchor, and the messages every later request leaves out. */
export interface FoundCrop {
  /** First 16 hex digits of the SHA-256 of the steps' shared identity. */
  key: string
  anchorId: string
  /** The steps left out by this crop. */
  steps: number
  /** Their assistant messages and tool results, in log order. */
  messageIds: string[]
}

interface StepGroup {
  assistant: Message
  results: Message[]
}

export class StepCrops {
  private readonly removed = new Set<string>()
  /** Step identities by assistant message: messages are frozen and shared by every request, so this is stable. */
  private readonly keys = new WeakMap<object, string>()

  /** Add the message ids of a crop (a new one, or one read back from the log). */
  add(messageIds: readonly string[]): void {
    for (const id of messageIds) this.removed.add(id)
  }

  /** The request's messages without the cropped ones, or `undefined` when no crop touches them. */
  apply(messages: readonly Message[]): Message[] | undefined {
    if (this.removed.size === 0 || !messages.some((message) => this.removed.has(message.id))) return undefined
    return messages.filter((message) => !this.removed.has(message.id))
  }

  /**
   * A new crop when the request's last steps are a streak of at least `cropAfter` identical steps with
   * members not cropped yet; they are cropped, the streak's first step stays as the anchor. Only the
   * streak's end is read: the walk back stops at the first step that differs.
   */
  detect(messages: readonly Message[], settings: CropSettings): FoundCrop | undefined {
    const streak: StepGroup[] = []
    let key: string | undefined
    for (const group of stepsBackwards(messages)) {
      const groupKey = this.keyOf(group)
      if (key !== undefined && groupKey !== key) break
      key = groupKey
      streak.unshift(group)
    }
    if (key === undefined || streak.length < settings.cropAfter) return undefined
    const fresh = streak.slice(1).slice(-settings.cropMaxSteps).filter((group) => !this.removed.has(group.assistant.id))
    if (fresh.length === 0) return undefined
    return {
      key: key.slice(0, 16),
      anchorId: streak[0].assistant.id,
      steps: fresh.length,
      messageIds: fresh.flatMap((group) => [group.assistant.id, ...group.results.map((result) => result.id)]),
    }
  }

  private keyOf(group: StepGroup): string {
    const cached = this.keys.get(group.assistant)
    if (cached !== undefined) return cached
    const key = createHash('sha256').update(stepContentIdentity(stepContent(group))).digest('hex')
    this.keys.set(group.assistant, key)
    return key
  }
}

/**
 * The completed steps of a request from the last one back: each assistant message with the tool results
 * of its calls (results follow their call, so walking back meets them first).
 */
function* stepsBackwards(messages: readonly Message[]): Generator<StepGroup> {
  const results = new Map<string, Message>()
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]
    if (message.role === 'assistant') {
      if (message.content.length === 0) continue
      const calls = message.content.filter(isToolCall)
      yield { assistant: message, results: calls.flatMap((call) => results.get(call.id) ?? []) }
      continue
    }
    for (const block of message.content) {
      if (block.type === 'tool-result') results.set(block.toolCallId, message)
    }
  }
}

/** What the step put into the conversation, for the detector's strict step identity. */
function stepContent(group: StepGroup): StepContent {
  const content = group.assistant.content
  return {
    reasoning: joinedText(content, 'reasoning'),
    text: joinedText(content, 'text'),
    toolCalls: content.filter(isToolCall).map((call) => ({ name: call.name, arguments: call.arguments, result: resultOf(group.results, call.id) })),
  }
}

function resultOf(results: readonly Message[], callId: string): StepContent['toolCalls'][number]['result'] {
  for (const result of results) {
    for (const block of result.content) {
      if (block.type === 'tool-result' && block.toolCallId === callId) return { content: block.content, isError: block.isError === true }
    }
  }
  return undefined
}

function joinedText(content: readonly ContentBlock[], type: 'text' | 'reasoning'): string {
  const texts: string[] = []
  for (const block of content) if (block.type === type) texts.push(block.text)
  return texts.join('\n')
}

function isToolCall(block: ContentBlock): block is ToolCallBlock {
  return block.type === 'tool-call'
}
