/**
 * The decision for one failed request on `agent/request-error`: classify, then retry (durable event,
 * wait that honours the server and the abort signal, `{kind: 'retry'}`), hand a context overflow down
 * the chain for compaction, or end the turn with a message that says what to do. It is not the
 * classifier (classify.ts), the delay arithmetic (delay.ts) or the budget table (budgets.ts).
 *
 * Ending the turn with a message: the agent loop ends a turn whose recovery chain throws an `LlmError`
 * with that error's facts, so the coordinator throws one carrying the original code and status and a
 * message naming the cause and the fix; the turn ends exactly as it would have, but explained, and the
 * message is durable in the session's `turn/end` event.
 */
import { randomUUID } from 'node:crypto'
import { CONTEXT_WINDOW_EXCEEDED_CODE, LlmError } from '@deepseek-ai/dsh-llm'
import type { LlmFailure } from '@deepseek-ai/dsh-llm'
import type { Agent, RequestErrorAction } from '@deepseek-ai/dsh-agent'
import type { RetryId } from '@deepseek-ai/dsh-llm-retry'
import { classifyFailure } from './classify.ts'
import type { FailureKind, RetryableKind } from './classify.ts'
import { computeDelay } from './delay.ts'
import type { Delay } from './delay.ts'
import type { Budget, BudgetTable } from './budgets.ts'
import { RETRY_EVENT, RETRY_STARTED_EVENT, isCoordinatorRetry, policyKeyOf } from './events.ts'
import type { CoordinatorRetryEventData } from './events.ts'
import { waitAtLeast } from './wait.ts'

const KIND_LABEL: Record<FailureKind, string> = {
  'context-overflow': 'context overflow',
  'output-reserve-overflow': 'output size too large for the context',
  quota: 'quota or billing',
  auth: 'authentication',
  'invalid-request': 'invalid request',
  'rate-limit': 'rate limit',
  server: 'server overload',
  network: 'network failure',
  stream: 'broken response stream',
  'empty-response': 'empty response',
  aborted: 'cancelled request',
  unknown: 'unrecognised failure',
}

const TERMINAL_ADVICE: Partial<Record<FailureKind, (provider: string) => string>> = {
  quota: (provider) => `The "${provider}" account has no quota or balance left, so retrying cannot succeed. Top up or raise the quota (or switch to another provider or model), then send your message again.`,
  auth: (provider) => `"${provider}" rejected the API key, so retrying cannot succeed. Check the key configured for this provider (for DeepSeek: DEEPSEEK_API_KEY or the Models page), then send your message again.`,
  'invalid-request': (provider) => `"${provider}" rejected the request as invalid; sending it again unchanged would fail the same way. Change the request (model, attachments, reasoning effort or the message itself) and send it again.`,
  'output-reserve-overflow': (provider) => `The output size reserved for the answer (max_tokens) does not fit what "${provider}" allows for this model; retrying unchanged cannot succeed. Lower maxTokens for this model in the provider's configuration, then send your message again.`,
}

