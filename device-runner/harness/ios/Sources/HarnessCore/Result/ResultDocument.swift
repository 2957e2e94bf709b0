import Foundation

/// result.schema.json: what the harness returns for one job. Mirrors ResultDocument.kt.
public struct ResultDocument {
    public let runId: String
    public let block: Int
    public let attempt: Int
    public let status: String
    public let samples: [Sample]
    public let fingerprint: Fingerprint
    public let error: String?
    /// The job's readiness check as it ran; nil when the job asked for none (the key is then left out).
    public var readiness: ReadinessReport? = nil

    public func toJSON() -> [String: Any] {
        var json: [String: Any] = [
            "contract": "latencylab.result/v1", "run_id": runId, "block": block, "attempt": attempt,
            "status": status, "samples": samples.map { $0.toJSON() }, "fingerprint": fingerprint.toJSON(),
            // The phone measures no TCP/ICMP baseline; the runner does.
            "baseline": NSNull(), "error": error ?? NSNull(),
        ]
        if let readiness = readiness { json["readiness"] = readiness.toJSON() }
        return json
    }
}

/// Encodes a result document (no JSON Schema validator on the phone: the runner validates it).
public struct ResultWriter {
    public init() {}

    public func encode(_ result: ResultDocument) throws -> Data {
        try JSONSerialization.data(withJSONObject: result.toJSON(), options: [.withoutEscapingSlashes])
    }

    /// Writes atomically (a temporary file renamed into place).
    public func write(_ result: ResultDocument, to url: URL) throws {
        try encode(result).write(to: url, options: .atomic)
    }
}
