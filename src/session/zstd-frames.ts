/**
 * Incremental decoder for a concatenation of independent Zstandard frames, the
 * physical form of DSH's `session.jsonl.zstd` (a header frame, then one frame
 * per write batch). Node's own zstd stops after the first frame; fzstd does the
 * decoding, while this module walks the frame and block headers itself so that
 * (1) damage is reported with the byte range of the frame it lies in, (2) a
 * damaged header cannot make the decoder allocate a huge window, (3) each
 * frame gets a fresh decoder, so a damaged frame is skipped and every frame
 * after it is still read, and (4) small frames decode with a window about the
 * size of their own output.
 * That last point is what makes DSH logs fast to read: Node writes every
 * batch frame with a 2 MiB window and no content size, and fzstd allocates
 * (and shifts) the declared window per frame, about 1 ms a frame; a frame
 * cannot refer back past its own start, so any window >= its output decodes
 * it identically. Frames above {@link BUFFERED_FRAME_LIMIT} stream as declared.
 *
 * A frame is skipped when it fails to decode or when its content checksum
 * (XXH64, verified here since fzstd does not) does not match; its end is known
 * from its block headers, so reading goes on with the next frame. When the
 * headers themselves are damaged, the next frame is found by searching forward
 * for the frame magic. See docs/tools.md#damaged-logs.
 */
import { Decompress, decompress } from 'fzstd'
import { Xxh64 } from './xxh64.ts'

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

/**
 * Whether `bytes` starts with a Zstandard (or skippable) frame magic: how a session log's encoding is told.
 * @param bytes - the file's first bytes (at least 4 to say yes).
 * @returns true when they begin with a frame magic.
 */
export function startsWithZstdFrame(bytes: Uint8Array): boolean {
  if (bytes.length < 4) return false
  const magic = readU32(bytes, 0)
  return magic === FRAME_MAGIC || ((magic & SKIPPABLE_MASK) >>> 0) === SKIPPABLE_MAGIC
}

/** A stretch of the input that could not be decoded: skipped (or, for `truncated-frame`, the file's end). */
export interface ZstdDamage {
  kind: 'truncated-frame' | 'corrupt-frame' | 'checksum-mismatch'
  /** Byte offset of the damaged frame's first byte. */
  offset: number
  /** Byte offset just past the skipped bytes: the next frame's start, or the file's end. */
  end: number
  /** True when the next frame was found by searching for the frame magic (the headers could not be followed). */
  resynced: boolean
  message: string
}

type Stage =
  | { kind: 'frame-header' }
  | { kind: 'block-header' }
  | { kind: 'block-body'; remaining: number; last: boolean }
  | { kind: 'checksum' }
  | { kind: 'skip'; remaining: number }
  /** Looking for the next frame magic after headers that cannot be followed. */
  | { kind: 'resync' }

/** Damage whose extent is still growing: reported once the next good frame header (or the end) is read. */
interface OpenDamage {
  kind: 'corrupt-frame' | 'checksum-mismatch'
  start: number
  /** Undefined while searching forward for the next frame. */
  end: number | undefined
  why: string
  resynced: boolean
  /** The search for the next frame ran to the end of the file. */
  toFileEnd: boolean
}

/**
 * Push compressed bytes in any slicing; decoded bytes go to `onData` in order,
 * and each skipped stretch goes to `onDamage` before the data that follows it.
 * Neither `push` nor `end` throws on damaged input.
 */
export class ZstdFramesDecoder {
  private stage: Stage = { kind: 'frame-header' }
  /** Header bytes collected across pushes (frame header <= 18, block header 3, checksum 4). */
  private pending: Uint8Array = new Uint8Array(0)
  /** Absolute offset of the next input byte not yet taken (pending header bytes are taken). */
  private offset = 0
  private frameStart = 0
  private frameChecksum = false
  /** Set once a frame outgrows {@link BUFFERED_FRAME_LIMIT}: it is then streamed through fzstd. */
  private frame: Decompress | undefined
  /** Hash of what a streamed frame has output so far (a buffered frame is hashed whole). */
  private frameHash: Xxh64 | undefined
  /** Why a streamed frame failed to decode; its headers are still walked to find its end. */
  private frameFailure: string | undefined
  /** The current frame's bytes while it is still small enough to decode whole. */
  private frameParts: Uint8Array[] = []
  private frameLength = 0
  /** Upper bound of the current frame's decoded size, summed block by block. */
  private frameOutput = 0
  private damage: OpenDamage | undefined
  /** While searching for a magic: the last bytes taken that may begin one. */
  private tail: Uint8Array = new Uint8Array(0)
  /** Frames fully decoded (with a matching checksum when they carry one). */
  frames = 0

