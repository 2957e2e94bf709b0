import Foundation

/// One block's planned requests (job.schema.json), decoded and cross-checked. Mirrors Job.kt.
public struct Job {
    public let runId: String
    public let block: Int
    public let attempt: Int
    public let timeoutMs: Int
    public let gapMs: Int
    public let arms: [Arm]
    /// In `seq` order.
    public let requests: [PlannedRequest]
}

public enum ArmProtocol: String, Codable { case h1c, h1, h2, h3, grpc }

public enum ConnectionPolicy: String, Codable {
    /// One connection per arm for the whole block.
    case warm
    /// A new connection per request with nothing kept.
    case cold
    /// A new connection per request that resumes the arm's TLS session (see URLSessionEngine).
    case resumed
}

public struct Origin: Equatable {
    public let scheme: String
    public let host: String
    public let port: Int

    public var isTls: Bool { scheme == "https" }
    public var hostIsIpLiteral: Bool { Origin.isIpLiteral(host) }
    public var urlHost: String { host.contains(":") ? "[\(host)]" : host }

    /// `scheme://host[:port]`; nil when it is not one.
    public static func parse(_ text: String) -> Origin? {
        guard let components = URLComponents(string: text), let scheme = components.scheme,
              scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty,
              components.path.isEmpty, components.query == nil else { return nil }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        guard (1...65535).contains(port) else { return nil }
        return Origin(scheme: scheme, host: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: port)
    }

    public static func isIpLiteral(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { p in p.count <= 3 && !p.isEmpty && p.allSatisfy(\.isNumber) && Int(p)! <= 255 }
    }
}

public struct Arm {
    public let label: String
    public let `protocol`: ArmProtocol
    public let connection: ConnectionPolicy
    public let origin: Origin
    public let serverName: String?
    public let caBundlePem: String?

    /// The name TLS checks the certificate against.
    public var tlsName: String { serverName ?? origin.host }
}

public struct PlannedRequest {
    public let seq: Int
    public let arm: String
    public let phase: String
    public let op: String
    public let method: String
    public let path: String
    public let headers: [String: String]
    public let bodyBytes: Int
    public let newConnection: Bool
    public let period: Int?
    public let repetition: Int?
    public let step: Int?
    public let part: String?
    public let serverDelayMs: Double?
}
