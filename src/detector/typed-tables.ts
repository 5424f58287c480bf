// Zeroed typed tables cut from one backing store. A rule is made for every model call, and a typed
// array's own backing store costs more to set up than zeroing it (Node 22: eleven 16 KB arrays took
// about 37 µs, one 176 KB array cut into eleven views about 11 µs); a detector's set-up was 8-10 % of
// its time over the node_modules corpus, and a short call pays it whole.

/** `count` zeroed tables of `length` int32 entries each, views of one buffer. */
export function int32Tables(count: number, length: number): Int32Array[] {
  const buffer = new Int32Array(count * length)
  return Array.from({ length: count }, (_, table) => buffer.subarray(table * length, (table + 1) * length))
}

/** `count` zeroed tables of `length` float64 entries each, views of one buffer. */
export function float64Tables(count: number, length: number): Float64Array[] {
  const buffer = new Float64Array(count * length)
  return Array.from({ length: count }, (_, table) => buffer.subarray(table * length, (table + 1) * length))
}
