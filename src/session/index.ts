/**
 * `dsh-loop-breaker/session`: reads DSH session logs (rc.8 and v4, plain or
 * zstd, damaged or not) into model calls, and replays them through the
 * detector exactly as the live `loop-breaker` plugin feeds it. Node only
 * (file streams); the detector itself is passed in, so this entry carries no
 * copy of it.
 */
export { SessionReader, readSession } from './reader.ts'
export type { ReadOptions, SessionLog } from './reader.ts'
export { findSessionFiles } from './discover.ts'
export type { DiscoveredFiles } from './discover.ts'
export { ZstdFramesDecoder, startsWithZstdFrame } from './zstd-frames.ts'
export type { ZstdDamage } from './zstd-frames.ts'
export { JOURNAL_EVENT_TYPE, JOURNAL_PREFIX, readJournalRecord, upgradeLegacyRecord, isLegacyJournalType } from '../journal.ts'
export type { JournalRecord, JournalEventData, JournalRecordName } from '../journal.ts'
export type {
  Delta, DeltaSide, FinishReason, PluginEvent, ReadIssue, SessionCall, SessionFormat, SessionItem, ToolCall,
} from './types.ts'
export { SessionReplay } from './replay.ts'
export type { CallVerdict, DetectorModule } from './replay.ts'
export { analyzeFile, disagreement } from './analyze.ts'
export type { AnalyzedCall, AnalyzeOptions, Comparison, CutTrace, FileAnalysis } from './analyze.ts'
export { readPatchConfig, loopBreakerRows, parsePatchFile, guardsOf, PatchFileError } from './patch-config.ts'
export { jsExpression } from '../patch-dialect.ts'
export type { UnknownSetting } from './patch-config.ts'
export { GUARD_SETTING_NAMES } from '../plugin/setting-names.ts'
export { closestName } from '../closest-name.ts'
export type { ReplayConfig } from './replay.ts'
export { runReplayWorker } from './replay-worker.ts'
export { repairSessionLog, RepairError } from './repair.ts'
export type { RepairOptions, RepairReport } from './repair.ts'
export { zstdFrame, rawZstdFrame, zstdCompressionAvailable } from './zstd-encode.ts'
