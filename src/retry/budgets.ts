/**
 * Retry budgets: one per retryable kind, overridable field by field globally and per provider, checked
 * once at load so a bad value fails the plugin instead of a turn. The defaults follow what each kind
 * costs and how it clears: rate limits clear on the provider's clock (long server waits allowed, 15 min
 * per step), overload clears in seconds to minutes, a dropped connection is worth retrying for as long
 * as the network is out (persistent, still capped by its deadline), a broken stream or an empty answer
 * repeats a paid call, so few tries.
 */
import Schema from '@deepseek-ai/schemastery'
import { isMapping } from '../mapping.ts'
import { RETRYABLE_KINDS } from './classify.ts'
import type { RetryableKind } from './classify.ts'

export const PLUGIN_NAME = 'retry-coordinator'

/** How one retryable kind is retried: how many times, for how long, and how long each wait may be. */
export interface Budget {
  /** `bounded`: at most `maxRetries`; `persistent`: no count, only `deadlineMs` (and no server-delay ceiling) stops it. */
  mode: 'bounded' | 'persistent'
  /** Retries of this kind in one step (bounded mode). */
  maxRetries: number
  /** Total time from the step's first failure after which no retry is scheduled. Always finite. */
  deadlineMs: number
  /** First backoff delay when the server names none. */
  initialDelayMs: number
  /** Backoff ceiling (a longer server delay is still honoured, up to `maxServerDelayMs`). */
  maxDelayMs: number
  /** Jitter added to each delay, as a fraction of it (0–1); it only ever lengthens a wait. */
  jitterRatio: number
  /** Longest server-requested wait accepted in bounded mode; a longer one ends the turn with a message. */
  maxServerDelayMs: number
}

/** An override of some fields of a `Budget`; the fields it leaves out keep their default. */
export type BudgetPatch = Partial<Budget>
/** One `Budget` per retryable kind. */
export type Budgets = Record<RetryableKind, Budget>

const MINUTE = 60_000

/**
 * The budget of each retryable kind when the config overrides nothing; why each value, in the comment at
 * the top of this file. Frozen.
 */
export const DEFAULT_BUDGETS: Readonly<Budgets> = Object.freeze({
  'rate-limit': { mode: 'bounded', maxRetries: 8, deadlineMs: 15 * MINUTE, initialDelayMs: 2000, maxDelayMs: 60_000, jitterRatio: 0.2, maxServerDelayMs: 5 * MINUTE },
  server: { mode: 'bounded', maxRetries: 6, deadlineMs: 10 * MINUTE, initialDelayMs: 1000, maxDelayMs: 30_000, jitterRatio: 0.2, maxServerDelayMs: 2 * MINUTE },
  network: { mode: 'persistent', maxRetries: 10, deadlineMs: 30 * MINUTE, initialDelayMs: 1000, maxDelayMs: 30_000, jitterRatio: 0.2, maxServerDelayMs: MINUTE },
  stream: { mode: 'bounded', maxRetries: 3, deadlineMs: 5 * MINUTE, initialDelayMs: 1000, maxDelayMs: 15_000, jitterRatio: 0.2, maxServerDelayMs: MINUTE },
  'empty-response': { mode: 'bounded', maxRetries: 2, deadlineMs: 2 * MINUTE, initialDelayMs: 500, maxDelayMs: 5000, jitterRatio: 0.2, maxServerDelayMs: 30_000 },
})

/** Largest timer delay Node accepts (2^31−1 ms). */
const MAX_TIMER_MS = 2 ** 31 - 1

export const BudgetPatchSchema: Schema<BudgetPatch> = Schema.object({
  mode: Schema.union(['bounded', 'persistent']).description('bounded: at most maxRetries; persistent: until deadlineMs.'),
  maxRetries: Schema.number().description('Retries of this kind per step (bounded mode).'),
  deadlineMs: Schema.number().description('Time from the step\'s first failure after which no retry is scheduled.'),
  initialDelayMs: Schema.number().description('First backoff delay.'),
  maxDelayMs: Schema.number().description('Backoff ceiling.'),
  jitterRatio: Schema.number().description('Additive jitter, fraction of the delay (0–1).'),
  maxServerDelayMs: Schema.number().description('Longest server-requested wait accepted (bounded mode).'),
})

/** A budget setting is not allowed: one line naming the path, the rule and the value given. */
export class BudgetError extends Error {
  override name = 'BudgetError'
}

function fail(path: string, rule: string, value: unknown): never {
  throw new BudgetError(`${PLUGIN_NAME}: ${path} ${rule} (got ${JSON.stringify(value)})`)
}

