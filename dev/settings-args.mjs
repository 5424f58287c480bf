// The calibration scripts' `--set key=value` options (repeatable) as a config of numbers, the thresholds
// they override (src/detector/settings.ts).

/** `['noveltyMinSpan=0', ...]` (parseArgs' `values.set`, or undefined) as `{ noveltyMinSpan: 0, ... }`. */
export function settingsFromArgs(pairs) {
  return Object.fromEntries((pairs ?? []).map((pair) => [pair.slice(0, pair.indexOf('=')), Number(pair.slice(pair.indexOf('=') + 1))]))
}
