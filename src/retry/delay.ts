/**
 * How long to wait before a retry. The server's own instruction wins: first the adapter's mapping of
 * `Retry-After` (seconds or HTTP date → `providerRetryAfterMs`), then a duration in the error text
 * ("Please try again in 1.898s", "retry after 30 seconds", "Please retry in 30.5s", "in 2m", "in 500ms",
 * "7m12s"; OpenAI, Groq and Gemini put it only there). Jitter only ever adds to a server delay, so a
 * retry never fires before the server asked. Without a server delay: exponential backoff with additive
 * jitter, capped at the budget's `maxDelayMs`. Pure; `random` is injectable for property tests.
 */

/** Where a wait came from: the `Retry-After` header, the error's wording, or the coordinator's own backoff. */
export type DelaySource = 'server-header' | 'message' | 'backoff'

/** A wait the server asked for. */
export interface ServerDelay {
  /** How long, in milliseconds (rounded up). */
  ms: number
  /** Whether the header or the message said it. */
  source: Exclude<DelaySource, 'backoff'>
}

/** The part of a kind's budget that shapes its waits. */
export interface DelayBudget {
  /** The first backoff step, doubled on every retry. */
  initialDelayMs: number
  /** The longest backoff wait (a server delay may be longer; see `computeDelay`). */
  maxDelayMs: number
  /** Jitter added on top of a wait, as a share of it (0.2: up to 20 % longer, never shorter). */
  jitterRatio: number
}

/** The wait before one retry. */
export interface Delay {
  /** How long to wait, in milliseconds, jitter included. */
  delayMs: number
  /** Where the wait came from. */
  source: DelaySource
  /** The server's requested delay, when there was one. */
  serverDelayMs?: number
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

function unitMs(unit: string): number {
  const lower = unit.toLowerCase()
  if (lower === 'ms' || lower.startsWith('milli')) return UNIT_MS.ms
  if (lower.startsWith('h')) return UNIT_MS.h
  if (lower.startsWith('mi') || lower === 'm') return UNIT_MS.m
  return UNIT_MS.s
}

// Longest units first so "ms" is not read as "m" + "s"; a unit must not run into more letters.
const UNIT = String.raw`(?:milliseconds?|msecs?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h)(?![a-z])`
const PART = String.raw`\d+(?:\.\d+)?\s*${UNIT}`
const DURATION = String.raw`(?:${PART}\s*)+`
const HINT = new RegExp(String.raw`\b(?:try again|retry|retrying)\s+(?:after|in)\s+(${DURATION})`, 'i')
const PART_GLOBAL = new RegExp(String.raw`(\d+(?:\.\d+)?)\s*(${UNIT})`, 'gi')

/**
 * The delay an error message asks for.
 * @param message - the provider's error text, e.g. "Please try again in 1.898s".
 * @returns the delay in milliseconds (rounded up), or `undefined` when the message names none.
 */
export function parseMessageDelay(message: string): number | undefined {
  const hint = HINT.exec(message)
  if (hint === null) return undefined
  let total = 0
  for (const [, amount, unit] of hint[1].matchAll(PART_GLOBAL)) total += Number(amount) * unitMs(unit)
  return total > 0 && Number.isFinite(total) ? Math.ceil(total) : undefined
}

/**
 * The delay the server asked for: the adapter's `Retry-After` mapping first, then the message wording.
 * @param failure - the failed request's message and the adapter's `providerRetryAfterMs`, when it has one.
 * @returns the server's delay and where it came from, or `undefined` when the server named none.
 */
export function serverDelay(failure: { message: string; providerRetryAfterMs?: number }): ServerDelay | undefined {
  const header = failure.providerRetryAfterMs
  if (header !== undefined && Number.isFinite(header) && header > 0) return { ms: Math.ceil(header), source: 'server-header' }
  const fromMessage = parseMessageDelay(failure.message)
  return fromMessage === undefined ? undefined : { ms: fromMessage, source: 'message' }
}

/**
 * The delay before retry number `attempt` (1-based). With a server delay: `server × (1 + jitter)`,
 * capped at `max(maxDelayMs, server)`, so it is never below the server's delay. Otherwise
 * `min(initial × 2^(attempt−1), max) × (1 + jitter)`, capped at `maxDelayMs`.
 * @param attempt - the retry's number in its kind's chain, from 1.
 * @param budget - the kind's backoff and jitter settings.
 * @param server - the server's requested delay, when it gave one.
 * @param random - a source of uniform numbers in [0, 1) for the jitter (injectable for tests).
 * @returns the wait, its source, and the server's delay when there was one.
 */
export function computeDelay(attempt: number, budget: DelayBudget, server?: ServerDelay, random: () => number = Math.random): Delay {
  const jitter = 1 + budget.jitterRatio * random()
  if (server !== undefined) {
    const cap = Math.max(budget.maxDelayMs, server.ms)
    return { delayMs: Math.ceil(Math.min(server.ms * jitter, cap)), source: server.source, serverDelayMs: server.ms }
  }
  const exponential = Math.min(budget.initialDelayMs * 2 ** Math.min(attempt - 1, 1024), budget.maxDelayMs)
  return { delayMs: Math.ceil(Math.min(exponential * jitter, budget.maxDelayMs)), source: 'backoff' }
}
