import CLinuxSupport
import GestureEngine
import GestureProtocol
import GestureServer
import Glibc
import Logging

/// Signals: SIGHUP reloads the configuration (compiled behind the definition changes before it),
/// SIGTERM and SIGINT stop the loop.
extension InputLoop {
    func takeSignals() {
        while true {
            let signal = gestured_signal_pipe_read(signals)
            guard signal > 0 else { return }
            switch signal {
            case SIGHUP:
                reload()
            default:
                logger.info("stopping", metadata: ["signal": "\(String(cString: strsignal(signal)))"])
                notifier.stopping()
                stopping = true
            }
        }
    }

    /// SIGHUP: the configuration file is read again, and validated and compiled with the
    /// clients' definitions, on the compiler's thread, behind the definition changes queued
    /// before it. A file that does not load keeps the running configuration (and says why);
    /// one that loads replaces it (R9: gestures in progress are cancelled, unless the engine's
    /// part is the running one's), reopening the devices when their settings changed
    /// (``reloaded(_:dropped:wallNow:)``). `ping`s do not wait for it.
    private func reload() {
        guard let configPath else {
            logger.notice("SIGHUP ignored: running on the built-in configuration (no --config)")
            return
        }
        notifier.reloading()
        definitionQueue.append(.reload(configPath), from: nil)
        compileNext()
    }

    /// The rest of a reload, once its definitions run: the clients told what it dropped, the
    /// daemon's own settings, the devices reopened when their rules changed.
    func reloaded(_ loaded: LoadedConfiguration, dropped: [DroppedDefinitions], wallNow: Int64) {
        let fresh = loaded.configuration
        defer { notifier.ready(status: "configuration reloaded") }
        counters.counts[.reloadsSucceeded] += 1
        counters.configurationLoaded = wallNow
        counters.lastReloadFailure = nil
        server.statusChanged()
        for loss in dropped {
            guard case .client(let n) = loss.owner else { continue }
            logger.warning(
                "a reload dropped definitions of a client that no longer fit the configuration",
                metadata: ["client": "\(ClientID(n))", "dropped": "\(loss.dropped.map(\.name))"])
            server.dropped(DroppedMessage(loss), client: ClientID(n))
        }
        for ignored in loaded.ignored { logger.warning("\(ignored)") }
        if fresh.socket != configuration.socket {
            logger.notice("socket settings change when the daemon restarts")
        }
        let rulesChanged = fresh.devices != configuration.devices
        configuration = fresh
        dropIns = Array(loaded.files.dropFirst())
        logger.logLevel = fresh.logLevel.loggerLevel
        path.publishRecognizers()
        server.setPositions(fresh.positionAccess(daemonUser: geteuid()))
        if rulesChanged { source.rulesChanged(fresh.deviceRules, path, wallNow: wallNow) }
        logger.info(
            "configuration reloaded",
            metadata: [
                "recognizers": "\(path.definitions.configuration.recognizers.count)",
                "configuration": "\(loaded.files.joined(separator: ","))",
            ])
    }
}
