// Zeroed typed tables cut from one backing store. A rule is made for every model call, and setting up a
// typed array's own backing store costs more than zeroing it (Node 22: eleven 16 KB arrays take about
// 37 µs, one 176 KB array cut into eleven views about 11 µs); a short call pays its set-up whole.

/** `count` zeroed tables of `length` entries each, views of one buffer of `Type`. */
export function typedTables<T extends Int32Array | Float64Array>(Type: new (length: number) => T, count: number, length: number): T[] {
  const buffer = new Type(count * length)
  return Array.from({ length: count }, (_, table) => buffer.subarray(table * length, (table + 1) * length) as T)
}
