/**
 * The coordinator's durable session events, declared on DSH's session event map the way
 * `dsh-llm-retry` declares `llm/retry`. They are the coordinator's only memory: retry counts and the
 * step's deadline are derived from them, so a resumed session continues its budget instead of starting
 * a fresh one, and the analyzer and UIs can show what was retried, why, and how long it waited.
 */
import type { LlmFailure } from '@deepseek-ai/dsh-llm'
// Brings the augmented module into a program rooted at this entry (tsup's declaration build); without
// it TypeScript reports the augmentation target as missing.
import type {} from '@deepseek-ai/dsh-session/types'
import type { FailureKind, RetryableKind } from './classify.ts'
import type { DelaySource } from './delay.ts'

export const RETRY_EVENT = 'retry-coordinator/retry'
export const RETRY_STARTED_EVENT = 'retry-coordinator/retry-started'
export const STOPPED_EVENT = 'retry-coordinator/stopped'

/** Recorded before each wait: one scheduled retry of a failed request. */
export interface RetryEventData {
  /** Shared by every retry of one step. */
  retryId: string
  turn: number
  step: number
  provider: string
  kind: RetryableKind
  mode: 'bounded' | 'persistent'
  /** 1-based count of retries of this kind in this step. */
  attempt: number
  /** The budget's `maxRetries` (bounded mode only). */
  maxRetries?: number
  delayMs: number
  delaySource: DelaySource
  /** What the server asked for, when it did (header or wording). */
  serverDelayMs?: number
  /** Epoch ms of the step's first failure: the budget's deadline counts from here. */
  chainStartedAt: number
  failure: LlmFailure
}

/** Recorded after a wait completed, right before the request is sent again. */
export interface RetryStartedEventData {
  retryId: string
  turn: number
  step: number
  kind: RetryableKind
  attempt: number
}

export type StopReason = 'not-retryable' | 'retries-exhausted' | 'deadline' | 'server-delay-too-long'

/** Recorded when the coordinator ends a turn instead of retrying; `message` is what the user is shown. */
export interface StoppedEventData {
  turn: number
  step: number
  provider: string
  kind: FailureKind
  reason: StopReason
  /** Retries of this kind already made in this step. */
  attempts: number
  message: string
  failure: LlmFailure
}

declare module '@deepseek-ai/dsh-session/types' {
  interface SessionEventMap {
    /** Durable record of one retry the coordinator scheduled (kind, attempt, delay and its source). */
    'retry-coordinator/retry': RetryEventData
    /** Durable transition after a retry wait completed, before the next attempt. */
    'retry-coordinator/retry-started': RetryStartedEventData
    /** Durable record of a turn the coordinator ended with an explanation instead of a retry. */
    'retry-coordinator/stopped': StoppedEventData
  }
}
