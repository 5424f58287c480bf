/**
 * A plugin config schema that holds every constraint, for both DSH plugins of this package. Cordis
 * validates a row's config against the plugin's schema before it starts the plugin and before it
 * restarts it on a live edit, and a schema failure leaves the running plugin on its previous config; a
 * check inside `apply` only runs during the restart, where an error takes the whole `dsh` process down
 * (docs/config.md#when-a-setting-is-wrong). So each plugin's own check runs here, inside the schema.
 */
import Schema from '@deepseek-ai/schemastery'

export { closestName } from './closest-name.ts'

/**
 * `fields` (defaults, descriptions, ranges, for docs and form UIs) behind `check`, which runs first on the
 * raw config and throws a `mistake` error, one line naming the plugin, the setting, what it allows and the
 * value given. That line becomes the schemastery `ValidationError` message as is (no path prefix: the
 * line already names the setting), which Cordis prints under its `invalid config:` header.
 */
export function checkedSchema<T>(fields: Schema, check: (raw: unknown) => void, mistake: abstract new (...args: never[]) => Error): Schema<T> {
  const checkFirst = Schema.transform(Schema.any(), (raw: unknown) => {
    try {
      check(raw)
    } catch (error) {
      if (error instanceof mistake) throw new Schema.ValidationError(error.message, {})
      throw error
    }
    return undefined
  }, true)
  return Schema.intersect([checkFirst, fields]).default({}) as unknown as Schema<T>
}

/**
 * Says on stderr (through `write`) that a live edit of the plugin's row was rejected and the plugin runs on
 * with its previous settings: DSH's loader logs the rejection where rc.8 prints nothing
 * (docs/config.md#on-a-live-edit). Registered from `apply`, it lives exactly while the plugin runs.
 */
export function sayRejectedEdits(
  ctx: { logger: { exporter(exporter: object): unknown } },
  plugin: string,
  write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): void {
  const marker = `  - ${plugin}: `
  ctx.logger.exporter({
    // Cordis levels: error is 0, so this exporter sees every logger's errors and nothing else.
    levels: { default: 0 },
    export: (message: { args: unknown[] }) => {
      const [error] = message.args
      if (!(error instanceof Error) || error.name !== 'ValidationError') return
      for (const line of error.message.split('\n')) {
        if (line.startsWith(marker)) write(`${line.slice(4)}; the edit is not applied, ${plugin} keeps running with its previous settings`)
      }
    },
  })
}
