/**
 * Map one failed model request (an `LlmFailure`: `{message, code, status?, providerRetryAfterMs?}`,
 * optionally with an Error `cause` chain when a tool classifies a thrown error) to exactly one kind.
 * Pure: no DSH runtime, no clock. The order of the checks is the design: the traps (throughput limits
 * worded "request too large", one over-long string field) are settled before the overflow table, the
 * output reserve before the context (vLLM's reserve message also quotes the context length), the provider
 * tables before the meaning-based rules (failure-meaning.ts), a period allowance before a token-count
 * comparison, and the harness `code` and HTTP `status` before the transient wordings. Status comes only from `status`: a number in the
 * message may be the user's own prompt echoed back.
 */
import { CONTEXT_OVERFLOW_PATTERNS, FIELD_TOO_LONG_PATTERN, OUTPUT_RESERVE_PATTERNS, THROUGHPUT_LIMIT_PATTERN, matchWording } from './overflow-patterns.ts'
import { serverDelay } from './delay.ts'
import { statesAllowanceExhausted, statesContextOverflow } from './failure-meaning.ts'
import type { DelaySource } from './delay.ts'

/**
 * What a failed model request means for recovery: the one kind `classifyFailure` assigns. The coordinator
 * retries the kinds in `RETRYABLE_KINDS`, hands `context-overflow` down the chain to compaction, ends the
 * turn with advice on `quota`, `auth`, `invalid-request` and `output-reserve-overflow` (unless a later
 * listener rescues it), and leaves `aborted` and `unknown` to the rest of the chain.
 */
export type FailureKind =
  | 'context-overflow'
  | 'output-reserve-overflow'
  | 'quota'
  | 'auth'
  | 'invalid-request'
  | 'rate-limit'
  | 'server'
  | 'network'
  | 'stream'
  | 'empty-response'
  | 'aborted'
  | 'unknown'

/** Kinds a retry can cure; every other kind is never retried as is. */
export const RETRYABLE_KINDS = ['rate-limit', 'server', 'network', 'stream', 'empty-response'] as const
/** A failure kind a retry can cure, one of `RETRYABLE_KINDS`; each has its own budget. */
export type RetryableKind = (typeof RETRYABLE_KINDS)[number]

/**
 * One failed model request as `classifyFailure` reads it: the fields of DSH's `LlmFailure`, plus an
 * optional `cause` chain when a tool classifies a thrown error.
 */
export interface FailureInput {
  /** The provider's or transport's error text; its wording decides when code and status do not. */
  message: string
  /** The harness code (`RATE_LIMIT`, `CONTEXT_WINDOW_EXCEEDED`, `UNKNOWN`, `HTTP_<n>`, ...). */
  code: string
  /** The HTTP status, when there was a response; the only source of a status (never the message). */
  status?: number
  /** The adapter's reading of `Retry-After`, in milliseconds. */
  providerRetryAfterMs?: number
  /** The error's `cause` chain; every message and `code` on it is read too (e.g. `ECONNRESET`). */
  cause?: unknown
}

/** The verdict on one failed request: its kind, whether a retry can cure it, and why. */
export interface Classification {
  kind: FailureKind
  /** Whether `kind` is one of `RETRYABLE_KINDS`. */
  retryable: boolean
  /** The delay the server asked for (header first, then wording), in ms. */
  serverDelayMs?: number
  /** Where `serverDelayMs` came from: the `Retry-After` header or the message's wording. */
  serverDelaySource?: Exclude<DelaySource, 'backoff'>
  /** Why this kind: the code, status or wording that decided it. */
  reason: string
}

