import Foundation
import GRPC
import NIOCore
import NIOHPACK
import NIOPosix
import NIOSSL

/// gRPC through grpc-swift 1.x (swift-nio, TLS by swift-nio-ssl), timed by GrpcTimingInterceptor
/// and ConnectionObserver (the twin of GrpcEngine.kt). warm keeps one ClientConnection per arm;
/// cold and resumed open a new one per request (swift-nio-ssl keeps no client session cache
/// across connections, so resumed behaves like cold and tls_resumed is null).
final class GrpcEngine: ProtocolEngine {
    private let arm: Arm
    private let trust: TrustMaterial
    private let settings: EngineSettings
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private let observer = ConnectionObserver()
    private var connection: ClientConnection?
    private var connId: String?

    init(arm: Arm, trust: TrustMaterial, settings: EngineSettings) {
        self.arm = arm
        self.trust = trust
        self.settings = settings
    }

    func execute(_ request: PlannedRequest, body: Data) -> Measurement {
        executeGroup([GroupRequest(request: request, body: body)])[0]
    }

    /// A started call: what finishing it needs.
    private struct StartedCall {
        let call: TargetService.Call
        let interceptor: GrpcTimingInterceptor
        let status: EventLoopFuture<GRPCStatus>
    }

    /// A group is streams on the one ClientConnection (one HTTP/2 connection): the first call
    /// opens it if needed (the connection phases are marked on its timeline) and the others are
    /// made once it is ready or failed, each with its own t0. A request without a gRPC mapping is
    /// an error sample and is not sent.
    func executeGroup(_ group: [GroupRequest]) -> [Measurement] {
        if arm.connection != .warm { closeConnection() }
        var measurements: [Measurement] = []
        var started: [StartedCall?] = []
        var opener = true
        for item in group {
            let m = Measurement(Timeline()) // t0: this call is issued now
            measurements.append(m)
            guard let call = TargetService.map(item.request, body: item.body) else {
                m.fail(.other, "no gRPC mapping for \(item.request.method) \(item.request.path.prefix(200))")
                started.append(nil)
                continue
            }
            let conn = connection ?? openConnection()
            connection = conn
            if opener {
                observer.current = m.timeline
                started.append(start(call, item.request, m, on: conn))
                observer.waitUntilSettled(timeoutMs: settings.timeoutMs)
                observer.current = nil
                opener = false
            } else {
                started.append(start(call, item.request, m, on: conn))
            }
        }
        for (m, call) in zip(measurements, started) {
            guard let call = call else { continue }
            finish(call, m)
        }
        if measurements.contains(where: { $0.failed && $0.errorClass != .http }) { closeConnection() }
        if arm.connection != .warm { closeConnection() }
        return measurements
    }

    private func start(_ call: TargetService.Call, _ request: PlannedRequest, _ m: Measurement,
                       on conn: ClientConnection) -> StartedCall {
        let interceptor = GrpcTimingInterceptor(m)
        let options = CallOptions(customMetadata: HPACKHeaders(request.headers.map { ($0.key.lowercased(), $0.value) }),
                                  timeLimit: .timeout(.milliseconds(Int64(settings.timeoutMs))))
        let status: EventLoopFuture<GRPCStatus>
        if call.streaming {
            let rpc: ServerStreamingCall<RawBytes, RawBytes> = conn.makeServerStreamingCall(
                path: call.path, request: RawBytes(call.message), callOptions: options, interceptors: [interceptor]) { _ in }
            status = rpc.status
        } else {
            let rpc: UnaryCall<RawBytes, RawBytes> = conn.makeUnaryCall(
                path: call.path, request: RawBytes(call.message), callOptions: options, interceptors: [interceptor])
            status = rpc.status
        }
        // Marked when the call ends, not where the harness waits: a group's calls end in any order.
        status.whenComplete { _ in m.timeline.markFirst(.appDone) }
        return StartedCall(call: call, interceptor: interceptor, status: status)
    }

    private func finish(_ started: StartedCall, _ m: Measurement) {
        let status: GRPCStatus
        do {
            status = try started.status.wait()
        } catch {
            m.timeline.markFirst(.appDone)
            m.fail(.other, "\(error)")
            return
        }
        m.timeline.markFirst(.appDone)
        m.connReused = !m.timeline.has(.connStart)
        if !m.connReused! { connId = UUID().uuidString.prefix(16).lowercased() }
        m.connId = connId
        m.alpn = observer.alpn
        m.earlyData = false
        m.reqBytes = started.call.requestBytes
        m.respBytes = started.interceptor.received
        interpret(status, serverResponded: started.interceptor.serverResponded, m)
    }

    private func interpret(_ status: GRPCStatus, serverResponded: Bool, _ m: Measurement) {
        let message = status.message ?? ""
        if status.isOk {
            m.status = 200 // grpc-swift accepts a response's headers only with :status 200
        } else if status.code == .deadlineExceeded {
            m.fail(.timeout, "DEADLINE_EXCEEDED: \(message)")
        } else if serverResponded {
            m.status = 200
            m.fail(.http, "grpc-status \(status.code.rawValue) (\(status.code)): \(message)")
        } else if let alpn = observer.alpn, alpn != "h2" {
            m.fail(.protocolMismatch, "negotiated ALPN '\(alpn)', arm '\(arm.label)' wants grpc (h2)")
        } else if observer.alpn == nil && m.timeline.has(.connReady) {
            m.fail(.protocolMismatch, "negotiated ALPN none, arm '\(arm.label)' wants grpc (h2)")
        } else if !m.timeline.has(.connReady) && m.timeline.has(.connStart) {
            m.fail(m.timeline.has(.tlsStart) ? .tls : .connect, "\(status.code): \(message)")
        } else {
            m.fail(.other, "\(status.code): \(message)")
        }
    }

    private func openConnection() -> ClientConnection {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        tls.applicationProtocols = ["h2"]
        if !trust.extraAnchors.isEmpty {
            let pems = (arm.caBundlePem ?? "")
            tls.additionalTrustRoots = [.certificates((try? NIOSSLCertificate.fromPEMBytes(Array(pems.utf8))) ?? [])]
        }
        let observer = self.observer
        observer.connectionOpening()
        var config = ClientConnection.Configuration.default(
            target: .hostAndPort(arm.origin.host, arm.origin.port), eventLoopGroup: group)
        config.tlsConfiguration = .makeClientConfigurationBackedByNIOSSL(configuration: tls, hostnameOverride: arm.tlsName)
        config.connectionBackoff = nil // one attempt per planned request
        config.connectivityStateDelegate = observer
        config.debugChannelInitializer = { channel in channel.pipeline.addHandler(ChannelTap(observer)) }
        return ClientConnection(configuration: config)
    }

    func closeConnection() {
        _ = try? connection?.close().wait()
        connection = nil
        connId = nil
    }

    func close() {
        closeConnection()
        try? group.syncShutdownGracefully()
    }
}
