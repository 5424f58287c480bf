/**
 * The one test for "a JSON/YAML mapping" (an object that is not an array) that the plugin's config, the
 * retry budgets, the durable records and the session reader all need. Dependency-free, so every entry
 * may import it.
 */

/**
 * Whether a parsed JSON or YAML value is a mapping: an object, not an array, not `null`.
 * @param value - any parsed value.
 * @returns true for a mapping, narrowing `value` to a record of its fields.
 */
export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