  /**
   * A decoder at the start of the input.
   * @param onData - receives the decoded bytes, in order; the buffer may be reused after the call returns,
   * so copy what you keep.
   * @param onDamage - receives each damaged stretch, before the data that follows it.
   */
  constructor(
    private readonly onData: (bytes: Uint8Array) => void,
    private readonly onDamage: (damage: ZstdDamage) => void,
  ) {}

  /**
   * Take the next compressed bytes and decode every frame, or part of a large frame, they complete.
   * @param chunk - the next bytes of the input, in any slicing.
   * @throws only what `onData` or `onDamage` throws; damaged input is reported, never thrown.
   */
  push(chunk: Uint8Array): void {
    let at = 0
    while (at < chunk.length) {
      const stage = this.stage
      if (stage.kind === 'resync') {
        at = this.searchMagic(chunk, at)
        continue
      }
      if (stage.kind === 'block-body' || stage.kind === 'skip') {
        const take = Math.min(stage.remaining, chunk.length - at)
        if (stage.kind === 'block-body') this.feed(chunk.subarray(at, at + take))
        at += take
        this.offset += take
        stage.remaining -= take
        if (stage.remaining === 0) {
          if (stage.kind === 'skip') this.stage = { kind: 'frame-header' }
          else this.afterBlock(stage.last)
        }
        continue
      }
      const need = this.headerBytesNeeded()
      const take = Math.min(need - this.pending.length, chunk.length - at)
      this.pending = concat(this.pending, chunk.subarray(at, at + take))
      at += take
      this.offset += take
      if (this.pending.length < need) continue
      // A frame header's length is only known once its descriptor byte is in.
      if (this.headerBytesNeeded() > this.pending.length) continue
      const header = this.pending
      this.pending = new Uint8Array(0)
      this.consumeHeader(header, this.offset - header.length)
    }
  }

