/**
 * `retry-coordinator`: the DSH plugin that decides, on `agent/request-error`, whether a failed model
 * request is retried, handed to compaction, or ends the turn with an explanation; and the pure
 * classification and delay functions it runs on, exported for tests and tools. It replaces DSH's
 * `llm-retry` (disable that row: two executors would retry twice). It does not touch the stream: a
 * call the loop-breaker cut ends with a normal stop and never reaches this plugin.
 */
import type { Context } from '@deepseek-ai/cordis'
import Schema from '@deepseek-ai/schemastery'
import { checkedSchema, closestName, sayRejectedEdits } from '../checked-schema.ts'
import { sayUnappliedPatches } from '../patch-failures.ts'
import { isMapping } from '../mapping.ts'
import { BudgetError, BudgetPatchSchema, PLUGIN_NAME, resolveBudgets } from './budgets.ts'
import type { BudgetPatch } from './budgets.ts'
import type { RetryableKind } from './classify.ts'
import { recoverRequestError } from './coordinator.ts'

export { classifyFailure, isRetryableKind, RETRYABLE_KINDS } from './classify.ts'
export type { Classification, FailureInput, FailureKind, RetryableKind } from './classify.ts'
export { computeDelay, parseMessageDelay, serverDelay } from './delay.ts'
export type { Delay, DelayBudget, DelaySource, ServerDelay } from './delay.ts'
export { BudgetError, DEFAULT_BUDGETS, resolveBudgets } from './budgets.ts'
export type { Budget, BudgetPatch, Budgets, BudgetTable } from './budgets.ts'
export { CONTEXT_OVERFLOW_PATTERNS, OUTPUT_RESERVE_PATTERNS } from './overflow-patterns.ts'
export type { WordingPattern } from './overflow-patterns.ts'
export { RETRY_EVENT, RETRY_STARTED_EVENT, isCoordinatorRetry, policyKeyOf } from './events.ts'
export type { CoordinatorRetryEventData, CoordinatorRetryStartedEventData } from './events.ts'
export type { StopReason } from './coordinator.ts'

/** The plugin's name in DSH's config: `retry-coordinator`. */
export const name = PLUGIN_NAME
/** The DSH services the plugin needs before it applies: `agents`, whose `agent/request-error` it answers. */
export const inject = ['agents']

/** The plugin's settings: budget overrides, global and per provider. */
export interface Config {
  /**
   * Overrides of the default budget per retryable kind (`rate-limit`, `server`, `network`, `stream`,
   * `empty-response`), field by field; see `DEFAULT_BUDGETS` for the defaults. Default `{}`.
   */
  budgets?: Partial<Record<RetryableKind, BudgetPatch>>
  /**
   * Per-provider overrides (keyed by provider route, e.g. `deepseek-official`), applied field by field
   * on top of `budgets`. Default `{}`.
   */
  providers?: Record<string, Partial<Record<RetryableKind, BudgetPatch>>>
}

const SETTINGS = {
  budgets: Schema.dict(BudgetPatchSchema).default({}).description('Budget overrides per retryable kind.'),
  providers: Schema.dict(Schema.dict(BudgetPatchSchema)).default({}).description('Budget overrides per provider, then per kind.'),
}
const ConfigFields = Schema.object(SETTINGS)

/** Every check of the budgets, run inside the schema (see ../checked-schema.ts), by the same code `apply` resolves them with. */
function checkConfig(raw: unknown): void {
  if (raw === undefined || raw === null) return
  if (!isMapping(raw)) throw new BudgetError(`${PLUGIN_NAME}: config must be a mapping with budgets and providers (got ${JSON.stringify(raw)})`)
  for (const key of Object.keys(raw)) {
    if (Object.hasOwn(SETTINGS, key)) continue
    const closest = closestName(key, Object.keys(SETTINGS))
    throw new BudgetError(`${PLUGIN_NAME}: ${key} is not a setting, ${closest !== undefined ? `did you mean ${closest}?` : 'the settings are budgets and providers'} (got ${key}: ${JSON.stringify(raw[key])})`)
  }
  resolveBudgets(raw.budgets as Record<string, unknown> | undefined, raw.providers as Record<string, Record<string, unknown>> | undefined)
}

/**
 * The schema Cordis validates the plugin's settings with, before it starts the plugin and before a live
 * edit restarts it: it fills the defaults and runs every budget check `apply` would, so a bad value is
 * refused with one line naming it and a running plugin keeps its previous config.
 */
export const Config: Schema<Config> = checkedSchema<Config>(ConfigFields, checkConfig, BudgetError)

/**
 * Install the coordinator: resolve the budgets, then answer every `agent/request-error` before any other
 * listener (retry with a wait, hand an overflow to compaction, or end the turn with an explanation). On
 * dispose it stops listening, aborts the waits in flight and waits for their decisions to settle.
 * @param ctx - the plugin's Cordis context.
 * @param config - the plugin's settings; `{}` keeps every default budget.
 * @throws BudgetError when a budget override is not allowed (see `resolveBudgets`).
 */
export function apply(ctx: Context, config: Config = {}): void {
  const budgets = resolveBudgets(config.budgets, config.providers as Record<string, Record<string, unknown>> | undefined)
  sayRejectedEdits(ctx, PLUGIN_NAME)
  sayUnappliedPatches(ctx, PLUGIN_NAME)
  const lifetime = new AbortController()
  const active = new Set<Promise<unknown>>()
  // Prepended so the coordinator sees a failure before any other recovery listener: it is the one
  // retry executor, and its overflow re-tagging must precede dsh-compaction-basic's code check.
  const dispose = ctx.on('agent/request-error', (payload, next) => {
    const decision = recoverRequestError(payload, next, { budgets, lifetime: lifetime.signal })
    const settled = decision.then(() => undefined, () => undefined)
    active.add(settled)
    void settled.then(() => active.delete(settled))
    return decision
  }, { prepend: true })
  ctx.effect(() => async () => {
    dispose()
    lifetime.abort(new Error(`${PLUGIN_NAME} disposed`))
    await Promise.allSettled([...active])
  }, `${PLUGIN_NAME}: end waits on dispose`)
}
