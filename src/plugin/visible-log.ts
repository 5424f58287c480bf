/**
 * Makes the plugin's own log lines visible on stderr. DSH rc.8 composes no console exporter for Cordis's
 * logger in any profile: the only exporter is the in-memory ring buffer Cordis's `LoggerService`
 * constructor registers (`@deepseek-ai/cordis` lib/index.js, `self.exporter({ colors: 3, export: (message)
 * => { self.buffer.push(message) ... } })`), and neither `dsh`, `dsh-app-boot` nor `dsh-headless` adds
 * one (they write their own lines with `process.stderr.write`). So `logger.info(...)` alone reaches no
 * user, at any level. The plugin registers an exporter for its own logger name only, at Cordis's default
 * threshold (info: error and info lines, not warn/debug), and writes each message as one line.
 */
import { format } from 'node:util'

/** The name of the plugin's Cordis logger; the exporter passes this name only. */
export const LOGGER_NAME = 'loop-breaker'

/** Cordis's `LoggerLevel.INFO`: an exporter passes messages at or below its level (error 0, info 1). */
const CORDIS_INFO_LEVEL = 1
/** Below Cordis's lowest level (error, 0): every other logger's messages are skipped. */
const NO_LEVEL = -1

export type LineWriter = (line: string) => void

/** Where the plugin's lines go unless a test redirects them: one line on stderr. */
export const toStderr: LineWriter = (line) => {
  process.stderr.write(`${line}\n`)
}

/**
 * Registers, for the lifetime of the plugin's fiber, an exporter that writes the `loop-breaker` logger's
 * messages (printf-style arguments formatted as Cordis's do) through `write`, one line each.
 */
export function exportOwnLogLines(ctx: { logger: { exporter(exporter: object): unknown } }, write: LineWriter = toStderr): void {
  ctx.logger.exporter({
    levels: { default: NO_LEVEL, [LOGGER_NAME]: CORDIS_INFO_LEVEL },
    export: (message: { args: unknown[] }) => write(format(...message.args)),
  })
}