  /**
   * Call once the input is exhausted: reports the damage still open, and a `truncated-frame` when the
   * input ends inside a frame (after passing on the whole blocks of that frame that could be decoded).
   * @throws only what `onData` or `onDamage` throws.
   */
  end(): void {
    if (this.stage.kind === 'resync') {
      this.damage!.end = this.offset
      this.damage!.toFileEnd = true
      this.reportDamage()
      return
    }
    if (this.stage.kind !== 'frame-header' && this.stage.kind !== 'skip' && this.frame === undefined) {
      // A damaged block size can run the walk past the end of the file over frames that are intact.
      const bytes = joinParts(this.frameParts, this.frameLength)
      if (findMagic(bytes.subarray(1)) >= 0) {
        this.openDamage('corrupt-frame', 'its block headers run past the end of the file', bytes)
        this.end()
        return
      }
    }
    this.reportDamage()
    if (this.stage.kind === 'frame-header' && this.pending.length === 0) return
    const start = this.stage.kind === 'frame-header' ? this.offset - this.pending.length : this.frameStart
    // Keep the blocks of the torn frame that are complete: the reader keeps their whole lines.
    if (this.stage.kind !== 'frame-header' && this.frameFailure === undefined) {
      try {
        this.streamFrame()
      } catch {
        // Nothing more can be recovered from it; the truncation below is what gets reported.
      }
    }
    this.onDamage({
      kind: 'truncated-frame', offset: start, end: this.offset, resynced: false,
      message: `truncated zstd frame at byte ${start}: the file ends inside it, at byte ${this.offset}`,
    })
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
        const descriptor = header[4]
        const singleSegment = (descriptor >> 5) & 1
        const dictionaryBytes = [0, 1, 2, 4][descriptor & 3]
        const contentSizeBytes = [singleSegment, 2, 4, 8][descriptor >> 6]
        return 5 + (singleSegment ? 0 : 1) + dictionaryBytes + contentSizeBytes
      }
    }
  }

  /** `header` starts at byte `start` and has been taken from the input. */
  private consumeHeader(header: Uint8Array, start: number): void {
    switch (this.stage.kind) {
      case 'block-header': {
        this.feed(header)
        const raw = header[0] | (header[1] << 8) | (header[2] << 16)
        const last = (raw & 1) === 1
        const type = (raw >> 1) & 3
        const size = raw >>> 3
        if (type === 3) return this.unfollowable('reserved block type', header)
        if (size > MAX_BLOCK_SIZE) return this.unfollowable(`block size ${size} exceeds ${MAX_BLOCK_SIZE}`, header)
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
        this.finishFrame(readU32(header, 0))
        return
      default: {
        this.frameStart = start
        const magic = readU32(header, 0)
        if (((magic & SKIPPABLE_MASK) >>> 0) === SKIPPABLE_MAGIC) {
          this.reportDamage()
          this.stage = { kind: 'skip', remaining: readU32(header, 4) }
          return
        }
        const why = frameHeaderFault(header, magic)
        if (why !== undefined) return this.unfollowable(why, header.subarray(1))
        this.reportDamage()
        const descriptor = header[4]
        this.frameChecksum = ((descriptor >> 2) & 1) === 1
        this.frame = undefined
        this.frameHash = undefined
        this.frameFailure = undefined
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
    else this.finishFrame(undefined)
  }

  /** The frame's last byte is in: decode it (or finish streaming it) and check its content checksum. */
  private finishFrame(checksum: number | undefined): void {
    this.stage = { kind: 'frame-header' }
    let failure = this.frameFailure
    let decoded: Uint8Array | undefined
    let actual: number | undefined
    const frame = this.frame
    const streamed = frame !== undefined
    const bytes = streamed ? undefined : joinParts(this.frameParts, this.frameLength)
    const window = bytes?.[5] ?? 0
    if (failure === undefined) {
      try {
        if (frame !== undefined) frame.push(new Uint8Array(0), true)
        else if (bytes !== undefined) decoded = decodeWhole(bytes, this.frameOutput)
      } catch (error) {
        failure = describe(error)
      } finally {
        // decodeWhole narrows the declared window in place; a search of these bytes needs them as read.
        if (bytes !== undefined && bytes.length > 5) bytes[5] = window
      }
    }
    if (failure === undefined && checksum !== undefined) {
      const hash = this.frameHash ?? new Xxh64()
      if (decoded !== undefined) hash.update(decoded)
      actual = hash.digest()[1]
      if (actual === checksum) actual = undefined
    }
    this.frame = undefined
    this.frameHash = undefined
    this.frameParts = []
    if (failure !== undefined) {
      this.openDamage('corrupt-frame', `${failure}${streamed ? ' (a frame streamed in parts: what it yielded before the failure was passed on)' : ''}`, bytes)
      return
    }
    if (actual !== undefined && checksum !== undefined) {
      const stored = checksum.toString(16).padStart(8, '0')
      const computed = actual.toString(16).padStart(8, '0')
      this.openDamage('checksum-mismatch', `content checksum mismatch (stored ${stored}, content decodes to ${computed})${streamed ? ' (a frame streamed in parts: its content was already passed on)' : ''}`, bytes)
      return
    }
    if (decoded !== undefined && decoded.length > 0) this.onData(decoded)
    this.frames++
  }

  /**
   * A frame whose end is known from its headers but whose content is not usable. `bytes` (a buffered
   * frame's own bytes) are searched for a frame magic first: a damaged block size can make the walk
   * swallow the frames after it, and these must still be read.
   */
  private openDamage(kind: OpenDamage['kind'], why: string, bytes: Uint8Array | undefined): void {
    this.reportDamage()
    this.damage = { kind, start: this.frameStart, end: this.offset, why, resynced: false, toFileEnd: false }
    if (bytes !== undefined) this.rereadFrom(bytes)
  }

  /**
   * Headers that cannot be followed: the frame's end is unknown, so search for the next frame magic,
   * in the frame's own buffered bytes, then in `taken` (bytes already taken that may hold its beginning)
   * and what follows. Landing on garbage right after a skipped frame (its block sizes were wrong)
   * extends that damage rather than adding one.
   */
  private unfollowable(why: string, taken: Uint8Array): void {
    const open = this.damage
    if (open !== undefined && open.end === this.frameStart) {
      open.end = undefined
      open.resynced = true
      open.why += `, and no frame starts where its headers end (${why})`
    } else {
      this.reportDamage()
      this.damage = { kind: 'corrupt-frame', start: this.frameStart, end: undefined, why, resynced: true, toFileEnd: false }
    }
    const buffered = this.frame === undefined && this.frameParts.length > 0 ? joinParts(this.frameParts, this.frameLength) : undefined
    this.frame = undefined
    this.frameHash = undefined
    this.frameParts = []
    this.tail = taken.slice()
    this.stage = { kind: 'resync' }
    if (buffered !== undefined) this.rereadFrom(buffered)
  }

  /**
   * When the damaged frame's bytes (which start at `frameStart` and end where the input now is) hold a
   * frame magic after their first byte, that is where the next frame starts: they are read again from
   * there, and the damage ends there.
   */
  private rereadFrom(bytes: Uint8Array): void {
    const found = findMagic(bytes.subarray(1))
    if (found < 0) return
    const damage = this.damage!
    damage.end = this.frameStart + 1 + found
    damage.resynced = true
    this.tail = new Uint8Array(0)
    this.pending = new Uint8Array(0)
    this.stage = { kind: 'frame-header' }
    this.offset = damage.end
    this.push(bytes.subarray(1 + found))
  }

  /** Searches `chunk` from `at` (and the tail before it) for the frame magic; returns where to go on. */
  private searchMagic(chunk: Uint8Array, at: number): number {
    const tail = this.tail
    const view = tail.length === 0 ? chunk.subarray(at) : concat(tail, chunk.subarray(at))
    const found = findMagic(view)
    if (found < 0) {
      this.tail = view.slice(Math.max(0, view.length - 3))
      this.offset += chunk.length - at
      return chunk.length
    }
    this.damage!.end = this.offset - tail.length + found
    this.tail = new Uint8Array(0)
    this.stage = { kind: 'frame-header' }
    if (found < tail.length) {
      // The magic begins in bytes already taken: they become the next header's first bytes.
      this.pending = tail.slice(found)
      return at
    }
    this.offset += found - tail.length
    return at + found - tail.length
  }

  private reportDamage(): void {
    const damage = this.damage
    if (damage === undefined) return
    this.damage = undefined
    const end = damage.end!
    const what = damage.kind === 'checksum-mismatch' ? 'zstd frame' : 'corrupt zstd frame'
    const next = damage.toFileEnd
      ? '; its headers cannot be followed and no zstd frame magic follows: the rest of the file is skipped'
      : damage.resynced
        ? `; its headers cannot be followed, so the next frame was found by searching forward for the zstd magic (28 b5 2f fd) at byte ${end}`
        : '; skipped, reading goes on with the next frame'
    this.onDamage({
      kind: damage.kind, offset: damage.start, end, resynced: damage.resynced,
      message: `${what} at bytes ${damage.start}-${end - 1} (${end - damage.start} bytes): ${damage.why}${next}`,
    })
  }

  private feed(bytes: Uint8Array): void {
    if (this.frame === undefined) {
      // Input chunks are reused by the caller's stream: keep copies.
      this.frameParts.push(bytes.slice())
      this.frameLength += bytes.length
      if (this.frameLength > BUFFERED_FRAME_LIMIT) this.streamFrame()
      return
    }
    if (this.frameFailure !== undefined) return
    try {
      this.frame.push(bytes)
    } catch (error) {
      this.frameFailure = describe(error)
    }
  }

  /** Switches the current frame to fzstd's streaming decoder, feeding it what was collected so far. */
  private streamFrame(): void {
    if (this.frame !== undefined) return
    const hash = new Xxh64()
    this.frameHash = hash
    this.frame = new Decompress((data) => {
      hash.update(data)
      if (data.length > 0) this.onData(data)
    })
    const parts = this.frameParts
    this.frameParts = []
    for (const part of parts) this.feed(part)
  }
}

/** Why a frame header cannot be decoded, or undefined when it can. */
function frameHeaderFault(header: Uint8Array, magic: number): string | undefined {
  if (magic !== FRAME_MAGIC) return 'no zstd frame starts here'
  const descriptor = header[4]
  if (descriptor & 8) return 'reserved frame header bit set'
  if ((descriptor & 3) !== 0) return 'frame needs a dictionary'
  if (!((descriptor >> 5) & 1)) {
    const windowDescriptor = header[5]
    const base = 2 ** (10 + (windowDescriptor >> 3))
    const window = base + (base / 8) * (windowDescriptor & 7)
    if (window > MAX_WINDOW) return `window size ${window} exceeds ${MAX_WINDOW}`
  } else if (header.length > 5 && frameContentSize(header, descriptor) > MAX_WINDOW) {
    return `single-segment frame of ${frameContentSize(header, descriptor)} bytes exceeds ${MAX_WINDOW}`
  }
  return undefined
}

/** Index of the first frame magic (28 b5 2f fd) in `bytes`, or -1. */
function findMagic(bytes: Uint8Array): number {
  for (let at = bytes.indexOf(0x28); at >= 0 && at + 4 <= bytes.length; at = bytes.indexOf(0x28, at + 1)) {
    if (bytes[at + 1] === 0xb5 && bytes[at + 2] === 0x2f && bytes[at + 3] === 0xfd) return at
  }
  return -1
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
  if ((frame[4] >> 5) & 1) return decompress(frame) // single segment: the window is the content size already
  const declared = frame[5]
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
  if (parts.length === 1) return parts[0]
  const out = new Uint8Array(length)
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

function frameContentSize(header: Uint8Array, descriptor: number): number {
  const bytes = [1, 2, 4, 8][descriptor >> 6]
  const start = 5 + [0, 1, 2, 4][descriptor & 3]
  let size = 0
  for (let i = bytes - 1; i >= 0; i--) size = size * 256 + header[start + i]
  return bytes === 2 ? size + 256 : size
}

function readU32(bytes: Uint8Array, at: number): number {
  return (bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24)) >>> 0
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
