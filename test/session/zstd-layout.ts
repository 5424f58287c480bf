/**
 * Test helpers over the Zstandard frame format (RFC 8878), written from the spec independently of the
 * reader's own walker: where each frame and block of a file lies, and frames built of raw blocks (whose
 * payload is the content itself, so a flipped byte still decodes, to wrong content).
 */
import { Xxh64 } from '../../src/session/xxh64.ts'

export interface Block { type: 'raw' | 'rle' | 'compressed'; header: number; body: number; size: number; last: boolean }
export interface Frame { start: number; end: number; blocks: Block[]; checksum: number | undefined }

export function frameLayout(bytes: Uint8Array): Frame[] {
  const frames: Frame[] = []
  let at = 0
  while (at < bytes.length) {
    const start = at
    const descriptor = bytes[at + 4]!
    const singleSegment = (descriptor >> 5) & 1
    at += 5 + (singleSegment ? 0 : 1) + [0, 1, 2, 4][descriptor & 3]! + [singleSegment, 2, 4, 8][descriptor >> 6]!
    const blocks: Block[] = []
    for (let last = false; !last;) {
      const raw = bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16)
      last = (raw & 1) === 1
      const type = (['raw', 'rle', 'compressed'] as const)[(raw >> 1) & 3]!
      const size = raw >>> 3
      blocks.push({ type, header: at, body: at + 3, size, last })
      at += 3 + (type === 'rle' ? 1 : size)
    }
    const checksum = (descriptor >> 2) & 1 ? new DataView(bytes.buffer, bytes.byteOffset + at, 4).getUint32(0, true) : undefined
    if (checksum !== undefined) at += 4
    frames.push({ start, end: at, blocks, checksum })
  }
  return frames
}

/** One frame of raw blocks holding `content`, with its content checksum (low 32 bits of XXH64). */
export function rawFrame(content: Uint8Array): Uint8Array {
  const parts: number[] = [0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x50] // checksum flag; window descriptor 1 MiB
  const maxBlock = 128 * 1024
  for (let at = 0; at < content.length || at === 0; at += maxBlock) {
    const size = Math.min(maxBlock, content.length - at)
    const last = at + maxBlock >= content.length ? 1 : 0
    const header = (size << 3) | last
    parts.push(header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff, ...content.subarray(at, at + size))
    if (content.length === 0) break
  }
  const hash = new Xxh64()
  hash.update(content)
  const low = hash.digest()[1]
  parts.push(low & 0xff, (low >>> 8) & 0xff, (low >>> 16) & 0xff, low >>> 24)
  return Uint8Array.from(parts)
}

export function concatBytes(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0))
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}
