import Foundation

/// The contract's error classes. Mirrors Measurement.kt.
public enum ErrorClass: String { case dns, connect, tls, timeout, protocolMismatch = "protocol_mismatch", http, reset, other }

/// What an engine observed for one request; fields stay nil when the library did not report them.
public final class Measurement {
    public let timeline: Timeline
    public var connId: String?
    public var connReused: Bool?
    public var alpn: String?
    public var tlsVersion: String?
    public var tlsResumed: Bool?
    public var earlyData: Bool?
    public var reqBytes: Int64?
    public var respBytes: Int64?
    public var status: Int?
    public var serverTimeUs: Int64?
    /// Requests of the arm in flight when this one was issued, itself included (see InFlight).
    public var inFlight: Int?
    public private(set) var errorClass: ErrorClass?
    public private(set) var errorDetail: String?

    public init(_ timeline: Timeline) { self.timeline = timeline }

    public var failed: Bool { errorClass != nil }

    /// Records a failure; the first one wins (later ones are consequences).
    public func fail(_ errorClass: ErrorClass, _ detail: String) {
        guard self.errorClass == nil else { return }
        self.errorClass = errorClass
        self.errorDetail = String(detail.prefix(1000))
    }

    /// A completed exchange with an HTTP error status is an `http` error sample; with `expected`
    /// (the job's expect_status) that status is the success and any other one an error.
    public func failOnHttpStatus(expected: Int? = nil) {
        guard !failed, let code = status else { return }
        if let expected = expected {
            if code != expected { fail(.http, "HTTP \(code), expected \(expected)") }
        } else if code >= 400 {
            fail(.http, "HTTP \(code)")
        }
    }
}
