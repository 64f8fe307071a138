# Sourced, not run: the flags of the arm64 release build as shipped (scripts/package-deb.sh --arch
# arm64), for `scripts/cross/run.sh swift build "${CROSS_SHIPPED_BUILD[@]}" --product gestured`: the
# SDK scripts/cross/make-toolchain.sh makes and the static Swift runtime, as scripts/shipped-build.sh
# has it for this machine's build.
CROSS_SDK=(--swift-sdks-path /sdk --swift-sdk gestured-aarch64)
CROSS_SHIPPED_BUILD=("${CROSS_SDK[@]}" -c release --static-swift-stdlib)
