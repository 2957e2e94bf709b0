import Foundation
#if canImport(Darwin)
import Darwin
#endif

/// The job's `readiness` (job.schema.json): before the block, fetch `path` from `origin` once and
/// judge the local address against `labNetworks` (none: reported, not judged). Mirrors Readiness.kt.
public struct ReadinessRequest {
    public static let defaultPath = "/healthz"
    public let origin: Origin
    public let path: String
    public let labNetworks: [Cidr]
}

/// An address range, `192.168.10.0/24` or `fd00:1ab::/64`, parsed without any lookup. Mirrors Cidr in Readiness.kt.
public struct Cidr: CustomStringConvertible {
    public let description: String
    let network: [UInt8]
    let bits: Int

    /// The range, or nil when `text` is not address/prefix with a prefix that fits the address.
    public static func parse(_ text: String) -> Cidr? {
        let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2, let bits = Int(parts[1]), let raw = ipBytes(parts[0]),
              (0...raw.count * 8).contains(bits) else { return nil }
        return Cidr(description: text, network: raw, bits: bits)
    }

    public func contains(_ address: String) -> Bool {
        guard let raw = ipBytes(address), raw.count == network.count else { return false }
        var remaining = bits
        for (a, b) in zip(raw, network) where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : UInt8(truncatingIfNeeded: 0xFF << (8 - remaining))
            if a & mask != b & mask { return false }
            remaining -= 8
        }
        return true
    }
}

