import Foundation

/// What every engine of a block shares. Mirrors ProtocolEngine.kt.
public struct EngineSettings {
    /// Per request, from t0 to app_done (job `timeout_ms`).
    public let timeoutMs: Int
    /// HTTP/1.1 connections per origin a concurrency group may use (job `max_parallel`).
    public var maxParallel: Int = 6
}

/// One request of a concurrency group and the body it sends.
public struct GroupRequest {
    public let request: PlannedRequest
    public let body: Data
}

/// One arm's client: issues its requests on the arm's connection as its policy says.
public protocol ProtocolEngine: AnyObject {
    /// Issues one request and returns its measurement; network trouble is an error sample, never a throw.
    func execute(_ request: PlannedRequest, body: Data) -> Measurement
    /// Issues one concurrency group (this arm, this engine's origin) at once, as an app does:
    /// HTTP/1.1 over up to `max_parallel` connections, HTTP/2, HTTP/3 and gRPC as streams on one
    /// connection. One measurement per request, in the group's order, each with its own t0.
    func executeGroup(_ group: [GroupRequest]) -> [Measurement]
    /// Closes the arm's current connection (a planned `new_connection`).
    func closeConnection()
    func close()
}

/// An arm that cannot be measured: every request is the same error sample, with real t0/app_done.
public final class FailingEngine: ProtocolEngine {
    private let errorClass: ErrorClass
    private let detail: String

    public init(_ errorClass: ErrorClass, _ detail: String) {
        self.errorClass = errorClass
        self.detail = detail
    }

    public func execute(_ request: PlannedRequest, body: Data) -> Measurement {
        let m = Measurement(Timeline())
        m.fail(errorClass, detail)
        return m
    }

    public func executeGroup(_ group: [GroupRequest]) -> [Measurement] {
        group.map { execute($0.request, body: $0.body) }
    }

    public func closeConnection() {}
    public func close() {}
}
