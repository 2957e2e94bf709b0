import Foundation

/// One request's sample (sample.schema.json). Mirrors Sample.kt: every field present, null when it did not happen.
/// `blockStartNanos`: the block's start on the monotonic clock, from which `issued_mono_us` counts (nil: not reported).
public struct Sample {
    public let request: PlannedRequest
    public let block: Int
    public let measurement: Measurement
    private let phases: [Phase: Int64]
    private let blockStartNanos: UInt64?

    public init(request: PlannedRequest, block: Int, measurement: Measurement, blockStartNanos: UInt64? = nil) {
        self.request = request
        self.block = block
        self.measurement = measurement
        self.blockStartNanos = blockStartNanos
        phases = measurement.timeline.seal()
    }

    /// When the request was issued, µs since the block began on the monotonic clock (a concurrent series' span is measured on it).
    public var issuedMonoUs: Int64? {
        guard let start = blockStartNanos else { return nil }
        let issued = measurement.timeline.issuedAtNanos()
        return issued >= start ? Int64((issued - start) / 1000) : 0
    }

    public func toJSON() -> [String: Any] {
        let m = measurement, r = request
        func v(_ x: Any?) -> Any { x ?? NSNull() }
        var json: [String: Any] = [
            "arm": r.arm, "block": block, "period": v(r.period), "repetition": v(r.repetition), "seq": r.seq,
            "step": v(r.step), "phase": r.phase, "op": r.op, "path": String(r.path.prefix(512)),
            "wall_time": m.timeline.wallTimeUs, "issued_mono_us": v(issuedMonoUs), "t0": 0,
            "conn_id": v(m.connId), "conn_reused": v(m.connReused), "in_flight": v(m.inFlight), "alpn": v(m.alpn), "tls_version": v(m.tlsVersion),
            "tls_resumed": v(m.tlsResumed), "early_data": v(m.earlyData), "req_bytes": v(m.reqBytes),
            "resp_bytes": v(m.respBytes), "status": v(m.status), "server_delay_ms": v(r.serverDelayMs),
            "server_time_us": v(m.serverTimeUs),
            // TCP_INFO is not reachable from URLSession or swift-nio on iOS: not observed.
            "srtt_us": NSNull(), "retrans": NSNull(),
            "error_class": v(m.errorClass?.rawValue), "error_detail": v(m.errorDetail),
        ]
        for phase in Phase.allCases { json[phase.rawValue] = v(phases[phase]) }
        if let part = r.part { json["part"] = part }
        return json
    }
}
