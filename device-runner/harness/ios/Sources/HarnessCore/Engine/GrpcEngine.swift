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
        if arm.connection != .warm { closeConnection() }
        let m = Measurement(Timeline())
        guard let call = TargetService.map(request, body: body) else {
            m.fail(.other, "no gRPC mapping for \(request.method) \(request.path.prefix(200))")
            return m
        }
        observer.current = m.timeline
        defer { observer.current = nil }
        let conn = connection ?? openConnection()
        connection = conn
        let interceptor = GrpcTimingInterceptor(m)
        let options = CallOptions(customMetadata: HPACKHeaders(request.headers.map { ($0.key.lowercased(), $0.value) }),
                                  timeLimit: .timeout(.milliseconds(Int64(settings.timeoutMs))))
        let status: GRPCStatus
        do {
            if call.streaming {
                let rpc: ServerStreamingCall<RawBytes, RawBytes> = conn.makeServerStreamingCall(
                    path: call.path, request: RawBytes(call.message), callOptions: options, interceptors: [interceptor]) { _ in }
                status = try rpc.status.wait()
            } else {
                let rpc: UnaryCall<RawBytes, RawBytes> = conn.makeUnaryCall(
                    path: call.path, request: RawBytes(call.message), callOptions: options, interceptors: [interceptor])
                status = try rpc.status.wait()
            }
        } catch {
            m.timeline.markFirst(.appDone)
            m.fail(.other, "\(error)")
            closeConnection()
            return m
        }
        m.timeline.mark(.appDone)
        m.connReused = !m.timeline.has(.connStart)
        if !m.connReused! { connId = UUID().uuidString.prefix(16).lowercased() }
        m.connId = connId
        m.alpn = observer.alpn
        m.earlyData = false
        m.reqBytes = call.requestBytes
        m.respBytes = interceptor.received
        interpret(status, serverResponded: interceptor.serverResponded, m)
        if m.failed && m.errorClass != .http { closeConnection() }
        if arm.connection != .warm { closeConnection() }
        return m
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
