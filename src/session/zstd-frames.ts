/**
 * Incremental decoder for a concatenation of independent Zstandard frames, the
 * physical form of DSH's `session.jsonl.zstd` (a header frame, then one frame
 * per write batch). Node's own zstd stops after the first frame; fzstd does the
 * decoding, while this module walks the frame and block headers itself so that
 * (1) damage is reported at the byte offset of the frame it lies in, (2) a
 * damaged header cannot make the decoder allocate a huge window, (3) each
 * frame gets a fresh decoder, so everything before a bad frame is kept, and
 * (4) small frames decode with a window about the size of their own output.
 * That last point is what makes DSH logs fast to read: Node writes every
 * batch frame with a 2 MiB window and no content size, and fzstd allocates
 * (and shifts) the declared window per frame, about 1 ms a frame; a frame
 * cannot refer back past its own start, so any window >= its output decodes
 * it identically. Frames above {@link BUFFERED_FRAME_LIMIT} stream as declared.
 * It does not verify frame checksums (fzstd does not); garbage that decodes is
 * caught one level up, as malformed JSON lines.
 */
import { Decompress, decompress } from 'fzstd'

/** Little-endian magic of a Zstandard frame (bytes 28 B5 2F FD). */
const FRAME_MAGIC = 0xfd2fb528
/** Skippable frames carry 0x184D2A50..0x184D2A5F; their content is ignored. */
const SKIPPABLE_MASK = 0xfffffff0
const SKIPPABLE_MAGIC = 0x184d2a50
/** The format's block size cap (RFC 8878 §3.1.1.2.4). */
const MAX_BLOCK_SIZE = 128 * 1024
/**
 * zstd's own default decoder limit (ZSTD_WINDOWLOG_LIMIT_DEFAULT = 27): DSH writes
 * with Node's default level, whose window is far smaller. A larger declared
 * window is a damaged header, and honouring it would allocate up to 2 GiB.
 */
const MAX_WINDOW = 1 << 27
/** Frames up to this many compressed bytes are collected whole and decoded in one call. */
const BUFFERED_FRAME_LIMIT = 4 << 20

/** Whether `bytes` starts with a Zstandard (or skippable) frame magic. */
export function startsWithZstdFrame(bytes: Uint8Array): boolean {
  if (bytes.length < 4) return false
  const magic = readU32(bytes, 0)
  return magic === FRAME_MAGIC || ((magic & SKIPPABLE_MASK) >>> 0) === SKIPPABLE_MAGIC
}

/** Where and why decoding stopped. */
export class ZstdDamage extends Error {
  constructor(readonly kind: 'truncated-frame' | 'corrupt-frame', readonly offset: number, message: string) {
    super(message)
  }
}

type Stage =
  | { kind: 'frame-header' }
  | { kind: 'block-header' }
  | { kind: 'block-body'; remaining: number; last: boolean }
  | { kind: 'checksum' }
  | { kind: 'skip'; remaining: number }

/**
 * Push compressed bytes in any slicing; decoded bytes go to `onData` in order.
 * `push` and `end` throw {@link ZstdDamage}; after that the decoder is spent.
 */
export class ZstdFramesDecoder {
  private stage: Stage = { kind: 'frame-header' }
  /** Header bytes collected across pushes (frame header <= 18, block header 3, checksum 4). */
  private pending: Uint8Array = new Uint8Array(0)
  /** Absolute offset of the next byte to consume. */
  private offset = 0
  private frameStart = 0
  private frameChecksum = false
  /** Set once a frame outgrows {@link BUFFERED_FRAME_LIMIT}: it is then streamed through fzstd. */
  private frame: Decompress | undefined
  /** The current frame's bytes while it is still small enough to decode whole. */
  private frameParts: Uint8Array[] = []
  private frameLength = 0
  /** Upper bound of the current frame's decoded size, summed block by block. */
  private frameOutput = 0
  /** Frames fully decoded so far. */
  frames = 0

  constructor(private readonly onData: (bytes: Uint8Array) => void) {}

