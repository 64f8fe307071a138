#!/bin/sh
# Builds a profiling driver against the engine, in the current directory: compiles the engine as
# its own module the way a release build does (-O, whole module) and links DRIVER (a file of this
# folder, with top-level code) and the benchmarks' FrameCycle.swift to it, as ./driver.
# Usage (from engine-callgrind.sh and define-callgrind.sh): build-driver.sh REPO DRIVER
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$1
# The engine's sources are in folders; the paths have no spaces.
# shellcheck disable=SC2046
swiftc -O -wmo -parse-as-library -module-name GestureEngine -emit-module -emit-library -static \
    -o libGestureEngine.a $(find "$repo/Sources/GestureEngine" -name '*.swift' | sort)
# swiftc takes top-level code only from a file named main.swift. -lm: the engine calls libm (sqrt
# in the circle check's ellipse fit).
cp "$here/$2" main.swift
swiftc -O -wmo -I . -L . -lGestureEngine -lm main.swift "$here/../Benchmarks/EngineBenchmarks/FrameCycle.swift" -o driver
