import Foundation

/// What every engine of a block shares. Mirrors ProtocolEngine.kt.
public struct EngineSettings {
    /// Per request, from t0 to app_done (job `timeout_ms`).
    public let timeoutMs: Int
}

/// One arm's client: issues its requests on the arm's connection as its policy says.
public protocol ProtocolEngine: AnyObject {
    /// Issues one request and returns its measurement; network trouble is an error sample, never a throw.
    func execute(_ request: PlannedRequest, body: Data) -> Measurement
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

    public func closeConnection() {}
    public func close() {}
}
