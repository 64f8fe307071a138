# Sourced, not run: the flags of the daemon's release build as shipped — a static Swift runtime
# and link-time optimization (docs/PERFORMANCE.md, "Link-time optimization"; a manifest cannot ask
# for it). install.sh, package-deb.sh, peer/run-peer.sh and link-order.sh build with them:
#   swift build "${SHIPPED_BUILD[@]}" --product gestured
SHIPPED_BUILD=(-c release --static-swift-stdlib --experimental-lto-mode=full)
