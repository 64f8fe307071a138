import NIOCore

/// A deadline for a whole request on a connection that is read as bytes arrive (the metrics
/// endpoint's HTTP): the clock starts at the request's first byte and stops when the request is
/// in (``requestComplete()``); a request still incomplete at ``timeout`` closes the connection.
/// So a peer that trickles a byte at a time — each byte resets an idle timer — holds its place
/// for ``timeout`` at most, not for ever.
///
/// Sits first in the connection's pipeline, where bytes come in, and passes them on unchanged;
/// whatever parses the requests says when one is complete.
public final class RequestDeadline: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = ByteBuffer
    public typealias InboundOut = ByteBuffer

    /// From a request's first byte to its end.
    public let timeout: TimeAmount
    /// Set while a request has begun and is not complete.
    private var expiry: Scheduled<Void>?

    public init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        expiry?.cancel()
        expiry = nil
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if expiry == nil {
            let channel = context.channel
            expiry = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        }
        context.fireChannelRead(data)
    }

    public func channelInactive(context: ChannelHandlerContext) {
        expiry?.cancel()
        expiry = nil
        context.fireChannelInactive()
    }

    /// The request that began is in: the clock stops until the next byte. Called on the
    /// channel's loop.
    public func requestComplete() {
        expiry?.cancel()
        expiry = nil
    }
}
