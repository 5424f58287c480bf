/**
 * XXH64 with seed 0 (the xxHash specification, "XXH64 algorithm description"), streaming, on 32-bit
 * halves: a Zstandard frame's content checksum is the low 32 bits of XXH64(content, seed 0). BigInt
 * arithmetic allocates per operation and is far too slow for every frame of a log; here each 64-bit
 * value is a (high, low) pair of unsigned 32-bit numbers and the helpers return through `hi`/`lo`.
 */

// The five 64-bit primes, as [high, low] halves.
const P1H = 0x9e3779b1, P1L = 0x85ebca87
const P2H = 0xc2b2ae3d, P2L = 0x27d4eb4f
const P3H = 0x165667b1, P3L = 0x9e3779f9
const P4H = 0x85ebca77, P4L = 0xc2b2ae63
const P5H = 0x27d4eb2f, P5L = 0x165667c5

/** Result registers of the 64-bit helpers below (no allocation in the hot loop). */
let hi = 0
let lo = 0

/** (ah:al) * (bh:bl) mod 2^64. */
function mul(ah: number, al: number, bh: number, bl: number): void {
  const a0 = al & 0xffff, a1 = al >>> 16, b0 = bl & 0xffff, b1 = bl >>> 16
  const p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff)
  lo = (((mid & 0xffff) << 16) | (p00 & 0xffff)) >>> 0
  hi = (a1 * b1 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16) + Math.imul(al, bh) + Math.imul(ah, bl)) >>> 0
}

/** (ah:al) + (bh:bl) mod 2^64. */
function add(ah: number, al: number, bh: number, bl: number): void {
  const sum = al + bl
  lo = sum >>> 0
  hi = (ah + bh + (sum > 0xffffffff ? 1 : 0)) >>> 0
}

/** Rotate (h:l) left by 0 < r < 32. */
function rotl(h: number, l: number, r: number): void {
  hi = ((h << r) | (l >>> (32 - r))) >>> 0
  lo = ((l << r) | (h >>> (32 - r))) >>> 0
}

/** round(acc, lane) = rotl(acc + lane * P2, 31) * P1. */
function round(ah: number, al: number, laneH: number, laneL: number): void {
  mul(laneH, laneL, P2H, P2L)
  add(ah, al, hi, lo)
  rotl(hi, lo, 31)
  mul(hi, lo, P1H, P1L)
}

function readU32(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0
}

/** Feed bytes in any slicing with `update`; `digest` gives the 64-bit hash as [high, low]. */
export class Xxh64 {
  // The four accumulators, seeded as the specification says for seed 0.
  private v1h = 0x60ea27ee; private v1l = 0xadc0b5d6 // P1 + P2
  private v2h = P2H; private v2l = P2L
  private v3h = 0; private v3l = 0
  private v4h = 0x61c8864e; private v4l = 0x7a143579 // -P1
  /** Bytes of an unfinished 32-byte stripe. */
  private readonly stripe = new Uint8Array(32)
  private buffered = 0
  private length = 0

  update(bytes: Uint8Array): void {
    this.length += bytes.length
    let at = 0
    if (this.buffered > 0) {
      const take = Math.min(32 - this.buffered, bytes.length)
      this.stripe.set(bytes.subarray(0, take), this.buffered)
      this.buffered += take
      at = take
      if (this.buffered < 32) return
      this.stripes(this.stripe, 0, 32)
      this.buffered = 0
    }
    const whole = at + Math.floor((bytes.length - at) / 32) * 32
    this.stripes(bytes, at, whole)
    if (whole < bytes.length) {
      this.stripe.set(bytes.subarray(whole), 0)
      this.buffered = bytes.length - whole
    }
  }

