import Dispatch
import Glibc

/// Unix signals as an async sequence: each signal given is ignored by its default action and
/// delivered here instead (a Dispatch signal source, which reads them from the process's
/// signal queue on a thread of its own, as swift-service-lifecycle's do).
public final class SignalStream {
    public let signals: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    public init(_ numbers: [Int32]) {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        signals = stream
        sources = numbers.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
