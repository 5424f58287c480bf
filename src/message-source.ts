/**
 * Who wrote a user-role message, read from its DSH `source`: the one definition of "the user spoke" and of
 * "this is a loop-breaker notice" for the live plugin (which resets its per-turn state when the user
 * speaks) and the session reader (which replays that reset and recognises notices in a log). Dependency-free.
 */
import { isMapping } from './mapping.ts'

/** The source the loop-breaker stamps on its notices (`plugin/messages.ts` `createNotice`). */
export const NOTICE_SOURCE = Object.freeze({ kind: 'plugin', plugin: 'loop-breaker', form: 'notice' } as const)

/**
 * Whether a user-role message is the user's own words.
 * @param source - the message's `source`.
 * @returns true for a source of kind `user`, and for no source at all (a message built by hand for the
 *   user); notices, tool results and runtime context always carry a source of their own.
 */
export function isUserSource(source: unknown): boolean {
  return source === undefined || (isMapping(source) && source.kind === 'user')
}

/**
 * Whether a user-role message is a loop-breaker notice.
 * @param source - the message's `source`.
 * @returns true for the source `createNotice` stamps (kind `plugin`, plugin `loop-breaker`, form `notice`).
 */
export function isLoopBreakerNotice(source: unknown): source is Record<string, unknown> {
  return isMapping(source) && source.kind === NOTICE_SOURCE.kind && source.plugin === NOTICE_SOURCE.plugin && source.form === NOTICE_SOURCE.form
}

/** How a continuation notice's summary begins (`plugin/messages.ts` `createContinuationNotice`). */
export const CONTINUATION_SUMMARY_HEAD = 'loop-breaker continue'

/**
 * Whether a loop-breaker notice is a continuation after the output length limit (not about a loop).
 * @param summary - the notice's `source.summary`.
 * @returns true for the summary `createContinuationNotice` writes, in either language.
 */
export function isContinuationSummary(summary: string): boolean {
  return summary.startsWith(CONTINUATION_SUMMARY_HEAD)
}