const NETWORK_ERROR_CODES = new Set([
  'ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH',
  'ENETDOWN', 'EHOSTUNREACH', 'EHOSTDOWN', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CLOSED',
])
const NETWORK_WORDING = /\b(?:ECONNRESET|ECONNREFUSED|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|socket hang up|fetch failed|network error|other side closed|connection (?:reset|refused|closed|error)|UND_ERR_\w+)\b/i
const STREAM_WORDING = /\b(?:stream (?:ended|closed|was interrupted|terminated)|without \[DONE\]|stream_read_error|upstream_error|malformed SSE|premature close)\b/i
const QUOTA_WORDING = /\binsufficient[\s_-]+(?:quota|balance|credits?|funds)\b|\b(?:quota|usage[\s_-]+limit)[\s_-]+(?:exceeded|exhausted|reached)\b|\bexceed(?:ed|s)?[\s_-]+(?:your[\s_-]+)?(?:current[\s_-]+)?quota\b|\bcredit balance is too low\b|\b(?:balance|credits?)[\s_-]+(?:exhausted|depleted)\b|\bout[\s_-]+of[\s_-]+(?:credits?|budget)\b|\bpayment[\s_-]+required\b|\bbilling\b/i
const AUTH_WORDING = /\b(?:invalid|incorrect|missing|expired)[\s_-]+(?:x-)?api[\s_-]?key\b|\bauthentication[\s_-]+(?:fails?|failed|error)\b|\bunauthori[sz]ed\b|\bpermission[\s_-]+denied\b|\binvalid[\s_-]+(?:token|credentials?)\b/i
const RATE_LIMIT_WORDING = /\brate[\s_-]?limit|\btoo many requests\b|\bthrottl|\bRESOURCE_EXHAUSTED\b|\bslow down\b/i
const SERVER_WORDING = /\boverloaded|\bserver is busy\b|\bservice (?:is )?(?:temporarily )?unavailable\b|\binternal server error\b|\bbad gateway\b|\bgateway time-?out\b|\bupstream connect error\b/i
const EMPTY_WORDING = /\b(?:no content|empty response|empty completion)\b/i

const TERMINAL_CODES: Record<string, FailureKind> = {
  QUOTA: 'quota',
  AUTH: 'auth',
  INVALID_CREDENTIAL: 'auth',
  MISSING_CREDENTIAL: 'auth',
  INVALID_REQUEST: 'invalid-request',
  UNSUPPORTED_CONTENT: 'invalid-request',
  UNSUPPORTED_REASONING_EFFORT: 'invalid-request',
}

const RETRYABLE_CODES: Record<string, RetryableKind> = {
  RATE_LIMIT: 'rate-limit',
  SERVER: 'server',
  TRANSPORT: 'network',
  TIMEOUT: 'network',
  STREAM_CLOSED: 'stream',
  MALFORMED_RESPONSE: 'stream',
  EMPTY_RESPONSE: 'empty-response',
}

/** Messages and codes of the failure and every `cause` below it, outermost first. */
function causeChain(failure: FailureInput): { text: string; codes: string[] } {
  const texts = [failure.message]
  const codes: string[] = []
  const seen = new Set<unknown>()
  let cause = failure.cause
  while (cause !== undefined && cause !== null && !seen.has(cause)) {
    seen.add(cause)
    if (typeof cause === 'object') {
      const { message, code } = cause as { message?: unknown; code?: unknown }
      if (typeof message === 'string') texts.push(message)
      if (typeof code === 'string') codes.push(code)
      cause = (cause as { cause?: unknown }).cause
    } else {
      texts.push(String(cause))
      break
    }
  }
  return { text: texts.join(': '), codes }
}

function statusKind(status: number | undefined): FailureKind | undefined {
  if (status === undefined) return undefined
  if (status === 402) return 'quota'
  if (status === 401 || status === 403) return 'auth'
  if (status === 429) return 'rate-limit'
  if (status === 408 || status === 425) return 'server'
  if (status === 501 || status === 505) return 'invalid-request'
  if (status >= 500) return 'server'
  if (status === 400 || status === 404 || status === 405 || status === 410 || status === 422) return 'invalid-request'
  return undefined
}

