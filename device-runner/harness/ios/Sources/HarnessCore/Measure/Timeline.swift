import Foundation

/// The contract's per-request phases, in the order they happen on a fresh connection. Mirrors Timeline.kt.
public enum Phase: String, CaseIterable {
    case dnsStart = "dns_start", dnsEnd = "dns_end", connStart = "conn_start", tlsStart = "tls_start",
         connReady = "conn_ready", reqStart = "req_start", reqEnd = "req_end", respFirstByte = "resp_first_byte",
         respHeadersEnd = "resp_headers_end", respEnd = "resp_end", appDone = "app_done"
}

/// The harness's monotonic clock: CLOCK_UPTIME_RAW (mach_absolute_time in nanoseconds).
public enum MonotonicClock {
    public static let source = "mach_absolute_time (CLOCK_UPTIME_RAW)"

    public static func nanos() -> UInt64 { clock_gettime_nsec_np(CLOCK_UPTIME_RAW) }

    /// The clock's smallest observed tick in µs (samples carry integer µs whatever it is).
    public static func resolutionUs(probes: Int = 2000) -> Double {
        var smallest = UInt64.max
        var last = nanos()
        for _ in 0..<probes {
            var now = nanos()
            while now == last { now = nanos() }
            smallest = min(smallest, now - last)
            last = now
        }
        return Double(smallest) / 1000.0
    }
}

public func epochMicros(_ date: Date = Date()) -> Int64 { Int64((date.timeIntervalSince1970 * 1_000_000).rounded()) }

/// One request's phase marks as integer µs offsets from t0. Callbacks arrive on library
/// queues, so every access takes the lock; once sealed, late callbacks change nothing.
public final class Timeline {
    private let lock = NSLock()
    private var marks: [Phase: Int64] = [:]
    private var t0: UInt64 = MonotonicClock.nanos()
    private var sealed = false
    public private(set) var wallTimeUs: Int64 = epochMicros()

    public init() {}

    public func now() -> UInt64 { MonotonicClock.nanos() }

    /// t0 on the monotonic clock (ns): when the request was issued (the sample's issued_mono_us, against the block's start).
    public func issuedAtNanos() -> UInt64 { locked { t0 } }

    public func mark(_ phase: Phase, at nanos: UInt64 = MonotonicClock.nanos()) {
        locked { if !sealed { marks[phase] = offsetUs(nanos) } }
    }

    public func markFirst(_ phase: Phase, at nanos: UInt64 = MonotonicClock.nanos()) {
        locked { if !sealed && marks[phase] == nil { marks[phase] = offsetUs(nanos) } }
    }

    /// Sets a phase from a library's own timestamps, as µs after t0 (URLSession's dates).
    public func markAtOffset(_ phase: Phase, _ offsetUs: Int64?) {
        locked { if !sealed { marks[phase] = offsetUs.map { max(0, $0) } } }
    }

    /// Moves t0 and wall_time to a library's own start (URLSession's fetchStartDate), keeping `anchorNanos` as its monotonic twin.
    public func restart(wallTime: Date, anchorNanos: UInt64) {
        locked { if !sealed { t0 = anchorNanos; wallTimeUs = epochMicros(wallTime) } }
    }

    public func has(_ phase: Phase) -> Bool { locked { marks[phase] != nil } }

    public subscript(_ phase: Phase) -> Int64? { locked { marks[phase] } }

    /// When the request was issued and when the app saw it complete, on the monotonic clock (ns):
    /// a concurrency group's requests are placed against each other by these. Seals the timeline.
    public func issuedUntilDoneNanos() -> (issued: UInt64, done: UInt64) {
        let appDoneUs = seal()[.appDone] ?? 0
        return locked { (issued: t0, done: t0 + UInt64(max(0, appDoneUs)) * 1000) }
    }

    /// Ends the timeline: app_done (if nobody marked it) and no further changes.
    @discardableResult
    public func seal() -> [Phase: Int64] {
        locked {
            if !sealed {
                if marks[.appDone] == nil { marks[.appDone] = offsetUs(MonotonicClock.nanos()) }
                sealed = true
            }
            return marks
        }
    }

    private func offsetUs(_ nanos: UInt64) -> Int64 { nanos >= t0 ? Int64((nanos - t0) / 1000) : 0 }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}
