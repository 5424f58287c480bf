/**
 * The marker that ends a block the loop-breaker trimmed, written by the plugin and recognised by the
 * session reader, which finds a cut from it in a log written without the journal. Dependency-free, so
 * the reader carries no part of DSH. It starts with an ellipsis and holds no quote, so a tool call's
 * arguments ending in it can never parse as JSON (see plugin/open-blocks.ts).
 */

/** The languages the marker is written in (the notice's locale). */
export type MarkerLocale = 'zh' | 'en'

/** The marker for a block that lost `removedChars` repeated characters (0: a tool call cut short). */
export function trimMarker(locale: MarkerLocale, removedChars: number): string {
  if (locale === 'en') {
    return removedChars > 0 ? ` …[loop-breaker: ${removedChars.toLocaleString('en-US')} repeated characters removed]` : ' …[loop-breaker: cut here]'
  }
  return removedChars > 0 ? ` ……[loop-breaker：已删去 ${removedChars} 个重复字符]` : ' ……[loop-breaker：在此截断]'
}

/** Either language's marker at the very end of a block's text, with the count it carries. */
const MARKER_AT_END = / (?:…\[loop-breaker: (?:([\d,]+) repeated characters removed|cut here)\]|……\[loop-breaker：(?:已删去 (\d+) 个重复字符|在此截断)\])$/

/** The characters a trimmed block's marker says were removed (0: cut short), or undefined when `text` does not end with a marker. */
export function readTrimMarker(text: string): number | undefined {
  const match = MARKER_AT_END.exec(text)
  if (match === null) return undefined
  const count = match[1] ?? match[2]
  return count === undefined ? 0 : Number(count.replaceAll(',', ''))
}
