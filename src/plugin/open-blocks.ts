/**
 * The blocks one model call has open, kept with just enough to close each of them legally if the call is
 * cut: the text (or tool-call arguments) streamed into it so far, and where that text sits in its side's
 * stream, so a trip's `loopStart` (an offset in the side's text, across every block of that side) maps to
 * a position inside the block. It never changes a chunk; it only reads them.
 */
import type { StreamChunk } from '@deepseek-ai/dsh-llm'
import type { Side } from '../detector/index.ts'

/** A run of a block's text that was streamed contiguously in its side's text. */
interface Segment {
  sideStart: number
  length: number
}

interface OpenBlock {
  index: number
  blockType: string
  side: Side | undefined
  /**
   * The block's deltas so far, joined only when a cut closes the block: one `+=` per delta would build
   * a rope of hundreds of thousands of nodes on a long answer, each one more object for the collector.
   */
  parts: string[]
  length: number
  toolCallId?: string
  toolName?: string
  /** One entry per interleaving switch; a block streamed alone has exactly one. */
  segments: Segment[]
}

/** Renders the marker that ends a trimmed block (`removedChars` may be 0 for a tool call cut short). */
export type TrimMarker = (removedChars: number) => string

const SIDE_OF_BLOCK: Record<string, Side> = { reasoning: 'reasoning', text: 'text', 'tool-call': 'tool' }

/** The side a delta chunk feeds, or undefined for any other chunk. */
export function sideOfDelta(chunk: StreamChunk): Side | undefined {
  switch (chunk.type) {
    case 'reasoning-delta': return 'reasoning'
    case 'text-delta': return 'text'
    case 'tool-call-delta': return 'tool'
    default: return undefined
  }
}

/** The text a delta chunk adds to its side (a tool call's arguments delta); '' for any other chunk. */
export function deltaText(chunk: StreamChunk): string {
  switch (chunk.type) {
    case 'reasoning-delta':
    case 'text-delta': return chunk.text
    case 'tool-call-delta': return chunk.argumentsDelta
    default: return ''
  }
}

export class OpenBlocks {
  private readonly open = new Map<number, OpenBlock>()
  private readonly sideLength: Record<Side, number> = { reasoning: 0, text: 0, tool: 0 }

  /**
   * Track one chunk the call passed through (call it for every chunk, in stream order); `side` and
   * `text` are `sideOfDelta(chunk)` and `deltaText(chunk)`, computed once by the caller.
   */
  observe(chunk: StreamChunk, side: Side | undefined, text: string): void {
    switch (chunk.type) {
      case 'block-start':
        this.open.set(chunk.index, {
          index: chunk.index,
          blockType: chunk.blockType,
          side: SIDE_OF_BLOCK[chunk.blockType],
          parts: [],
          length: 0,
          segments: [],
        })
        return
      case 'block-end':
        this.open.delete(chunk.index)
        return
      case 'reasoning-delta':
      case 'text-delta':
      case 'tool-call-delta': {
        if (side === undefined) return
        const block = this.open.get(chunk.index)
        const sideStart = this.sideLength[side]
        this.sideLength[side] += text.length
        if (block === undefined) return
        // Providers name the call on its first delta, whose arguments are usually empty.
        if (chunk.type === 'tool-call-delta') {
          block.toolCallId = chunk.id
          if (chunk.name) block.toolName = chunk.name
        }
        if (text.length === 0) return
        block.parts.push(text)
        block.length += text.length
        const last = block.segments[block.segments.length - 1]
        if (last !== undefined && last.sideStart + last.length === sideStart) last.length += text.length
        else block.segments.push({ sideStart, length: text.length })
        return
      }
      default:
        return
    }
  }

  /** True when every open block is of a type this ledger can close (text, reasoning, tool call). */
  closable(): boolean {
    for (const block of this.open.values()) if (block.side === undefined) return false
    return true
  }

  /**
   * The characters of the open blocks on `side` streamed at or after side offset `loopStart`: what a
   * cut that trims from there removes, and so the one count a cut reports (marker, notice, log line,
   * record). Text of that side in blocks already closed was delivered and stays.
   */
  loopChars(side: Side, loopStart: number): number {
    let chars = 0
    for (const block of this.open.values()) if (block.side === side) chars += block.length - keptLength(block.segments, loopStart)
    return chars
  }

  /**
   * The `block-end` chunks that close every open block, in the order the blocks opened. The block on
   * `trimSide` loses its text from side offset `loopStart` on (`loopChars` characters in all), followed by
   * the marker; a tool call always ends with the marker, which keeps its arguments from ever parsing as
   * JSON, so a call cut half-way is recorded as failed and never executed with truncated arguments.
   */
  close(trim: { side: Side; loopStart: number } | undefined, marker: TrimMarker): StreamChunk[] {
    const closing: StreamChunk[] = []
    for (const block of this.open.values()) {
      const keep = trim !== undefined && block.side === trim.side ? keptLength(block.segments, trim.loopStart) : block.length
      const removedChars = block.length - keep
      const trimmed = removedChars > 0 || block.side === 'tool'
      const whole = block.parts.join('')
      const text = trimmed ? whole.slice(0, keep) + marker(removedChars) : whole
      closing.push({ type: 'block-end', index: block.index, block: closedBlock(block, text) } as StreamChunk)
    }
    this.open.clear()
    return closing
  }
}

/** How many of a block's characters were streamed before side offset `loopStart`. */
function keptLength(segments: Segment[], loopStart: number): number {
  let kept = 0
  for (const segment of segments) kept += Math.min(Math.max(loopStart - segment.sideStart, 0), segment.length)
  return kept
}

function closedBlock(block: OpenBlock, text: string) {
  if (block.side === 'tool') {
    return { type: 'tool-call', id: block.toolCallId ?? `call-${block.index}`, name: block.toolName ?? '', arguments: text }
  }
  return { type: block.blockType, text }
}
