/**
 * The last line of a headless run whose printed text misleads. rc.8's headless runner prints the last
 * non-empty assistant text of the run on stdout whatever the turn's end, and exits 1 for any end but
 * `completed` (`@deepseek-ai/dsh-headless` lib/index.js, `summarize` and `run`): after the loop-breaker
 * cancelled the turn that is the cut call's kept text, ending with the trim marker, which reads like an
 * answer; after the plugin continued an answer the output length limit cut, it is only the last part.
 * The runner then asks the launcher to exit, which disposes the whole tree; this module writes its line
 * then, after the runner's output, so the run ends with what happened and what to do. It watches turn
 * ends and records, never acts on an agent, and says nothing outside the headless profile (no
 * `headlessStartup` service) or about a turn that a later one followed.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { Session } from '@deepseek-ai/dsh-session'
import type { TurnEndReason } from '@deepseek-ai/dsh-session/types'
import { readJournalRecord } from '../journal.ts'
import { isUserSource } from '../message-source.ts'
import { chosenLocale, headlessPartsLine, headlessStopLine, localeOfMessage, resolveLocale } from './messages.ts'
import type { LineWriter } from './visible-log.ts'

/** The service only the headless profile provides (its `headless-startup` row); the runner injects it. */
const HEADLESS_SERVICE = 'headlessStartup'

/** The cancel cause the loop-breaker ends a turn with (reactions.ts `CANCEL_CAUSE`). */
export interface StopCause {
  kind: string
  reason: string
}

/**
 * Remembers, per session, a turn the loop-breaker's cancel ended, or one it continued after the output
 * length limit (forgotten when another turn starts), and at dispose, in the headless profile, writes one
 * line for each such top-level session: the stop, or the parts of an answer of which only the last was printed.
 * @param ctx - the plugin's context: `session/event` is watched on it, and its disposal writes the line.
 * @param cause - the cause the plugin cancels with.
 * @param write - where the line goes (stderr, like the plugin's log lines).
 */
export function sayHeadlessStops(ctx: Context, cause: StopCause, write: LineWriter): void {
  // Only where the headless service is: DSH emits `session/event` for every event it appends, each
  // chunk included, so elsewhere (the web profile, an in-process loop) the plugin does not listen.
  ctx.inject([HEADLESS_SERVICE], (ctx) => watchStops(ctx, cause, write))
}

function watchStops(ctx: Context, cause: StopCause, write: LineWriter): void {
  const stopped = new Map<Session, number>()
  const continued = new Map<Session, number>()
  ctx.on('session/event', (session, event) => {
    if (event.type === 'turn/start') {
      stopped.delete(session)
      continued.delete(session)
    } else if (event.type === 'turn/end') {
      if (isStop(event.data.reason, cause)) stopped.set(session, event.data.turn)
      else if (hasContinuation(session, event.data.turn)) continued.set(session, event.data.turn)
    }
  })
  ctx.effect(() => () => {
    try {
      for (const [session, turn] of stopped) {
        // A subagent's turn is its parent's business; the run prints the top-level agent's answer.
        if (session.header.origin === 'subagent') continue
        write(headlessStopLine(resolveLocale(chosenLocale(ctx), spokenLocale(session)), { turn, loops: loopsInARow(session, turn), session: session.id }))
      }
      for (const [session, turn] of continued) {
        const parts = printedAnswerParts(session, turn)
        if (session.header.origin === 'subagent' || stopped.has(session) || parts < 2) continue
        write(headlessPartsLine(resolveLocale(chosenLocale(ctx), spokenLocale(session)), { turn, parts, session: session.id }))
      }
    } catch {
      // Disposal must not fail because of a line.
    }
  }, 'loop-breaker: say a headless turn was stopped')
}

function isStop(reason: TurnEndReason, cause: StopCause): boolean {
  const cancel = reason.kind === 'aborted' ? reason.reason : undefined
  return cancel?.kind === cause.kind && 'reason' in cancel && cancel.reason === cause.reason
}

/** Whether the plugin continued a call of `turn` after the output length limit. */
function hasContinuation(session: Session, turn: number): boolean {
  return session.events.some((event) => {
    const record = readJournalRecord(event.type, event.data)
    return record?.name === 'loop-breaker/continue' && record.data.turn === turn && record.data.action === 'continue'
  })
}

/**
 * Of how many messages the answer the runner printed is made: its last non-empty assistant text, and
 * the texts of the steps just before it that the plugin continued after the output length limit (a call
 * cut inside a tool call's arguments is re-issued, not continued as text).
 */
function printedAnswerParts(session: Session, turn: number): number {
  const texts = new Map<number, boolean>()
  const continuedSteps = new Set<number>()
  for (const event of session.events) {
    if (event.type === 'assistant/message' && event.data.turn === turn) {
      const text = event.data.message.content.some((block) => block.type === 'text' && block.text !== '')
      texts.set(event.data.step, text)
    }
    const record = readJournalRecord(event.type, event.data)
    if (record?.name === 'loop-breaker/continue' && record.data.turn === turn && record.data.action === 'continue' && record.data.cutToolCall === undefined) {
      continuedSteps.add(record.data.step)
    }
  }
  const printed = [...texts].filter(([, text]) => text).map(([step]) => step).at(-1)
  if (printed === undefined) return 0
  let parts = 1
  for (let step = printed - 1; continuedSteps.has(step) && texts.get(step) === true; step--) parts++
  return parts
}

/** The level of the turn's last loop-breaker reaction: how many findings in a row ended it. */
function loopsInARow(session: Session, turn: number): number | undefined {
  for (let index = session.events.length - 1; index >= 0; index--) {
    const event = session.events[index]
    const record = readJournalRecord(event.type, event.data)
    if (record?.data.turn === turn && typeof record.data.level === 'number') return record.data.level
  }
  return undefined
}

/** The language of the user's latest message that has letters. */
function spokenLocale(session: Session) {
  for (let index = session.events.length - 1; index >= 0; index--) {
    const event = session.events[index]
    if (event.type !== 'user/message' || !isUserSource(event.data.source)) continue
    const locale = localeOfMessage(event.data)
    if (locale !== undefined) return locale
  }
  return undefined
}
