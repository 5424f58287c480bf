/**
 * The last line of a headless run whose turn the loop-breaker cancelled. rc.8's headless runner prints
 * the last non-empty assistant text of the run on stdout whatever the turn's end, and exits 1 for any
 * end but `completed` (`@deepseek-ai/dsh-headless` lib/index.js, `summarize` and `run`): after a cancel
 * that is the cut call's kept text, ending with the trim marker, which reads like an answer. The runner
 * then asks the launcher to exit, which disposes the whole tree; this module writes its line then, after
 * the runner's output, so the run ends with what happened and what to do. It watches turn ends, never
 * acts on an agent, and says nothing outside the headless profile (no `headlessStartup` service) or for a
 * turn that a later one followed (a resumed task).
 */
import type { Context } from '@deepseek-ai/cordis'
import { readJournalRecord } from '../journal.ts'
import { isUserSource } from '../message-source.ts'
import { chosenLocale, headlessStopLine, localeOfText, resolveLocale } from './messages.ts'
import type { LineWriter } from './visible-log.ts'

/** The service only the headless profile provides (its `headless-startup` row); the runner injects it. */
const HEADLESS_SERVICE = 'headlessStartup'

/** The cancel cause the loop-breaker ends a turn with (index.ts `CANCEL_CAUSE`). */
export interface StopCause {
  kind: string
  reason: string
}

interface WatchedSession {
  readonly id: string
  readonly header?: { origin?: string }
  readonly events: ReadonlyArray<{ type: string; data: any }>
}

/**
 * Remembers, per session, a turn the loop-breaker's cancel ended (forgotten when another turn starts),
 * and at dispose, in the headless profile, writes one line for each such top-level session.
 * @param ctx - the plugin's context: `session/event` is watched on it, and its disposal writes the line.
 * @param cause - the cause the plugin cancels with.
 * @param write - where the line goes (stderr, like the plugin's log lines).
 */
export function sayHeadlessStops(ctx: Context, cause: StopCause, write: LineWriter): void {
  const stopped = new Map<WatchedSession, number>()
  ctx.on('session/event', (session: WatchedSession, event: { type: string; data: any }) => {
    if (event.type === 'turn/start') stopped.delete(session)
    // Asked while the tree is up: at disposal the headless rows may already be gone.
    else if (event.type === 'turn/end' && isStop(event.data?.reason, cause) && ctx.get(HEADLESS_SERVICE) !== undefined) stopped.set(session, event.data.turn)
  })
  ctx.effect(() => () => {
    try {
      for (const [session, turn] of stopped) {
        // A subagent's turn is its parent's business; the run prints the top-level agent's answer.
        if (session.header?.origin === 'subagent') continue
        write(headlessStopLine(resolveLocale(chosenLocale(ctx), spokenLocale(session)), { turn, loops: loopsInARow(session, turn), session: session.id }))
      }
    } catch {
      // Disposal must not fail because of a line.
    }
  }, 'loop-breaker: say a headless turn was stopped')
}

function isStop(reason: any, cause: StopCause): boolean {
  return reason?.kind === 'aborted' && reason.reason?.kind === cause.kind && reason.reason?.reason === cause.reason
}

/** The level of the turn's last loop-breaker reaction: how many findings in a row ended it. */
function loopsInARow(session: WatchedSession, turn: number): number | undefined {
  for (let index = session.events.length - 1; index >= 0; index--) {
    const event = session.events[index]!
    const record = readJournalRecord(event.type, event.data)
    if (record?.data.turn === turn && typeof record.data.level === 'number') return record.data.level
  }
  return undefined
}

/** The language of the user's latest message that has letters. */
function spokenLocale(session: WatchedSession) {
  for (let index = session.events.length - 1; index >= 0; index--) {
    const event = session.events[index]!
    if (event.type !== 'user/message' || !isUserSource(event.data?.source)) continue
    const text = (event.data.content ?? []).map((part: any) => (part?.type === 'text' ? part.text : '')).join('\n')
    const locale = localeOfText(text)
    if (locale !== undefined) return locale
  }
  return undefined
}
