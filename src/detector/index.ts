// dsh-loop-breaker/detector: the dependency-free detection core (no imports outside this directory,
// no Node API). One `StreamDetector` per model call, one `CallJudge` and one `StepJudge` per agent.

export { StreamDetector } from './stream-detector.ts'
export { DetectorPlan, DEFAULT_GUARDS, SIDE_GUARDS, type SidePlan } from './plan.ts'
export { CallJudge, type CallObservation } from './judges/call-judge.ts'
export {
  STEP_TEXT_NON_WHITESPACE, StepJudge, stepContentIdentity, stepSignature, type StepContent, type StepObservation, type StepToolCall,
} from './judges/step-judge.ts'
export { CompletedCallJudges, isJudgedFinish, type CompletedCallFinding, type CompletedCallObservation } from './judges/completed-calls.ts'
export {
  DETECTOR_SETTINGS,
  DEFAULT_CONFIG,
  resolveDetectorConfig,
  type DetectorConfig,
  type DetectorSetting,
  type DetectorSettingName,
} from './settings.ts'
export type { Side, SideGuard, DetectorGuards, ResolvedDetector, Trip, RuleName, StallReason, StepVerdict } from './types.ts'
