import Foundation

/// Maps one task's URLSessionTaskMetrics to the contract's phases (the twin of PhaseListener.kt).
///
/// | URLSessionTaskTransactionMetrics (the `.networkLoad` one) | contract field     |
/// |-----------------------------------------------------------|--------------------|
/// | fetchStartDate                                            | t0, wall_time      |
/// | domainLookupStartDate / EndDate                           | dns_start / dns_end|
/// | connectStartDate                                          | conn_start         |
/// | secureConnectionStartDate                                 | tls_start          |
/// | connectEndDate                                            | conn_ready         |
/// | requestStartDate / requestEndDate                         | req_start / req_end|
/// | responseStartDate                                         | resp_first_byte    |
/// | (none)                                                    | resp_headers_end = null |
/// | responseEndDate                                           | resp_end           |
/// | didCompleteWithError (harness's monotonic clock)          | app_done           |
/// | isReusedConnection, networkProtocolName, negotiatedTLSProtocolVersion, localPort | conn_reused, alpn, tls_version, conn_id |
///
/// Dates are wall-clock and become µs offsets from fetchStartDate. Apple leaves the DNS and
/// connect dates nil on a reused connection, so those phases stay null there.
enum TaskMetricsMapping {
    static func apply(_ metrics: URLSessionTaskMetrics, to m: Measurement, tls: Bool, anchor: (nanos: UInt64, date: Date), doneNanos: UInt64) {
        // Several transactions per task are possible (redirects, cache): keep the network load.
        guard let t = metrics.transactionMetrics.last(where: { $0.resourceFetchType == .networkLoad }),
              let start = t.fetchStartDate else { return }
        let tl = m.timeline
        // t0 is fetchStartDate; its monotonic twin follows from the anchor taken at resume().
        let startNanos = UInt64(max(0, Int64(anchor.nanos) + Int64(start.timeIntervalSince(anchor.date) * 1e9)))
        tl.restart(wallTime: start, anchorNanos: startNanos)
        func at(_ date: Date?) -> Int64? { date.map { Int64(($0.timeIntervalSince(start) * 1e6).rounded()) } }
        tl.markAtOffset(.dnsStart, at(t.domainLookupStartDate))
        tl.markAtOffset(.dnsEnd, at(t.domainLookupEndDate))
        tl.markAtOffset(.connStart, at(t.connectStartDate))
        tl.markAtOffset(.tlsStart, at(t.secureConnectionStartDate))
        tl.markAtOffset(.connReady, at(t.connectEndDate))
        tl.markAtOffset(.reqStart, at(t.requestStartDate))
        tl.markAtOffset(.reqEnd, at(t.requestEndDate))
        tl.markAtOffset(.respFirstByte, at(t.responseStartDate))
        tl.markAtOffset(.respEnd, at(t.responseEndDate))
        tl.mark(.appDone, at: doneNanos)
        m.connReused = t.isReusedConnection
        m.alpn = tls ? t.networkProtocolName : nil
        m.tlsVersion = t.negotiatedTLSProtocolVersion.map(tlsName)
        m.connId = t.localPort.map { "port-\($0)" }
        m.reqBytes = t.countOfRequestBodyBytesSent
        m.earlyData = tls ? false : nil
        // URLSession does not say whether a TLS session was resumed: tls_resumed stays null.
    }

    static func tlsName(_ v: tls_protocol_version_t) -> String {
        switch v {
        case .TLSv13: return "TLSv1.3"
        case .TLSv12: return "TLSv1.2"
        case .TLSv11: return "TLSv1.1"
        case .TLSv10: return "TLSv1"
        default: return "0x" + String(v.rawValue, radix: 16)
        }
    }
}
