/**
 * XXH64 with seed 0 (the xxHash specification, "XXH64 algorithm description"), streaming, on 32-bit
 * halves: a Zstandard frame's content checksum is the low 32 bits of XXH64(content, seed 0). BigInt
 * arithmetic allocates per operation and is far too slow for every frame of a log; here each 64-bit
 * value is a (high, low) pair of unsigned 32-bit numbers. The stripe loop, which sees every byte, keeps
 * the accumulators in a typed array and reads aligned content as 32-bit words; the helpers of the
 * final steps return through `hi`/`lo`. Its cost beside decoding: docs/tools.md#speed-and-memory.
 */

// The five 64-bit primes, as [high, low] halves.
const P1H = 0x9e3779b1, P1L = 0x85ebca87
const P2H = 0xc2b2ae3d, P2L = 0x27d4eb4f
const P3H = 0x165667b1, P3L = 0x9e3779f9
const P4H = 0x85ebca77, P4L = 0xc2b2ae63
const P5H = 0x27d4eb2f, P5L = 0x165667c5

/** 16-bit halves of the low words of P1 and P2, the multipliers of the stripe loop. */
const P1L0 = P1L & 0xffff, P1L1 = P1L >>> 16
const P2L0 = P2L & 0xffff, P2L1 = P2L >>> 16

/**
 * Exact scalings by powers of two: `(t - (t mod 2^32)) * 2^-32` is floor(t / 2^32) without a division,
 * and `b & 0xffff` is b mod 2^16 (ToInt32 wraps the exact double), both far cheaper than `%` on doubles.
 */
const TWO_TO_MINUS_32 = 2 ** -32
const TWO_TO_MINUS_16 = 2 ** -16

/** Result registers of the 64-bit helpers below (no allocation). */
let hi = 0
let lo = 0

/**
 * (xh:xl) * (ph:pl) mod 2^64. With `pl` split into 16-bit halves, xl times each half stays below 2^48,
 * exact in a double, so the low words' product takes two multiplications, the cross terms two
 * `Math.imul`s.
 */
function mul(xh: number, xl: number, ph: number, pl: number): void {
  const b = xl * (pl >>> 16)
  const b0 = b & 0xffff
  const t = xl * (pl & 0xffff) + b0 * 65536
  lo = t >>> 0
  hi = ((t - lo) * TWO_TO_MINUS_32 + (b - b0) * TWO_TO_MINUS_16 + Math.imul(xh, pl) + Math.imul(xl, ph)) >>> 0
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

/**
 * The same round on accumulator `i` of `state` (high word at 2i, low at 2i + 1), written out in local
 * variables: the stripe loop runs it on every 8 bytes of content.
 */
function roundInPlace(state: Uint32Array, i: number, inH: number, inL: number): void {
  // lane * P2, as in mul()
  let b = inL * P2L1
  let b0 = b & 0xffff
  let t = inL * P2L0 + b0 * 65536
  let ml = t >>> 0
  let mh = ((t - ml) * TWO_TO_MINUS_32 + (b - b0) * TWO_TO_MINUS_16 + Math.imul(inH, P2L) + Math.imul(inL, P2H)) >>> 0
  // acc + that
  const sum = state[2 * i + 1] + ml
  ml = sum >>> 0
  mh = (state[2 * i] + mh + (sum > 0xffffffff ? 1 : 0)) >>> 0
  // rotl 31
  const rh = ((mh << 31) | (ml >>> 1)) >>> 0
  const rl = ((ml << 31) | (mh >>> 1)) >>> 0
  // * P1
  b = rl * P1L1
  b0 = b & 0xffff
  t = rl * P1L0 + b0 * 65536
  const low = t >>> 0
  state[2 * i + 1] = low
  state[2 * i] = ((t - low) * TWO_TO_MINUS_32 + (b - b0) * TWO_TO_MINUS_16 + Math.imul(rh, P1L) + Math.imul(rl, P1H)) >>> 0
}

/** Typed-array words are in the platform's byte order; XXH64 reads little-endian. */
const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1

function readU32(bytes: Uint8Array, at: number): number {
  return (bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24)) >>> 0
}

/** Feed bytes in any slicing with `update`; `digest` gives the 64-bit hash as [high, low]. */
export class Xxh64 {
  /** The four accumulators as [high, low] word pairs, seeded as the specification says for seed 0. */
  private readonly state = Uint32Array.of(0x60ea27ee, 0xadc0b5d6, P2H, P2L, 0, 0, 0x61c8864e, 0x7a143579) // P1 + P2, P2, 0, -P1
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
      const v = this.state
      rotl(v[0], v[1], 1); let sh = hi, sl = lo
      rotl(v[2], v[3], 7); add(sh, sl, hi, lo); sh = hi; sl = lo
      rotl(v[4], v[5], 12); add(sh, sl, hi, lo); sh = hi; sl = lo
      rotl(v[6], v[7], 18); add(sh, sl, hi, lo); h = hi; l = lo
      for (let i = 0; i < 8; i += 2) {
        round(0, 0, v[i], v[i + 1])
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
      mul(0, tail[at], P5H, P5L)
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
    const state = this.state
    if (LITTLE_ENDIAN && (bytes.byteOffset + from) % 4 === 0) {
      // Aligned (fzstd's output always is): read the lanes as 32-bit words, two loads per lane.
      const words = new Uint32Array(bytes.buffer, bytes.byteOffset + from, (to - from) / 4)
      for (let at = 0; at < words.length; at += 8) {
        roundInPlace(state, 0, words[at + 1], words[at])
        roundInPlace(state, 1, words[at + 3], words[at + 2])
        roundInPlace(state, 2, words[at + 5], words[at + 4])
        roundInPlace(state, 3, words[at + 7], words[at + 6])
      }
      return
    }
    for (let at = from; at < to; at += 32) {
      roundInPlace(state, 0, readU32(bytes, at + 4), readU32(bytes, at))
      roundInPlace(state, 1, readU32(bytes, at + 12), readU32(bytes, at + 8))
      roundInPlace(state, 2, readU32(bytes, at + 20), readU32(bytes, at + 16))
      roundInPlace(state, 3, readU32(bytes, at + 28), readU32(bytes, at + 24))
    }
  }
}

/** The 64-bit XXH64 (seed 0) of `bytes` as 16 hex digits. */
export function xxh64Hex(bytes: Uint8Array): string {
  const hash = new Xxh64()
  hash.update(bytes)
  const [h, l] = hash.digest()
  return h.toString(16).padStart(8, '0') + l.toString(16).padStart(8, '0')
}
