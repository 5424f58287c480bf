/**
 * The crops of one session: runs of identical completed steps left out of every request after the first
 * step of the run (the anchor), so the repeated steps stop serving the model as an example. A step is an
 * assistant message together with the tool results of its calls, so a crop removes whole groups and the
 * request keeps every tool call paired with its result. What lies between the repeated steps (notices,
 * the user's messages, steps that differ) stays. Crops are message ids, recorded durably by the plugin
 * and read back on resume, so every later request (and a resumed session's) is built the same way and
 * its prefix up to the first cropped message never changes. The log itself is never touched.
 * See docs/continuation-and-crop.md#crop-repeated-steps.
 */
import { createHash } from 'node:crypto'
import type { Message } from '@deepseek-ai/dsh-llm'

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
      anchorId: streak[0]!.assistant.id,
      steps: fresh.length,
      messageIds: fresh.flatMap((group) => [group.assistant.id, ...group.results.map((result) => result.id)]),
    }
  }

  private keyOf(group: StepGroup): string {
    const cached = this.keys.get(group.assistant)
    if (cached !== undefined) return cached
    const key = createHash('sha256').update(stepIdentity(group)).digest('hex')
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
    const message = messages[i]!
    if (message.role === 'assistant') {
      if (message.content.length === 0) continue
      const calls = message.content.filter((block: any) => block.type === 'tool-call') as Array<{ id: string }>
      yield { assistant: message, results: calls.flatMap((call) => results.get(call.id) ?? []) }
      continue
    }
    for (const block of message.content as Array<{ type: string; toolCallId?: string }>) {
      if (block.type === 'tool-result' && block.toolCallId !== undefined) results.set(block.toolCallId, message)
    }
  }
}

/**
 * What makes two steps the same: their tool calls with arguments and results when they called tools (a
 * repeated call whose result changed is progress, not a loop, so it is never cropped); else their reply
 * text; else their reasoning. Text is compared trimmed, lower-cased, white space collapsed.
 */
function stepIdentity(group: StepGroup): string {
  const content = group.assistant.content as Array<{ type: string; text?: string; name?: string; arguments?: string; id?: string }>
  const calls = content.filter((block) => block.type === 'tool-call')
  if (calls.length > 0) {
    // A result's own content and outcome, not its envelope: the call id differs on every call.
    const resultOf = (id: string | undefined) => {
      for (const result of group.results) {
        for (const block of result.content as Array<{ toolCallId?: string; content?: unknown; isError?: boolean }>) {
          if (block.toolCallId === id) return [block.content, block.isError === true]
        }
      }
      return null
    }
    return JSON.stringify(['tools', calls.map((call) => [call.name, call.arguments, resultOf(call.id)])])
  }
  const text = normalized(content, 'text')
  return text !== '' ? JSON.stringify(['text', text]) : JSON.stringify(['reasoning', normalized(content, 'reasoning')])
}

function normalized(content: Array<{ type: string; text?: string }>, type: string): string {
  return content.filter((block) => block.type === type).map((block) => block.text ?? '').join('\n').trim().toLowerCase().replace(/\s+/g, ' ')
}
