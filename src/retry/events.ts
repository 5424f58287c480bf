/**
 * The coordinator's durable record of each retry: DSH's own `llm/retry` / `llm/retry-started` events
 * extended with the coordinator's fields, not new event types, because rc.8's persistence refuses to
 * resume a session holding an event type outside its built-in list (docs/retry.md#durable-events). Counts
 * and the step's deadline are derived from these events, so a resumed session continues its budget.
 */
import type { LlmFailure } from '@deepseek-ai/dsh-llm'
import type { RetryId } from '@deepseek-ai/dsh-llm-retry'
import type { RetryableKind } from './classify.ts'
import type { DelaySource } from './delay.ts'

/** DSH's event type for a scheduled retry, written before the wait. */
export const RETRY_EVENT = 'llm/retry'
/** DSH's event type for a retry whose wait is over, written right before the request is sent again. */
export const RETRY_STARTED_EVENT = 'llm/retry-started'
const POLICY_KEY_PREFIX = 'retry-coordinator/'

/**
 * The `policyKey` of the coordinator's retries of one kind.
 * @param kind - a retryable failure kind.
 * @returns `retry-coordinator/<kind>`.
 */
export function policyKeyOf(kind: RetryableKind): string {
  return `${POLICY_KEY_PREFIX}${kind}`
}

/**
 * Whether a session event is an `llm/retry` the coordinator wrote (not one of DSH's `llm-retry`).
 * @param event - any session event.
 * @returns true for the coordinator's own retry records.
 */
export function isCoordinatorRetry<E extends { type: string; data?: unknown }>(event: E): event is E & { type: typeof RETRY_EVENT; data: CoordinatorRetryEventData } {
  const data = event.data
  return event.type === RETRY_EVENT && typeof data === 'object' && data !== null && 'policyKey' in data
    && typeof data.policyKey === 'string' && data.policyKey.startsWith(POLICY_KEY_PREFIX)
}

/**
 * `llm/retry` as the coordinator writes it: DSH's fields (`mode` `normal` for a bounded budget with its
 * `maxRetries`, `always` for a persistent one), then the coordinator's own.
 */
export type CoordinatorRetryEventData = {
  /** Shared by the retries of one kind in one step. */
  retryId: RetryId
  /** The turn and the step (model call) within it whose request failed. */
  turn: number
  step: number
  /** The provider route the request went to; retries are numbered per provider. */
  provider: string
  /** `retry-coordinator/<kind>`. */
  policyKey: string
  /** 1-based count of retries of this kind in this step. */
  retry: number
  /** The wait before this retry, jitter included. */
  delayMs: number
  /** The failure being retried, as the adapter reported it. */
  failure: LlmFailure
  /** The failure's kind, whose budget this retry counts against. */
  kind: RetryableKind
  /** Where `delayMs` came from: the server's header, its wording, or the coordinator's backoff. */
  delaySource: DelaySource
  /** What the server asked for, when it did (header or wording). */
  serverDelayMs?: number
  /** Epoch ms of the step's first failure: every kind's deadline counts from here. */
  chainStartedAt: number
} & ({ mode: 'normal'; maxRetries: number } | { mode: 'always' })

/** `llm/retry-started`: the wait completed; the request is sent again. */
export interface CoordinatorRetryStartedEventData {
  /** The `retryId`, `turn`, `step` and `retry` of the `llm/retry` whose wait completed. */
  retryId: string
  turn: number
  step: number
  retry: number
}
