/**
 * How the plugin reports: each reaction as one durable record in the agent's session (unless `journal`
 * is off; the format is `../journal.ts`'s) and one log line the user sees (visible-log.ts), and a
 * failure it let pass as a warning, since it never breaks a turn by itself.
 */
import type { Logger } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import { journalEvent } from '../journal.ts'
import type { JournalRecordKind } from '../journal.ts'
import type {} from './events.ts'

export class Recorder {
  /**
   * @param logger - the plugin's own logger, whose lines reach the user.
   * @param journal - whether reactions are recorded in the session (the `journal` setting).
   */
  constructor(private readonly logger: Logger, private readonly journal: boolean) {}

  /** One durable record (unless `journal` is off) and the user's one log line for it. */
  record(agent: Agent, kind: JournalRecordKind, decision: string, data: { turn: number; step: number }, line: string): void {
    if (this.journal) agent.session.append('hook/result', journalEvent(kind, decision, data))
    this.logger.info(line)
  }

  /** Something threw while the plugin watched or reacted: the call streams on as if the plugin were not there. */
  failOpen(agent: Agent | undefined, error: unknown): void {
    this.logger.warn('failed on agent %s, the call streams on untouched: %s', agent?.id ?? '?', errorText(error))
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
