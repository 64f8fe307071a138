#!/bin/sh
# Builds a profiling driver against the engine, in the current directory: compiles the engine as
# its own module the way a release build does (-O, whole module) and links DRIVER (a file of this
# folder, with top-level code) and the benchmarks' FrameCycle.swift to it, as ./driver.
# Usage (from engine-callgrind.sh and define-callgrind.sh): build-driver.sh REPO DRIVER
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$1
# The engine's sources are in folders; the paths have no spaces. The touch values (TouchValues)
# are a module of their own, as in the package; the engine re-exports them. Both are compiled as
# one package (`-package-name`, as SwiftPM does), within which the engine's Codable conformances
# of the values (SurfaceRect's) are its own, not retroactive.
# shellcheck disable=SC2046
swiftc -O -wmo -parse-as-library -package-name gestured -module-name TouchValues -emit-module -emit-library \
    -static -o libTouchValues.a $(find "$repo/Sources/TouchValues" -name '*.swift' | sort)
# shellcheck disable=SC2046
swiftc -O -wmo -parse-as-library -package-name gestured -module-name GestureEngine -emit-module -emit-library \
    -static -I . -o libGestureEngine.a $(find "$repo/Sources/GestureEngine" -name '*.swift' | sort)
# swiftc takes top-level code only from a file named main.swift. -lm: the engine calls libm (sqrt
# in the circle check's ellipse fit).
cp "$here/$2" main.swift
swiftc -O -wmo -I . -L . -lGestureEngine -lTouchValues -lm main.swift "$here/../Benchmarks/EngineBenchmarks/FrameCycle.swift" -o driver
