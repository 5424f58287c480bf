/**
 * Rebuilds one model call from its recorded stream: deltas with their original
 * boundaries, per-side character counts (UTF-16, as the detector counts), tool
 * calls and the finish reason. Fed chunk by chunk (rc.8 `assistant/chunk`, v4
 * `{type:'chunk'}` stream records) or by packed runs (`*-chunks` rows), which
 * expand to exactly the deltas they were packed from.
 */
import { isMapping } from '../mapping.ts'
import { readTrimMarker } from '../trim-marker.ts'
import type { Delta, DeltaSide, FinishReason, PluginEvent, SessionCall, ToolCall } from './types.ts'

interface OpenToolCall {
  id: string
  name: string
  arguments: string
}

export class CallBuilder {
  readonly deltas: Delta[] = []
  readonly recorded: PluginEvent[] = []
  readonly notices: string[] = []
  private reasoningChars = 0
  private textChars = 0
  private toolChars = 0
  private trimmed: SessionCall['trimmed']
  private readonly toolCalls: ToolCall[] = []
  /** Tool-call blocks by stream index, until their `block-end` gives the final call. */
  private readonly openTools = new Map<unknown, OpenToolCall>()
  finish: FinishReason | undefined
  hasMessage = false
  /** Why part of this call may be missing (a skipped stretch of a damaged log). */
  damaged: string | undefined

  constructor(readonly turn: number, readonly step: number, readonly attempt: number, private readonly previousResults: unknown[]) {}

  /**
   * Applies one stream chunk. Returns false for a chunk type this reader does
   * not know (a newer DSH or a plugin's own chunk), which the caller counts.
   */
  chunk(chunk: Record<string, unknown>): boolean {
    switch (chunk.type) {
      case 'text-delta':
        this.push('text', chunk.text, chunk.index)
        return true
      case 'reasoning-delta':
        this.push('reasoning', chunk.text, chunk.index)
        return true
      case 'tool-call-delta':
        this.toolDelta(chunk.index, chunk.id, chunk.name, chunk.argumentsDelta)
        return true
      case 'block-end':
        if (isMapping(chunk.block) && chunk.block.type === 'tool-call') this.closeTool(chunk.index, chunk.block)
        this.trimmedBlock(chunk.block)
        return true
      case 'finish':
        this.finish = chunk.reason as FinishReason | undefined
        return true
      case 'block-start':
      case 'usage':
        return true
      default:
        return false
    }
  }

  /** A packed run of text or reasoning deltas, streamed into block `index`. */
  run(side: 'text' | 'reasoning', index: unknown, texts: readonly unknown[]): void {
    for (const text of texts) this.push(side, text, index)
  }

  /** A packed run of one tool call's argument deltas. */
  toolRun(index: unknown, id: unknown, name: unknown, args: readonly unknown[]): void {
    for (const delta of args) this.toolDelta(index, id, name, delta)
  }

  build(): SessionCall {
    // A block the stream never closed (crash, truncated log) still streamed its arguments.
    for (const open of this.openTools.values()) this.toolCalls.push(open)
    this.openTools.clear()
    return {
      turn: this.turn,
      step: this.step,
      attempt: this.attempt,
      deltas: this.deltas,
      reasoningChars: this.reasoningChars,
      textChars: this.textChars,
      toolChars: this.toolChars,
      toolCalls: this.toolCalls,
      finish: this.finish,
      hasMessage: this.hasMessage,
      recorded: this.recorded,
      ...(this.damaged === undefined ? {} : { damaged: this.damaged }),
      trimmed: this.trimmed,
      notices: this.notices,
      previousResults: this.previousResults,
    }
  }

  /** A closing block the loop-breaker trimmed ends with its marker. */
  private trimmedBlock(block: unknown): void {
    if (typeof block !== 'object' || block === null) return
    const { type, text, arguments: args } = block as Record<string, unknown>
    const side: DeltaSide | undefined = type === 'tool-call' ? 'tool' : type === 'reasoning' || type === 'text' ? type : undefined
    const content = side === 'tool' ? args : text
    if (side === undefined || typeof content !== 'string') return
    const removedChars = readTrimMarker(content)
    if (removedChars !== undefined) this.trimmed = { side, removedChars }
  }

  private push(side: DeltaSide, text: unknown, block: unknown): void {
    if (typeof text !== 'string') return
    this.deltas.push(typeof block === 'number' ? { side, text, block } : { side, text })
    if (side === 'text') this.textChars += text.length
    else if (side === 'reasoning') this.reasoningChars += text.length
    else this.toolChars += text.length
  }

  private toolDelta(index: unknown, id: unknown, name: unknown, delta: unknown): void {
    if (typeof delta !== 'string') return
    this.push('tool', delta, index)
    let open = this.openTools.get(index)
    if (open === undefined) {
      open = { id: typeof id === 'string' ? id : '', name: '', arguments: '' }
      this.openTools.set(index, open)
    }
    if (typeof name === 'string' && name !== '') open.name = name
    open.arguments += delta
  }

  private closeTool(index: unknown, block: Record<string, unknown>): void {
    const open = this.openTools.get(index)
    this.openTools.delete(index)
    this.toolCalls.push({
      id: typeof block.id === 'string' ? block.id : open?.id ?? '',
      name: typeof block.name === 'string' ? block.name : open?.name ?? '',
      arguments: typeof block.arguments === 'string' ? block.arguments : open?.arguments ?? '',
    })
  }
}