  /** The hash of everything fed so far, as unsigned 32-bit [high, low]. */
  digest(): [number, number] {
    let h: number, l: number
    if (this.length >= 32) {
      rotl(this.v1h, this.v1l, 1); let sh = hi, sl = lo
      rotl(this.v2h, this.v2l, 7); add(sh, sl, hi, lo); sh = hi; sl = lo
      rotl(this.v3h, this.v3l, 12); add(sh, sl, hi, lo); sh = hi; sl = lo
      rotl(this.v4h, this.v4l, 18); add(sh, sl, hi, lo); h = hi; l = lo
      for (const [vh, vl] of [[this.v1h, this.v1l], [this.v2h, this.v2l], [this.v3h, this.v3l], [this.v4h, this.v4l]] as const) {
        round(0, 0, vh, vl)
        h = (h ^ hi) >>> 0; l = (l ^ lo) >>> 0
        mul(h, l, P1H, P1L); add(hi, lo, P4H, P4L); h = hi; l = lo
      }
    } else {
      h = P5H; l = P5L
    }
    add(h, l, Math.floor(this.length / 0x100000000), this.length >>> 0); h = hi; l = lo
    const tail = this.stripe
    let at = 0
    for (; at + 8 <= this.buffered; at += 8) {
      round(0, 0, readU32(tail, at + 4), readU32(tail, at))
      rotl((h ^ hi) >>> 0, (l ^ lo) >>> 0, 27)
      mul(hi, lo, P1H, P1L); add(hi, lo, P4H, P4L); h = hi; l = lo
    }
    if (at + 4 <= this.buffered) {
      mul(0, readU32(tail, at), P1H, P1L)
      rotl((h ^ hi) >>> 0, (l ^ lo) >>> 0, 23)
      mul(hi, lo, P2H, P2L); add(hi, lo, P3H, P3L); h = hi; l = lo
      at += 4
    }
    for (; at < this.buffered; at++) {
      mul(0, tail[at]!, P5H, P5L)
      rotl((h ^ hi) >>> 0, (l ^ lo) >>> 0, 11)
      mul(hi, lo, P1H, P1L); h = hi; l = lo
    }
    // Avalanche: h ^= h >> 33; h *= P2; h ^= h >> 29; h *= P3; h ^= h >> 32.
    l = (l ^ (h >>> 1)) >>> 0
    mul(h, l, P2H, P2L); h = hi; l = lo
    l = (l ^ ((l >>> 29) | (h << 3))) >>> 0; h = (h ^ (h >>> 29)) >>> 0
    mul(h, l, P3H, P3L); h = hi; l = lo
    l = (l ^ h) >>> 0
    return [h, l]
  }

  private stripes(bytes: Uint8Array, from: number, to: number): void {
    let v1h = this.v1h, v1l = this.v1l, v2h = this.v2h, v2l = this.v2l
    let v3h = this.v3h, v3l = this.v3l, v4h = this.v4h, v4l = this.v4l
    for (let at = from; at < to; at += 32) {
      round(v1h, v1l, readU32(bytes, at + 4), readU32(bytes, at)); v1h = hi; v1l = lo
      round(v2h, v2l, readU32(bytes, at + 12), readU32(bytes, at + 8)); v2h = hi; v2l = lo
      round(v3h, v3l, readU32(bytes, at + 20), readU32(bytes, at + 16)); v3h = hi; v3l = lo
      round(v4h, v4l, readU32(bytes, at + 28), readU32(bytes, at + 24)); v4h = hi; v4l = lo
    }
    this.v1h = v1h; this.v1l = v1l; this.v2h = v2h; this.v2l = v2l
    this.v3h = v3h; this.v3l = v3l; this.v4h = v4h; this.v4l = v4l
  }
}

/** The 64-bit XXH64 (seed 0) of `bytes` as 16 hex digits. */
export function xxh64Hex(bytes: Uint8Array): string {
  const hash = new Xxh64()
  hash.update(bytes)
  const [h, l] = hash.digest()
  return h.toString(16).padStart(8, '0') + l.toString(16).padStart(8, '0')
}