/// An IPv4 or IPv6 literal's bytes (inet_pton: no lookup), nil for anything else; an IPv6 zone (`%en0`) is dropped.
func ipBytes(_ text: String) -> [UInt8]? {
    let host = String(text.split(separator: "%", maxSplits: 1).first ?? "")
    var v4 = in_addr()
    if inet_pton(AF_INET, host, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
    var v6 = in6_addr()
    if inet_pton(AF_INET6, host, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
    return nil
}

/// result.schema.json `readiness`: what the check saw; `error` is why the block must not run. Mirrors ReadinessReport.
public struct ReadinessReport {
    public static let kinds = ["wifi", "cellular", "ethernet", "loopback", "other"]
    public let origin: String
    public let interfaceKind: String?
    public let interfaceName: String?
    public let localAddress: String?
    public let rttMs: Double?
    public let httpStatus: Int?
    public let onLabNetwork: Bool?
    public let error: String?

    public var refused: Bool { error != nil }

    public func toJSON() -> [String: Any] {
        func v(_ x: Any?) -> Any { x ?? NSNull() }
        return [
            "origin": origin, "interface": v(interfaceKind), "interface_name": v(interfaceName.map { String($0.prefix(64)) }),
            "local_address": v(localAddress), "rtt_ms": v(rttMs), "http_status": v(httpStatus),
            "on_lab_network": v(onLabNetwork), "error": v(error.map { String($0.prefix(1000)) }),
        ]
    }
}

/// The readiness check: one plain GET through its own ephemeral URLSession (not a sample, before
/// the block's first request). URLSessionTaskMetrics says which path the request really took —
/// the local address and `isCellular` of its transaction, so Wi-Fi Assist moving it onto cellular
/// is seen — and its connect time (one round trip). The interface's name comes from getifaddrs
/// (en0 Wi-Fi, pdp_ip* cellular, lo0 loopback on an iPhone). Mirrors ReadinessCheck.kt.
public final class ReadinessCheck: NSObject, URLSessionTaskDelegate {
    private let timeout: TimeInterval
    private var metrics: URLSessionTaskMetrics?

    public init(timeout: TimeInterval = 5) { self.timeout = timeout }

    public func run(_ request: ReadinessRequest) -> ReadinessReport {
        let origin = "\(request.origin.scheme)://\(request.origin.urlHost):\(request.origin.port)"
        guard let url = URL(string: origin + request.path) else {
            return ReadinessReport(origin: origin, interfaceKind: nil, interfaceName: nil, localAddress: nil, rttMs: nil,
                                   httpStatus: nil, onLabNetwork: nil, error: "cannot build a URL for \(request.path.prefix(200))")
        }
        let config = URLSessionConfiguration.ephemeral
        config.urlCache = nil
        config.timeoutIntervalForRequest = timeout
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1 // metrics arrive before completion, in order
        let session = URLSession(configuration: config, delegate: self, delegateQueue: queue)
        defer { session.invalidateAndCancel() }
        var status: Int?
        var failure: Error?
        let done = DispatchSemaphore(value: 0)
        session.dataTask(with: URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)) { _, response, error in
            status = (response as? HTTPURLResponse)?.statusCode
            failure = error
            done.signal()
        }.resume()
        if done.wait(timeout: .now() + timeout + 2) == .timedOut {
            failure = URLError(.timedOut)
        }
        let transaction = queue.addOperationAndWait { self.metrics?.transactionMetrics.last(where: { $0.resourceFetchType == .networkLoad }) }
        let local = transaction?.localAddress
        var rttMs: Double?
        if let start = transaction?.connectStartDate, let end = transaction?.connectEndDate {
            // TLS would end later than the connect; this is cleartext, so connect = one round trip.
            rttMs = (end.timeIntervalSince(start) * 1_000_000).rounded() / 1000
        }
        let name = local.flatMap(ReadinessCheck.interfaceName(holding:))
        let kind = ReadinessCheck.kind(address: local, name: name, cellular: transaction?.isCellular ?? false)
        let onLab: Bool? = request.labNetworks.isEmpty || local == nil ? nil : request.labNetworks.contains { $0.contains(local!) }
        var error: String?
        if let failure = failure {
            error = Failures.classify(failure).1
        } else if let code = status, !(200...299).contains(code) {
            error = "HTTP \(code) from \(origin)"
        }
        if onLab == false {
            error = "not on the lab network: local address \(local!) (\(kind ?? "interface unknown")) is in none of " +
                request.labNetworks.map(\.description).joined(separator: ", ")
        }
        return ReadinessReport(origin: origin, interfaceKind: kind, interfaceName: name, localAddress: local, rttMs: rttMs,
                               httpStatus: status, onLabNetwork: onLab, error: error)
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        self.metrics = metrics
    }

    /// The kind as iOS says it: the transaction's isCellular, a loopback address, else the interface's name.
    static func kind(address: String?, name: String?, cellular: Bool) -> String? {
        if cellular { return "cellular" }
        if let address = address, address == "127.0.0.1" || address == "::1" { return "loopback" }
        guard let name = name else { return nil }
        if name.hasPrefix("pdp_ip") { return "cellular" }
        if name.hasPrefix("lo") { return "loopback" }
        if name == "en0" { return "wifi" } // an iPhone's Wi-Fi; other en* are USB or Ethernet adapters
        if name.hasPrefix("en") { return "ethernet" }
        return "other"
    }

    /// The interface holding `address` (getifaddrs), e.g. en0; nil when none does.
    static func interfaceName(holding address: String) -> String? {
        guard let wanted = ipBytes(address) else { return nil }
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            guard let sa = entry.pointee.ifa_addr else { continue }
            var raw: [UInt8]?
            if sa.pointee.sa_family == UInt8(AF_INET) {
                raw = sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { p in withUnsafeBytes(of: p.pointee.sin_addr) { Array($0) } }
            } else if sa.pointee.sa_family == UInt8(AF_INET6) {
                raw = sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { p in withUnsafeBytes(of: p.pointee.sin6_addr) { Array($0) } }
            }
            if raw == wanted { return String(cString: entry.pointee.ifa_name) }
        }
        return nil
    }
}

private extension OperationQueue {
    /// Runs `body` on this (serial) queue after what is already queued, and returns its value.
    func addOperationAndWait<T>(_ body: @escaping () -> T) -> T {
        var value: T?
        addOperations([BlockOperation { value = body() }], waitUntilFinished: true)
        return value!
    }
}