  push(chunk: Uint8Array): void {
    let at = 0
    while (at < chunk.length) {
      const stage = this.stage
      if (stage.kind === 'block-body' || stage.kind === 'skip') {
        const take = Math.min(stage.remaining, chunk.length - at)
        if (stage.kind === 'block-body') this.feed(chunk.subarray(at, at + take))
        at += take
        this.offset += take
        stage.remaining -= take
        if (stage.remaining === 0) {
          if (stage.kind === 'skip') this.stage = { kind: 'frame-header' }
          else if (!stage.last) this.stage = { kind: 'block-header' }
          else if (this.frameChecksum) this.stage = { kind: 'checksum' }
          else this.finishFrame()
        }
        continue
      }
      const need = this.headerBytesNeeded()
      const take = Math.min(need - this.pending.length, chunk.length - at)
      this.pending = concat(this.pending, chunk.subarray(at, at + take))
      at += take
      if (this.pending.length < need) continue
      // A frame header's length is only known once its descriptor byte is in.
      if (this.headerBytesNeeded() > this.pending.length) continue
      const header = this.pending
      this.pending = new Uint8Array(0)
      this.consumeHeader(header)
      this.offset += header.length
    }
  }

  /** Call once the input is exhausted. */
  end(): void {
    if (this.stage.kind === 'frame-header' && this.pending.length === 0) return
    // Keep the blocks of the torn frame that are complete: the reader keeps their whole lines.
    try {
      this.streamFrame()
    } catch {
      // Nothing more can be recovered from it; the truncation below is what gets reported.
    }
    throw new ZstdDamage('truncated-frame', this.frameStart,
      `truncated zstd frame at byte ${this.frameStart}: the file ends inside it, at byte ${this.offset + this.pending.length}`)
  }

  private headerBytesNeeded(): number {
    switch (this.stage.kind) {
      case 'block-header': return 3
      case 'checksum': return 4
      default: {
        const header = this.pending
        if (header.length < 5) return 5
        const magic = readU32(header, 0)
        if (((magic & SKIPPABLE_MASK) >>> 0) === SKIPPABLE_MAGIC) return 8
        if (magic !== FRAME_MAGIC) return 5 // rejected by consumeHeader
        const descriptor = header[4]!
        const singleSegment = (descriptor >> 5) & 1
        const dictionaryBytes = [0, 1, 2, 4][descriptor & 3]!
        const contentSizeBytes = [singleSegment, 2, 4, 8][descriptor >> 6]!
        return 5 + (singleSegment ? 0 : 1) + dictionaryBytes + contentSizeBytes
      }
    }
  }

  private consumeHeader(header: Uint8Array): void {
    switch (this.stage.kind) {
      case 'block-header': {
        this.feed(header)
        const raw = header[0]! | (header[1]! << 8) | (header[2]! << 16)
        const last = (raw & 1) === 1
        const type = (raw >> 1) & 3
        const size = raw >>> 3
        if (type === 3) this.corrupt('reserved block type')
        if (size > MAX_BLOCK_SIZE) this.corrupt(`block size ${size} exceeds ${MAX_BLOCK_SIZE}`)
        // Raw and RLE blocks regenerate `size` bytes; a compressed block at most the block size cap.
        this.frameOutput += type === 2 ? MAX_BLOCK_SIZE : size
        // An RLE block stores one byte however many it regenerates.
        const stored = type === 1 ? 1 : size
        if (stored === 0) this.afterBlock(last)
        else this.stage = { kind: 'block-body', remaining: stored, last }
        return
      }
      case 'checksum':
        this.feed(header)
        this.finishFrame()
        return
      default: {
        this.frameStart = this.offset
        const magic = readU32(header, 0)
        if (((magic & SKIPPABLE_MASK) >>> 0) === SKIPPABLE_MAGIC) {
          this.stage = { kind: 'skip', remaining: readU32(header, 4) }
          return
        }
        if (magic !== FRAME_MAGIC) this.corrupt('no zstd frame starts here')
        const descriptor = header[4]!
        if (descriptor & 8) this.corrupt('reserved frame header bit set')
        if ((descriptor & 3) !== 0) this.corrupt('frame needs a dictionary')
        if (!((descriptor >> 5) & 1)) {
          const windowDescriptor = header[5]!
          const base = 2 ** (10 + (windowDescriptor >> 3))
          const window = base + (base / 8) * (windowDescriptor & 7)
          if (window > MAX_WINDOW) this.corrupt(`window size ${window} exceeds ${MAX_WINDOW}`)
        } else if (header.length > 5 && frameContentSize(header, descriptor) > MAX_WINDOW) {
          this.corrupt(`single-segment frame of ${frameContentSize(header, descriptor)} bytes exceeds ${MAX_WINDOW}`)
        }
        this.frameChecksum = ((descriptor >> 2) & 1) === 1
        this.frame = undefined
        this.frameParts = []
        this.frameLength = 0
        this.frameOutput = 0
        this.feed(header)
        this.stage = { kind: 'block-header' }
      }
    }
  }

