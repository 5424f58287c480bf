// Types of script.mjs (plain JS so the e2e's Node processes load it without a build), for TypeScript tests.
export declare const NORMAL_ANSWER: string
export declare const TITLE: string
export declare const FOLLOW_UP_TASK: string
export declare const FOLLOW_UP_ANSWER: string
/** The e2e's endless phrase-pool loop, one sentence at a time. */
export declare function phrasePoolLoop(): Generator<string, never, undefined>
/** The e2e's endless counter loop (a prologue, then one numbered sentence at a time). */
export declare function counterLoop(): Generator<string, never, undefined>
/** The counter loop's twelve steps, round after round: each round equal to the last. */
export declare function roundsLoop(): Generator<string, never, undefined>
/** The loop a scripted model streams, by model id. */
export declare const LOOPS: Record<'e2e-phrase-pool' | 'e2e-counter-loop' | 'e2e-rounds-loop' | 'e2e-loop-every-call', () => Generator<string, never, undefined>>
/** The model ids that loop on every call, whatever the plugin's notices say. */
export declare const LOOPS_ON_EVERY_CALL: ReadonlySet<string>
