// A list item's number (`12.`, `3)`) is a counter, not content: a step list going round the same states,
// or a line said again with one more copy of a fragment, holds its loop as verbatim as any other while
// its numbers climb. The rules that read lines (cycle, growing-line) and the tokenizer, which reads a
// short number as state unless it is such a counter, find such a number here.

import { isDigit } from './char-classes.ts'

/** The longest list number (digits) read as a counter: longer runs are values (a year, an id, a total). */
export const MAX_LIST_NUMBER_DIGITS = 6

/**
 * Where the digits from `start` (offset in `ring`, i at `i & mask`) end when they are a list item's
 * number: 1 to `MAX_LIST_NUMBER_DIGITS` digits closed by `.` or `)` at or before `last`; -1 otherwise.
 * Whether they open a line is the caller's to know.
 */
export function listNumberEnd(ring: Uint16Array, mask: number, start: number, last: number): number {
  let end = start
  while (end <= last && end - start <= MAX_LIST_NUMBER_DIGITS && isDigit(ring[end & mask])) end++
  if (end === start || end > last || end - start > MAX_LIST_NUMBER_DIGITS) return -1
  const after = ring[end & mask]
  return after === 46 || after === 41 ? end : -1
}