const FIELD_RULES: Record<keyof Budget, (value: unknown) => string | undefined> = {
  mode: (v) => (v === 'bounded' || v === 'persistent' ? undefined : 'must be "bounded" or "persistent"'),
  maxRetries: (v) => (Number.isSafeInteger(v) && (v as number) >= 0 ? undefined : 'must be a non-negative integer'),
  deadlineMs: (v) => (Number.isSafeInteger(v) && (v as number) > 0 ? undefined : 'must be a positive integer (even persistent kinds stop at a deadline)'),
  initialDelayMs: (v) => (Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= MAX_TIMER_MS ? undefined : `must be an integer from 0 to ${MAX_TIMER_MS}`),
  maxDelayMs: (v) => (Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= MAX_TIMER_MS ? undefined : `must be an integer from 0 to ${MAX_TIMER_MS}`),
  jitterRatio: (v) => (typeof v === 'number' && v >= 0 && v <= 1 ? undefined : 'must be a number from 0 to 1'),
  maxServerDelayMs: (v) => (Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= MAX_TIMER_MS ? undefined : `must be an integer from 0 to ${MAX_TIMER_MS}`),
}

function checkPatches(patches: Record<string, unknown> | undefined, path: string): Partial<Record<RetryableKind, BudgetPatch>> {
  if (patches !== undefined && patches !== null && !isMapping(patches)) fail(path, 'must be a mapping of retryable kinds', patches)
  for (const [kind, patch] of Object.entries(patches ?? {})) {
    if (!(RETRYABLE_KINDS as readonly string[]).includes(kind)) fail(`${path}`, `has no retryable kind "${kind}" (kinds: ${RETRYABLE_KINDS.join(', ')})`, kind)
    if (patch !== undefined && patch !== null && !isMapping(patch)) fail(`${path}.${kind}`, 'must be a mapping of budget fields', patch)
    for (const [field, value] of Object.entries((patch ?? {}) as Record<string, unknown>)) {
      const rule = FIELD_RULES[field as keyof Budget]
      if (rule === undefined) fail(`${path}.${kind}`, `has no field "${field}"`, field)
      const problem = rule(value)
      if (problem !== undefined) fail(`${path}.${kind}.${field}`, problem, value)
    }
  }
  return (patches ?? {}) as Partial<Record<RetryableKind, BudgetPatch>>
}

function merge(base: Budgets, patches: Partial<Record<RetryableKind, BudgetPatch>>, path: string): Budgets {
  const merged = {} as Budgets
  for (const kind of RETRYABLE_KINDS) {
    const budget = { ...base[kind], ...patches[kind] }
    if (budget.initialDelayMs > budget.maxDelayMs) fail(`${path}.${kind}.initialDelayMs`, `must not exceed maxDelayMs ${budget.maxDelayMs}`, budget.initialDelayMs)
    merged[kind] = Object.freeze(budget)
  }
  return merged
}

/** Budgets resolved for every provider named in the config, and for all others. */
export interface BudgetTable {
  /**
   * The budgets that apply to one provider.
   * @param provider - the provider route, e.g. `deepseek-official`.
   * @returns the provider's own budgets when the config names it, otherwise the global ones.
   */
  forProvider(provider: string): Budgets
}

/**
 * Check the config's budget overrides and merge them onto `DEFAULT_BUDGETS`: `budgets` field by field
 * over the defaults, then each provider's overrides field by field over that.
 * @param budgets - overrides per retryable kind (the plugin's `budgets` setting), or `undefined`.
 * @param providers - overrides per provider route, then per kind (the `providers` setting), or `undefined`.
 * @returns the resolved budgets, looked up per provider.
 * @throws BudgetError (not exported; `name` is `BudgetError`) with one line naming the path, the rule and
 * the value, when an override is not a mapping, names an unknown kind or field, has a value out of range,
 * or leaves a kind with `initialDelayMs` above `maxDelayMs`.
 */
export function resolveBudgets(
  budgets: Record<string, unknown> | undefined,
  providers: Record<string, Record<string, unknown>> | undefined,
): BudgetTable {
  const global = merge(DEFAULT_BUDGETS as Budgets, checkPatches(budgets, 'budgets'), 'budgets')
  const perProvider = new Map<string, Budgets>()
  if (providers !== undefined && providers !== null && !isMapping(providers)) fail('providers', 'must be a mapping of provider routes', providers)
  for (const [provider, patches] of Object.entries(providers ?? {})) {
    perProvider.set(provider, merge(global, checkPatches(patches, `providers.${provider}`), `providers.${provider}`))
  }
  return { forProvider: (provider) => perProvider.get(provider) ?? global }
}
