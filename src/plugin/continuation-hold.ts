/**
 * The chunks of one model call held back from a tool call's `block-end` whose arguments do not parse until
 * the call's finish. When the finish is `max-tokens` and the plugin continues the call, that tool call is
 * the one the length limit cut: it is closed with the length marker, so it fails validation and never
 * runs with truncated arguments. Any other finish, or a later delta (the call went on, so the limit did not
 * cut that tool call), releases the chunks as they came. Providers end every block right before the
 * finish, so a hold is a few chunks long.
 */
import type { ContentBlock, StreamChunk, ToolCallBlock } from '@deepseek-ai/dsh-llm'

export class ContinuationHold {
  private held: StreamChunk[] | undefined

  /**
   * @param lengthMarker - what ends a cut tool call's arguments when the call is continued (no quote in
   *   it, so they never parse); without one, nothing is ever held.
   */
  constructor(private readonly lengthMarker: string | undefined) {}

  get holding(): boolean {
    return this.held !== undefined
  }

  /** Whether `chunk` is to be held: a hold is on, or begins at this chunk. Then `add` it once observed. */
  holds(chunk: StreamChunk): boolean {
    if (this.held === undefined && this.lengthMarker !== undefined && isUnparsedToolCallEnd(chunk)) this.held = []
    return this.held !== undefined
  }

  add(chunk: StreamChunk): void {
    this.held?.push(chunk)
  }

  /** The held chunks as they came, ending the hold; undefined when there is none. */
  release(): StreamChunk[] | undefined {
    const held = this.held
    this.held = undefined
    return held
  }

  /** The tool call the length limit cut: the last held one whose arguments do not parse. */
  cutToolCall(): ToolCallBlock | undefined {
    const held = this.held ?? []
    for (let i = held.length - 1; i >= 0; i--) {
      const chunk = held[i]
      if (chunk.type === 'block-end' && isUnparsedToolCall(chunk.block)) return chunk.block
    }
    return undefined
  }

  /** The held chunks with `cut`'s arguments ended by the length marker, ending the hold. */
  releaseClosing(cut: ToolCallBlock | undefined): StreamChunk[] {
    const held = this.release() ?? []
    const marker = this.lengthMarker
    if (cut === undefined || marker === undefined) return held
    return held.map((chunk): StreamChunk => chunk.type === 'block-end' && chunk.block === cut
      ? { ...chunk, block: { ...cut, arguments: cut.arguments + marker } }
      : chunk)
  }
}

/** Whether the chunk ends a tool call whose arguments are not JSON (cut by a length limit, or malformed). */
function isUnparsedToolCallEnd(chunk: StreamChunk): boolean {
  return chunk.type === 'block-end' && isUnparsedToolCall(chunk.block)
}

function isUnparsedToolCall(block: ContentBlock): block is ToolCallBlock {
  return block.type === 'tool-call' && !parses(block.arguments)
}

/** rc.8 reads empty arguments as `{}` (dsh-agent-loop `parseArguments`), so they parse too. */
function parses(json: string): boolean {
  if (json === '') return true
  try {
    JSON.parse(json)
    return true
  } catch {
    return false
  }
}
