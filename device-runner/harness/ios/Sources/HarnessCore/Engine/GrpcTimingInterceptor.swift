import Foundation
import GRPC
import NIOCore
import NIOSSL

/// Maps one gRPC call's request and response parts to the contract's phases (the twin of
/// GrpcTimingTracer.kt; URLSession's metrics never see grpc-swift's own HTTP/2 stack).
///
/// | grpc-swift event                                 | contract field                    |
/// |--------------------------------------------------|-----------------------------------|
/// | (harness) before the call is made                | t0                                |
/// | ConnectivityStateDelegate .connecting            | conn_start                        |
/// | channel active (TCP up, TLS begins)              | tls_start                         |
/// | NIOSSL handshakeCompleted(negotiatedProtocol)    | conn_ready, alpn                  |
/// | send .metadata / send .end                       | req_start / req_end               |
/// | receive .metadata                                | resp_first_byte, resp_headers_end |
/// | receive .end                                     | resp_end                          |
/// | call status resolved (whenComplete)              | app_done                          |
final class GrpcTimingInterceptor: ClientInterceptor<RawBytes, RawBytes> {
    private let m: Measurement
    private(set) var serverResponded = false
    private(set) var received: Int64 = 0

    init(_ m: Measurement) { self.m = m }

    override func send(_ part: GRPCClientRequestPart<RawBytes>, promise: EventLoopPromise<Void>?,
                       context: ClientInterceptorContext<RawBytes, RawBytes>) {
        switch part {
        case .metadata: m.timeline.markFirst(.reqStart)
        case .message: break
        case .end: m.timeline.mark(.reqEnd)
        }
        context.send(part, promise: promise)
    }

    override func receive(_ part: GRPCClientResponsePart<RawBytes>, context: ClientInterceptorContext<RawBytes, RawBytes>) {
        switch part {
        case .metadata(let headers):
            serverResponded = true
            m.timeline.markFirst(.respFirstByte)
            m.timeline.markFirst(.respHeadersEnd)
            m.serverTimeUs = ServerTiming.parseMicros(headers.first(name: "server-timing"))
        case .message(let message):
            received += Int64((try? TargetService.dataLength(message.data)) ?? 0)
        case .end(_, let trailers):
            serverResponded = serverResponded || trailers.contains(name: "grpc-status")
            m.timeline.markFirst(.respFirstByte)
            m.timeline.markFirst(.respHeadersEnd)
            m.timeline.mark(.respEnd)
            if m.serverTimeUs == nil { m.serverTimeUs = ServerTiming.parseMicros(trailers.first(name: "server-timing")) }
        }
        context.receive(part)
    }
}

/// Marks the connection phases on the request in flight, from the channel itself (the twin of
/// ConnectionRegistry/TimedSslSocket.kt). One ChannelTap per channel reports to it.
final class ConnectionObserver: ConnectivityStateDelegate {
    private let lock = NSLock()
    private var _current: Timeline?
    private var _alpn: String?

    /// The request whose connection phases channel events mark (one at a time: a group's first call).
    var current: Timeline? {
        get { lock.lock(); defer { lock.unlock() }; return _current }
        set { lock.lock(); _current = newValue; lock.unlock() }
    }

    /// The ALPN the latest TLS handshake negotiated (nil: none).
    var alpn: String? {
        get { lock.lock(); defer { lock.unlock() }; return _alpn }
        set { lock.lock(); _alpn = newValue; lock.unlock() }
    }

    private let settled = NSCondition()
    private var state: ConnectivityState = .idle

    func connectivityStateDidChange(from oldState: ConnectivityState, to newState: ConnectivityState) {
        if newState == .connecting { current?.markFirst(.connStart) }
        settled.lock(); state = newState; settled.broadcast(); settled.unlock()
    }

    /// A new connection is being set up: nothing about it has happened yet.
    func connectionOpening() {
        settled.lock(); state = .idle; settled.unlock()
    }

    /// Until the connection is ready or has failed (a concurrency group's first call opened it),
    /// at most `timeoutMs`: the group's other calls then go out as streams on it.
    func waitUntilSettled(timeoutMs: Int) {
        let deadline = Date().addingTimeInterval(Double(timeoutMs) / 1000)
        settled.lock(); defer { settled.unlock() }
        while state == .idle || state == .connecting {
            if !settled.wait(until: deadline) { return }
        }
    }
}

/// Added to every channel through debugChannelInitializer: TCP up (tls_start) and the end of
/// the TLS handshake with its ALPN (conn_ready).
final class ChannelTap: ChannelInboundHandler {
    typealias InboundIn = Any
    private let observer: ConnectionObserver

    init(_ observer: ConnectionObserver) { self.observer = observer }

    func channelActive(context: ChannelHandlerContext) {
        observer.current?.mark(.tlsStart)
        context.fireChannelActive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let tls = event as? TLSUserEvent, case .handshakeCompleted(let negotiated) = tls {
            observer.alpn = negotiated
            observer.current?.mark(.connReady)
        }
        context.fireUserInboundEventTriggered(event)
    }
}