function decide(failure: FailureInput): { kind: FailureKind; reason: string } {
  const { text, codes } = causeChain(failure)
  const code = failure.code
  const status = failure.status
  const at = status === undefined ? `code ${code}` : `HTTP ${status}, code ${code}`

  if (code === 'ABORTED') return { kind: 'aborted', reason: `${at}: the request was cancelled` }
  if (THROUGHPUT_LIMIT_PATTERN.test(text)) return { kind: 'rate-limit', reason: `${at}: a throughput limit (tokens/requests per unit of time)` }
  if (FIELD_TOO_LONG_PATTERN.test(text)) return { kind: 'invalid-request', reason: `${at}: one string field is over its maximum length` }
  const reserve = matchWording(OUTPUT_RESERVE_PATTERNS, text)
  if (reserve !== undefined) return { kind: 'output-reserve-overflow', reason: `${at}: ${reserve.provider} output-reserve wording` }
  if (code === 'CONTEXT_WINDOW_EXCEEDED') return { kind: 'context-overflow', reason: `${at}: canonical context-window code` }
  const overflow = matchWording(CONTEXT_OVERFLOW_PATTERNS, text)
  if (overflow !== undefined) return { kind: 'context-overflow', reason: `${at}: ${overflow.provider} overflow wording` }
  if (status === 413) return { kind: 'context-overflow', reason: `${at}: request entity too large` }
  // Before the meaning-based overflow: "monthly tokens exceed the plan limit" is an allowance, not a prompt.
  const allowance = statesAllowanceExhausted(text)
  if (allowance !== undefined) return { kind: 'quota', reason: `${at}: a billing-period or plan allowance is used up (${allowance} wording)` }
  // A 429 compares a rate with its limit: only another 4xx is read as the prompt's size against the model's.
  const overflowMeaning = status !== undefined && status >= 400 && status < 500 && status !== 429 ? statesContextOverflow(text) : undefined
  if (overflowMeaning !== undefined) return { kind: 'context-overflow', reason: `${at}: the prompt's token count is over the model's limit (${overflowMeaning} wording)` }

  const terminalByCode = TERMINAL_CODES[code]
  if (terminalByCode === 'quota' || QUOTA_WORDING.test(text) || status === 402) return { kind: 'quota', reason: `${at}: quota or billing` }
  if (terminalByCode === 'auth' || status === 401 || status === 403 || AUTH_WORDING.test(text)) return { kind: 'auth', reason: `${at}: authentication` }

  const byCode = RETRYABLE_CODES[code] ?? terminalByCode
  if (byCode !== undefined) return { kind: byCode, reason: at }
  const byStatus = statusKind(status)
  if (byStatus !== undefined) return { kind: byStatus, reason: at }
  // Wording decides only when neither the harness code nor the status did (UNKNOWN, HTTP_<n>, ...).
  if (RATE_LIMIT_WORDING.test(text)) return { kind: 'rate-limit', reason: `${at}: rate-limit wording` }
  if (SERVER_WORDING.test(text)) return { kind: 'server', reason: `${at}: overload wording` }
  if (codes.some((c) => NETWORK_ERROR_CODES.has(c)) || NETWORK_WORDING.test(text)) return { kind: 'network', reason: `${at}: connection-level failure` }
  if (STREAM_WORDING.test(text)) return { kind: 'stream', reason: `${at}: broken stream wording` }
  if (EMPTY_WORDING.test(text)) return { kind: 'empty-response', reason: `${at}: empty response wording` }
  return { kind: 'unknown', reason: `${at}: no rule matched` }
}

/**
 * Whether a retry can cure a failure of this kind.
 * @param kind - a failure kind, as `classifyFailure` returns it.
 * @returns true for the kinds in `RETRYABLE_KINDS`.
 */
export function isRetryableKind(kind: FailureKind): kind is RetryableKind {
  return (RETRYABLE_KINDS as readonly string[]).includes(kind)
}

/**
 * Map one failed model request to exactly one kind. The checks run in a fixed order (see the top of
 * this file): cancellation, the traps, output reserve before context overflow, billing allowance, then
 * the harness code and HTTP status, and the transient wordings last. The server's requested delay is
 * read only for a retryable kind. Pure: no clock, no I/O.
 * @param failure - the failure's message, code, status, `Retry-After` mapping and `cause` chain.
 * @returns the kind, whether it is retryable, the server's delay when it named one, and the reason.
 */
export function classifyFailure(failure: FailureInput): Classification {
  const { kind, reason } = decide(failure)
  const retryable = isRetryableKind(kind)
  const delay = retryable ? serverDelay(failure) : undefined
  return {
    kind,
    retryable,
    ...(delay === undefined ? {} : { serverDelayMs: delay.ms, serverDelaySource: delay.source }),
    reason,
  }
}
