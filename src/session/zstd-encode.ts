/**
 * Writes one independent Zstandard frame, the unit DSH rc.8's `dsh-session-persistence-jsonl` appends and
 * reads back (each frame decoded on its own, the first holding exactly the header line). Node >= 22.15
 * compresses it with node:zlib, with a content checksum as rc.8 writes its own frames; where node:zlib has
 * no zstd (Node 20), the frame holds Raw blocks: valid Zstandard that every decoder reads, at the size of
 * the text itself (RFC 8878 §3.1.1: frame header with Single_Segment and Frame_Content_Size, Raw blocks of
 * at most 128 KiB, the last one flagged).
 */
import * as zlib from 'node:zlib'

const MAGIC = [0x28, 0xb5, 0x2f, 0xfd]
/** Block_Maximum_Size of RFC 8878 §3.1.1.2.3 (min(window, 128 KiB)). */
const MAX_BLOCK = 128 * 1024
/** Block_Type `Raw_Block`, bits 1-2 of the block header. */
const RAW_BLOCK = 0

type ZstdCompress = (bytes: Uint8Array, options?: { params?: Record<number, number> }) => Buffer
/** node:zlib's one-shot zstd compressor; absent before Node 22.15 (and from the Node 20 typings). */
const zstdCompressSync = (zlib as unknown as { zstdCompressSync?: ZstdCompress }).zstdCompressSync
const CHECKSUM_FLAG = (zlib.constants as unknown as Record<string, number | undefined>).ZSTD_c_checksumFlag

/** Whether {@link zstdFrame} compresses (node:zlib has zstd) or writes Raw blocks. */
export const zstdCompressionAvailable = zstdCompressSync !== undefined && CHECKSUM_FLAG !== undefined

/**
 * One frame holding `bytes`: compressed when node:zlib can, else of Raw blocks (or always, with `raw`).
 * @param bytes - the frame's content.
 * @param options - `raw: true` to write Raw blocks even where node:zlib could compress.
 * @returns one complete zstd frame (with a content checksum when compressed).
 */
export function zstdFrame(bytes: Uint8Array, options: { raw?: boolean } = {}): Uint8Array {
  if (options.raw !== true && zstdCompressSync !== undefined && CHECKSUM_FLAG !== undefined) return zstdCompressSync(bytes, { params: { [CHECKSUM_FLAG]: 1 } })
  return rawZstdFrame(bytes)
}

/**
 * One frame of Raw blocks holding `bytes` unchanged, readable by any zstd decoder.
 * @param bytes - the frame's content.
 * @returns one complete zstd frame, without a checksum.
 */
export function rawZstdFrame(bytes: Uint8Array): Uint8Array {
  const size = bytes.length
  // Frame_Content_Size field: 1 byte (< 256, only with Single_Segment), 2 bytes (value - 256), 4 or 8 bytes.
  const sizeFlag = size < 256 ? 0 : size < 65536 + 256 ? 1 : size < 2 ** 32 ? 2 : 3
  const sizeBytes = [1, 2, 4, 8][sizeFlag]
  const blocks = Math.max(1, Math.ceil(size / MAX_BLOCK))
  const frame = new Uint8Array(4 + 1 + sizeBytes + blocks * 3 + size)
  const view = new DataView(frame.buffer)
  frame.set(MAGIC, 0)
  // Frame_Header_Descriptor: FCS_Field_Size flag (bits 6-7), Single_Segment (bit 5), no checksum, no dictionary.
  frame[4] = (sizeFlag << 6) | (1 << 5)
  let at = 5
  if (sizeFlag === 0) frame[at] = size
  else if (sizeFlag === 1) view.setUint16(at, size - 256, true)
  else if (sizeFlag === 2) view.setUint32(at, size, true)
  else view.setBigUint64(at, BigInt(size), true)
  at += sizeBytes
  for (let block = 0; block < blocks; block++) {
    const start = block * MAX_BLOCK
    const length = Math.min(MAX_BLOCK, size - start)
    const last = block === blocks - 1 ? 1 : 0
    const header = (length << 3) | (RAW_BLOCK << 1) | last
    frame[at] = header & 0xff
    frame[at + 1] = (header >>> 8) & 0xff
    frame[at + 2] = (header >>> 16) & 0xff
    at += 3
    frame.set(bytes.subarray(start, start + length), at)
    at += length
  }
  return frame
}
