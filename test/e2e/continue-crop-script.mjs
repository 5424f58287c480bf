/** The "continue-crop" flow's script, shared by its model (`continue-crop-model.mjs`) and its checks. */
export const TITLE = 'Build script test step'
export const PROBE_TOOL = 'e2e_probe'
export const ANSWER_START = 'Plan for the build script: 1. run the unit tests; 2. run the type check; 3. pack the pack'
export const ANSWER_REST = 'age only when both pass, so a broken build never reaches the registry.'