  private afterBlock(last: boolean): void {
    if (!last) this.stage = { kind: 'block-header' }
    else if (this.frameChecksum) this.stage = { kind: 'checksum' }
    else this.finishFrame()
  }

  private finishFrame(): void {
    try {
      if (this.frame !== undefined) this.frame.push(new Uint8Array(0), true)
      else {
        const decoded = decodeWhole(joinParts(this.frameParts, this.frameLength), this.frameOutput)
        if (decoded.length > 0) this.onData(decoded)
      }
    } catch (error) {
      this.corrupt(describe(error))
    }
    this.frame = undefined
    this.frameParts = []
    this.frames++
    this.stage = { kind: 'frame-header' }
  }

  private feed(bytes: Uint8Array): void {
    if (this.frame === undefined) {
      // Input chunks are reused by the caller's stream: keep copies.
      this.frameParts.push(bytes.slice())
      this.frameLength += bytes.length
      if (this.frameLength > BUFFERED_FRAME_LIMIT) this.streamFrame()
      return
    }
    try {
      this.frame.push(bytes)
    } catch (error) {
      this.corrupt(describe(error))
    }
  }

  /** Switches the current frame to fzstd's streaming decoder, feeding it what was collected so far. */
  private streamFrame(): void {
    if (this.frame !== undefined) return
    this.frame = new Decompress((data) => { if (data.length > 0) this.onData(data) })
    const parts = this.frameParts
    this.frameParts = []
    for (const part of parts) this.feed(part)
  }

  private corrupt(why: string): never {
    throw new ZstdDamage('corrupt-frame', this.frameStart, `corrupt zstd frame at byte ${this.frameStart}: ${why}`)
  }
}

/**
 * Decodes one whole frame with the smallest window that is safe. A frame
 * cannot refer back past its own start, so a window at least as large as its
 * output decodes it identically. `bound` is a safe upper bound of the output
 * (compressed blocks counted at the 128 KiB cap); since JSONL batches compress
 * about 4:1, a window of 4× the frame is tried first. A too-small window is
 * detected, never silent: fzstd then fills a whole block buffer (output >= the
 * window) or throws, and the frame is decoded again with the safe bound.
 */
function decodeWhole(frame: Uint8Array, bound: number): Uint8Array {
  if ((frame[4]! >> 5) & 1) return decompress(frame) // single segment: the window is the content size already
  const declared = frame[5]!
  const declaredSize = 2 ** (10 + (declared >> 3)) * (1 + (declared & 7) / 8)
  const guess = windowExponent(Math.max(1024, frame.length * 4))
  if (2 ** (10 + guess) < Math.min(bound, declaredSize)) {
    frame[5] = guess << 3
    try {
      const decoded = decompress(frame)
      if (decoded.length < 2 ** (10 + guess)) return decoded
    } catch {
      // Too small a window for this frame; the safe one below decides whether it is damaged.
    }
  }
  const safe = windowExponent(bound)
  frame[5] = 2 ** (10 + safe) < declaredSize ? safe << 3 : declared
  return decompress(frame)
}

/** The window-descriptor exponent of the smallest power-of-two window >= `bytes` (at least 1 KiB). */
function windowExponent(bytes: number): number {
  return Math.max(0, Math.ceil(Math.log2(Math.max(bytes, 1))) - 10)
}

function joinParts(parts: Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1) return parts[0]!
  const out = new Uint8Array(length)
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

function frameContentSize(header: Uint8Array, descriptor: number): number {
  const bytes = [1, 2, 4, 8][descriptor >> 6]!
  const start = 5 + [0, 1, 2, 4][descriptor & 3]!
  let size = 0
  for (let i = bytes - 1; i >= 0; i--) size = size * 256 + header[start + i]!
  return bytes === 2 ? size + 256 : size
}

function readU32(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b.slice()
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
