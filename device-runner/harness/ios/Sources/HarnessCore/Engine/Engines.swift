import Foundation
import GRPC

/// Picks the client for each arm's protocol: URLSession for h1c/h1/h2/h3, grpc-swift for gRPC. Mirrors Engines.kt.
public struct Engines {
    public init() {}

    public func create(_ arm: Arm, settings: EngineSettings) -> ProtocolEngine {
        if let problem = Engines.schemeProblem(arm) { return FailingEngine(.protocolMismatch, problem) }
        let trust: TrustMaterial
        do { trust = try TrustMaterial.of(arm.caBundlePem) } catch {
            return FailingEngine(.tls, "arm '\(arm.label)': \(error)")
        }
        switch arm.protocol {
        case .h1c, .h1, .h2, .h3: return URLSessionEngine(arm: arm, trust: trust, settings: settings)
        case .grpc: return GrpcEngine(arm: arm, trust: trust, settings: settings)
        }
    }

    /// protocol → client implementation and version.
    public func clientStack(_ p: ArmProtocol) -> String {
        let os = ProcessInfo.processInfo.operatingSystemVersionString
        switch p {
        case .h1c, .h1, .h2, .h3: return "URLSession (CFNetwork, \(os))"
        // grpc-swift exposes no version constant: this is the version Package.swift pins.
        case .grpc: return "grpc-swift 1.23.0 (NIO, swift-nio-ssl)"
        }
    }

    /// An origin whose scheme cannot carry the arm's protocol (h2 on cleartext is let through:
    /// URLSession then really speaks HTTP/1.1 and the engine reports the mismatch).
    static func schemeProblem(_ arm: Arm) -> String? {
        let scheme = arm.origin.scheme
        switch arm.protocol {
        case .h1c:
            return scheme != "http" ? "arm '\(arm.label)': h1c is cleartext HTTP/1.1 but the origin is \(scheme)://" : nil
        case .h1, .grpc, .h3:
            return scheme != "https" ? "arm '\(arm.label)': \(arm.protocol.rawValue) needs TLS but the origin is \(scheme)://" : nil
        case .h2:
            return nil
        }
    }
}
