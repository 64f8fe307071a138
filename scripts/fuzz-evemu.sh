#!/bin/bash
# fuzz-evemu.sh - run libFuzzer on the evemu parser + frame assembler.
#
# usage: scripts/fuzz-evemu.sh [RUNS] [extra libFuzzer flags...]
#   RUNS defaults to 1000000 inputs. The corpus starts from the committed fixtures and is kept
#   in scripts/cache/fuzz-corpus (git-ignored); crashes are written to scripts/cache/fuzz-crashes.
# Builds with `swiftc -O -sanitize=fuzzer` (the toolchain's libFuzzer): TouchValues and EvdevValues
# as static libraries, then TouchInput's C-free sources plus scripts/fuzz/EvemuFuzzTarget.swift as
# one module.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-1000000}; shift || true
OUT=scripts/cache/fuzz
mkdir -p "$OUT" scripts/cache/fuzz-corpus scripts/cache/fuzz-crashes
SWIFTC=${SWIFTC:-swiftc}

# One package (`-package-name`, as SwiftPM builds it): EvdevValues' helpers of `package` access
# are seen across its modules.
"$SWIFTC" -O -sanitize=fuzzer -parse-as-library -package-name gestured -module-name TouchValues -emit-module \
  -emit-module-path "$OUT/TouchValues.swiftmodule" -emit-library -static -o "$OUT/libTouchValues.a" \
  Sources/TouchValues/*.swift
"$SWIFTC" -O -sanitize=fuzzer -parse-as-library -package-name gestured -module-name EvdevValues -emit-module \
  -emit-module-path "$OUT/EvdevValues.swiftmodule" -emit-library -static -o "$OUT/libEvdevValues.a" -I "$OUT" \
  Sources/EvdevValues/*.swift
# libinput record files are YAML: a recording's type knows both formats.
"$SWIFTC" -O -sanitize=fuzzer -parse-as-library -package-name gestured -module-name YAMLCoding -emit-module \
  -emit-module-path "$OUT/YAMLCoding.swiftmodule" -emit-library -static -o "$OUT/libYAMLCoding.a" -I Sources/CYaml \
  Sources/YAMLCoding/*.swift

# The parts of TouchInput a recording goes through (no libevdev/libudev/logging).
SOURCES=()
for f in Devices/DeviceClassifier Devices/DeviceSettings Devices/SurfaceSize Devices/TouchscreenModel \
         Frames/TouchFrameBuffer Wrappers/MtdevConverter Frames/FrameAssembler Replay/EvemuRecording \
         Replay/LibinputRecording Replay/RecordingFile Replay/Recording Replay/ReplaySource; do
  SOURCES+=("Sources/TouchInput/$f.swift")
done
"$SWIFTC" -O -sanitize=fuzzer -parse-as-library -package-name gestured -module-name EvemuFuzz -I "$OUT" \
  -I Sources/CMtdev -I Sources/CYaml "${SOURCES[@]}" scripts/fuzz/EvemuFuzzTarget.swift -L "$OUT" -lYAMLCoding \
  -lEvdevValues -lTouchValues -lmtdev -lyaml -lm -o "$OUT/fuzz-evemu"

cp -n Tests/TouchInputTests/Fixtures/*.event scripts/cache/fuzz-corpus/ 2>/dev/null || true
{ xz -dc Tests/TouchInputTests/Fixtures/3m.event.xz || true; } | head -c 20000 > scripts/cache/fuzz-corpus/3m-head.event

start=$(date +%s)
"$OUT/fuzz-evemu" -runs="$RUNS" -max_len=16384 -artifact_prefix=scripts/cache/fuzz-crashes/ \
  -print_final_stats=1 "$@" scripts/cache/fuzz-corpus
echo "fuzz-evemu: $RUNS inputs in $(( $(date +%s) - start )) s, no crash"