/** Why the coordinator ended a turn instead of retrying. */
export type StopReason = 'not-retryable' | 'retries-exhausted' | 'deadline' | 'server-delay-too-long'

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`

function stopMessage(reason: StopReason, kind: FailureKind, provider: string, attempts: number, budget?: Budget, delay?: Delay): string {
  const label = KIND_LABEL[kind]
  switch (reason) {
    case 'not-retryable':
      return TERMINAL_ADVICE[kind]?.(provider) ?? `The request failed (${label}) and is not retried.`
    case 'retries-exhausted':
      return `Gave up after ${attempts} ${attempts === 1 ? 'retry' : 'retries'} of a ${label} from "${provider}" (retry-coordinator budgets.${kind}.maxRetries = ${budget?.maxRetries}). Send your message again to continue, or raise that budget.`
    case 'deadline':
      return `Stopped retrying a ${label} from "${provider}": the next attempt would pass the ${seconds(budget?.deadlineMs ?? 0)} allowed for retrying one step (retry-coordinator budgets.${kind}.deadlineMs). Send your message again to continue.`
    case 'server-delay-too-long': {
      const source = delay?.source === 'server-header' ? 'Retry-After header' : 'error message'
      return `"${provider}" asked to wait ${seconds(delay?.serverDelayMs ?? 0)} before retrying (${source}), longer than the ${seconds(budget?.maxServerDelayMs ?? 0)} this session waits for a ${label} (retry-coordinator budgets.${kind}.maxServerDelayMs). Send your message again after that time, or raise that limit.`
    }
  }
}

/** What dsh-agent hands an `agent/request-error` listener (its `Events` declaration), as far as recovery reads it. */
export interface RequestErrorPayload {
  agent: Agent
  turn: number
  step: number
  provider: string
  failure: LlmFailure
  signal: AbortSignal
}

export interface CoordinatorDeps {
  budgets: BudgetTable
  /** Aborted when the plugin is disposed: ends every wait. */
  lifetime: AbortSignal
  random?: () => number
}

function stop(
  payload: RequestErrorPayload,
  kind: FailureKind,
  reason: StopReason,
  attempts: number,
  budget?: Budget,
  delay?: Delay,
): never {
  const { provider, failure } = payload
  const explanation = stopMessage(reason, kind, provider, attempts, budget, delay)
  throw new LlmError(`${explanation} (${provider}: ${failure.message})`, failure.code, {
    ...(failure.status === undefined ? {} : { status: failure.status }),
    ...(failure.requestId === undefined ? {} : { requestId: failure.requestId }),
  })
}

/** Delegate first, so a later recovery plugin can still rescue the request; explain only if none does. */
async function stopUnlessRescued(
  payload: RequestErrorPayload,
  next: () => Promise<RequestErrorAction>,
  ...args: [kind: FailureKind, reason: StopReason, attempts: number, budget?: Budget, delay?: Delay]
): Promise<RequestErrorAction> {
  const downstream = await next()
  if (downstream?.kind === 'retry' || payload.signal.aborted) return downstream
  stop(payload, ...args)
}

async function retry(
  payload: RequestErrorPayload,
  next: () => Promise<RequestErrorAction>,
  kind: RetryableKind,
  serverDelayMs: number | undefined,
  serverDelaySource: 'server-header' | 'message' | undefined,
  deps: CoordinatorDeps,
): Promise<RequestErrorAction> {
  const { agent, turn, step, provider, failure, signal } = payload
  const budget = deps.budgets.forProvider(provider)[kind]
  const stepRetries = agent.session.events.filter(isCoordinatorRetry).filter((event) => event.data.turn === turn && event.data.step === step)
  const policyKey = policyKeyOf(kind)
  const previous = stepRetries.findLast((event) => event.data.policyKey === policyKey)
  const attempts: number = previous?.data.retry ?? 0
  if (budget.mode === 'bounded' && attempts >= budget.maxRetries) return stopUnlessRescued(payload, next, kind, 'retries-exhausted', attempts, budget)

  const server = serverDelayMs === undefined || serverDelaySource === undefined ? undefined : { ms: serverDelayMs, source: serverDelaySource }
  const delay = computeDelay(attempts + 1, budget, server, deps.random)
  if (budget.mode === 'bounded' && server !== undefined && server.ms > budget.maxServerDelayMs) {
    return stopUnlessRescued(payload, next, kind, 'server-delay-too-long', attempts, budget, delay)
  }
  const chainStartedAt: number = stepRetries[0]?.data.chainStartedAt ?? Date.now()
  if (Date.now() + delay.delayMs - chainStartedAt > budget.deadlineMs) return stopUnlessRescued(payload, next, kind, 'deadline', attempts, budget, delay)

  // One retryId per kind's chain: dsh-llm-retry's invariant ties a retryId to one policyKey.
  const retryId: RetryId = previous?.data.retryId ?? (randomUUID() as RetryId)
  const retry = attempts + 1
  const event: CoordinatorRetryEventData = {
    retryId, turn, step, provider, policyKey, retry,
    ...(budget.mode === 'bounded' ? { mode: 'normal' as const, maxRetries: budget.maxRetries } : { mode: 'always' as const }),
    delayMs: delay.delayMs, failure, kind, delaySource: delay.source,
    ...(delay.serverDelayMs === undefined ? {} : { serverDelayMs: delay.serverDelayMs }),
    chainStartedAt,
  }
  agent.session.append(RETRY_EVENT, event)
  if (!(await waitAtLeast(delay.delayMs, AbortSignal.any([signal, deps.lifetime])))) return undefined
  agent.session.append(RETRY_STARTED_EVENT, { retryId, turn, step, retry })
  return { kind: 'retry' }
}

export async function recoverRequestError(
  payload: RequestErrorPayload,
  next: () => Promise<RequestErrorAction>,
  deps: CoordinatorDeps,
): Promise<RequestErrorAction> {
  if (payload.signal.aborted || deps.lifetime.aborted) return next()
  const { kind, serverDelayMs, serverDelaySource } = classifyFailure(payload.failure)
  switch (kind) {
    case 'context-overflow':
      // dsh-compaction-basic acts only on the canonical code; an overflow the adapter coded otherwise
      // (a 413, Anthropic's "prompt is too long" through another adapter) is re-tagged for the rest of
      // the chain, which shares this payload object. The turn's own error keeps the original facts.
      if (payload.failure.code !== CONTEXT_WINDOW_EXCEEDED_CODE) {
        payload.failure = Object.freeze({ ...payload.failure, code: CONTEXT_WINDOW_EXCEEDED_CODE })
      }
      return next()
    case 'aborted':
    case 'unknown':
      return next()
    case 'quota':
    case 'auth':
    case 'invalid-request':
    case 'output-reserve-overflow':
      return stopUnlessRescued(payload, next, kind, 'not-retryable', 0)
    default:
      return retry(payload, next, kind, serverDelayMs, serverDelaySource, deps)
  }
}
