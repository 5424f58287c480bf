#!/usr/bin/env bash
# Bounded in every setting (README, Config: "The worst case per user turn"), in the real `dsh --profile
# headless` on a fresh DSH home: a model that loops on every call (the scripted model's
# `e2e-loop-every-call`, which loops again whatever the plugin's notices say), under each of the six
# combinations of `escalate` (warn, steer, cancel) and `resumeAfterBreak` (false, true), set in the
# profile's own cordis.patch.yml as a user sets them. Each run must end by itself within the timeout, and
# test/e2e/check-bounded.mjs checks the looping calls, the characters each streamed (counted by the model)
# and the visible lines against the README's bound.
# Usage: bounded.sh <tarball from npm pack> <empty work directory>; the DSH home is <work>/home. Needs what
# test/e2e/run.sh sets up: `dsh` (rc.8) and pnpm on PATH, DSH_TELEMETRY_DISABLED=1, Node >= 22.15.
set -Eeuo pipefail

tarball=$1
work=$2
e2e=$(cd "$(dirname "$0")" && pwd)
PROFILE=headless
TASK='Make the build script run the tests before it packs the package.'
# A healthy run ends in a few seconds; a loop nobody stops would stream until this kills it.
BOUNDED_TIMEOUT_SECONDS=${BOUNDED_TIMEOUT_SECONDS:-60}

say() { printf '[bounded %4ss] %s\n' "$SECONDS" "$*"; }
fail() {
  printf '\n[bounded] FAILED: %s\n' "$*" >&2
  exit 1
}
trap 'fail "command exited with $? at test/e2e/bounded.sh:$LINENO: $BASH_COMMAND"' ERR

mkdir -p "$work"
export DSH_HOME="$work/home"
say "dsh plugin --profile $PROFILE add $(basename "$tarball")"
dsh plugin --profile "$PROFILE" add "$tarball" >"$work/plugin-add.out" 2>&1 || { cat "$work/plugin-add.out"; fail "dsh plugin add failed"; }
patch_file="$DSH_HOME/profiles/$PROFILE/cordis.patch.yml"

# rc.8's headless profile needs the hmr row for the user patch layer (see run.sh); the scripted model
# (no network) is the default model of new agents.
overlay="$work/overlay.patch.yml"
cat >"$overlay" <<PATCH
- id: hmr
  disabled: false
- insert:
    - id: e2e-scripted-model
      name: $e2e/scripted-model.mjs
- id: agent-default-model
  config:
    provider: e2e-scripted
    model: e2e-loop-every-call
PATCH

for escalate in warn steer cancel; do
  for resume in false true; do
    run="$work/$escalate-$resume"
    mkdir -p "$run"
    cat >"$patch_file" <<PATCH
- id: loop-breaker
  config:
    escalate: $escalate
    resumeAfterBreak: $resume
PATCH
    say "escalate: $escalate, resumeAfterBreak: $resume (the profile's cordis.patch.yml), timeout ${BOUNDED_TIMEOUT_SECONDS}s"
    : >"$run.requests.jsonl"
    : >"$run.streams.jsonl"
    status=0
    started=$SECONDS
    (cd "$run" && E2E_MODEL_REQUEST_LOG="$run.requests.jsonl" E2E_MODEL_STREAM_LOG="$run.streams.jsonl" \
      timeout "$BOUNDED_TIMEOUT_SECONDS" dsh --profile "$PROFILE" --patch "$overlay" "$TASK" >"$run.stdout" 2>"$run.stderr") || status=$?
    say "exit status $status after $((SECONDS - started))s; the plugin's lines:"
    grep '^\[loop-breaker\]' "$run.stderr" || true
    [ "$status" != 124 ] || fail "escalate $escalate, resumeAfterBreak $resume: the turn did not end within ${BOUNDED_TIMEOUT_SECONDS}s"
    node "$e2e/check-bounded.mjs" "$run.requests.jsonl" "$run.streams.jsonl" "$run.stderr" "$escalate" "$resume" "$status" ||
      { tail -n 20 "$run.stderr" >&2; fail "escalate $escalate, resumeAfterBreak $resume: see above"; }
  done
done
