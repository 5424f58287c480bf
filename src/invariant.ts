/**
 * Package-owned invariant companion for the loop-breaker's durable records (`dsh-loop-breaker/invariant`),
 * in the shape of DSH's own companions: mount `@deepseek-ai/dsh-invariants`, then this module as a plugin,
 * and every loop-breaker record a session holds or receives is checked where it is committed. It checks
 * that a record is the loadable form (a `hook/result` whose envelope names the open turn, see
 * `./journal.ts`), that its data is what the analyzer and the repair tool read, and that no old-form
 * `loop-breaker/*` event, which rc.8 refuses to load, is ever appended. Tests and the demo mount it; a
 * user's DSH does not need it.
 */
import type { Context } from '@deepseek-ai/cordis'
import { JOURNAL_EVENT_TYPE, JOURNAL_HANDLER_ID, isLegacyJournalType, readJournalRecord } from './journal.ts'
import { isMapping } from './mapping.ts'

const PACKAGE_NAME = 'dsh-loop-breaker'

/** Cordis companion plugin name. */
export const name = 'loop-breaker-invariant'
/** Service required before the companion can reserve package ownership. */
export const inject = ['invariants']

type Fail = (message: string) => never
interface LoggedEvent { type: string; data: unknown }
/** What the companion reads of a dsh-session `Session` and of the context `dsh-invariants` installs it in. */
interface LoggedSession { readonly events: readonly LoggedEvent[] }
interface InstallContext {
  sessions: { list(): readonly LoggedSession[] }
  on(event: string, listener: (...args: never[]) => void, options: { global: true }): unknown
}
/** The `dsh-invariants` service on the context (a dev dependency only, so its types are not imported). */
interface InvariantsContext { invariants: { register(packageName: string, installer: typeof install): () => void } }

const SIDES = new Set<unknown>(['reasoning', 'text', 'tool'])
const BREAK_ACTIONS = new Set<unknown>(['warn', 'remind', 'replan', 'cancel', 'stop'])
const JUDGES = new Set<unknown>(['call', 'step'])

function count(value: unknown, min: number): value is number {
  return Number.isSafeInteger(value) && (value as number) >= min
}

/** The checks each record kind's own data must pass. */
function validateRecord(point: string, decision: unknown, record: Record<string, unknown>, fail: Fail): void {
  switch (point) {
    case 'loop-breaker/break':
      if (typeof record.rule !== 'string' || record.rule === '') fail('loop-breaker/break record.rule must be a non-empty string')
      if (!SIDES.has(record.side)) fail(`loop-breaker/break record.side must be reasoning, text or tool, got ${JSON.stringify(record.side)}`)
      if (!count(record.at, 1)) fail('loop-breaker/break record.at must be a positive integer')
      if (!count(record.repeatedChars, 0) || record.repeatedChars > record.at) fail('loop-breaker/break record.repeatedChars must be an integer from 0 through record.at')
      break
    case 'loop-breaker/stall':
      if (!JUDGES.has(record.judge)) fail(`loop-breaker/stall record.judge must be call or step, got ${JSON.stringify(record.judge)}`)
      if (typeof record.reason !== 'string' || record.reason === '') fail('loop-breaker/stall record.reason must be a non-empty string')
      break
    default:
      break
  }
  if (point === 'loop-breaker/break' || point === 'loop-breaker/stall') {
    if (!BREAK_ACTIONS.has(record.action)) fail(`${point} record.action must be one of ${[...BREAK_ACTIONS].join(', ')}, got ${JSON.stringify(record.action)}`)
    if (decision !== record.action) fail(`${point} decision ${JSON.stringify(decision)} must be its record.action ${JSON.stringify(record.action)}`)
    if (!count(record.level, 0)) fail(`${point} record.level must be a non-negative integer`)
  } else if (typeof decision !== 'string' || decision === '') {
    fail(`${point} decision must be a non-empty string`)
  }
}

/** Validate one event against the events committed before it. */
function validateEvent(history: readonly LoggedEvent[], event: LoggedEvent, fail: Fail): void {
  if (isLegacyJournalType(event.type)) fail(`${event.type} is the old record form DSH refuses to load; write ${JOURNAL_EVENT_TYPE} (see dsh-loop-breaker/journal)`)
  const data = event.data
  if (event.type !== JOURNAL_EVENT_TYPE || !isMapping(data) || data.handlerId !== JOURNAL_HANDLER_ID) return
  const record = readJournalRecord(event.type, data)
  if (record === undefined) fail(`loop-breaker hook/result must name a known record in point and carry record {turn, step}, got point ${JSON.stringify(data.point)}`)
  if (data.turn !== record.data.turn) fail(`${record.name} names turn ${data.turn} but its record turn ${record.data.turn}`)
  if (!count(record.data.turn, 1) || !count(record.data.step, 0)) fail(`${record.name} record.turn must be a positive integer and record.step a non-negative integer`)
  if (data.durationMs !== 0) fail(`${record.name} durationMs must be 0 (the reaction runs inside the call it judges)`)
  const boundary = history.findLast((prior) => prior.type === 'turn/start' || prior.type === 'turn/end')
  if (boundary?.type !== 'turn/start') fail(`${record.name} must be appended inside an open turn`)
  const openTurn = isMapping(boundary.data) ? boundary.data.turn : undefined
  if (openTurn !== data.turn) fail(`${record.name} names turn ${data.turn} but the open turn is ${openTurn}`)
  validateRecord(record.name, data.decision, record.data, fail)
}

function validateSession(events: readonly LoggedEvent[], fail: Fail): void {
  for (const [index, event] of events.entries()) {
    if (event.type === JOURNAL_EVENT_TYPE || isLegacyJournalType(event.type)) validateEvent(events.slice(0, index), event, fail)
  }
}

/** Install validation for loaded and newly appended loop-breaker records. */
const install = Object.assign((ctx: InstallContext, fail: Fail) => {
  for (const session of ctx.sessions.list()) validateSession(session.events, fail)
  ctx.on('session/created', (session: LoggedSession) => validateSession(session.events, fail), { global: true })
  ctx.on('internal/dispatch', (_mode: unknown, eventName: string, args: [LoggedSession, LoggedEvent]) => {
    if (eventName !== 'session/event') return
    const [session, event] = args
    // Only this package's events pay for the history copy `session.events` makes.
    if (event.type === JOURNAL_EVENT_TYPE ? isMapping(event.data) && event.data.handlerId === JOURNAL_HANDLER_ID : isLegacyJournalType(event.type)) {
      validateEvent(session.events, event, fail)
    }
  }, { global: true })
}, { inject: ['sessions'] })

/**
 * Register the loop-breaker's invariant companion.
 * @param ctx - Cordis context carrying the invariant service.
 * @returns the installed registration's disposer after setup succeeds.
 */
export const apply = (ctx: Context): Promise<() => void> => Promise.resolve((ctx as unknown as InvariantsContext).invariants.register(PACKAGE_NAME, install))
