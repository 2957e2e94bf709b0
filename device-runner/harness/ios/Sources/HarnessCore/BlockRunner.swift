import Foundation

/// Runs one job: requests in `seq` order, each on the engine of its arm and origin (created at
/// the first request that needs it, closed at the end of the block; a request's own `origin`
/// has its own engine, hence its own connection). Consecutive requests of one arm and phase
/// with the same `group` are issued together; the next request or group starts once the group
/// completed. `new_connection` closes the arm's connections first; `gap_ms` pauses after each
/// request or group; every request yields one sample, in request order. A job with `readiness`
/// is checked first (ReadinessCheck): a refused check answers `not_ready` with no samples; each
/// sample's `issued_mono_us` counts from the block's start, taken after it. Mirrors BlockRunner.kt.
public struct BlockRunner {
    private let engines: Engines
    private let progress: ((Int, Int) -> Void)?

    public init(engines: Engines = Engines(), progress: ((Int, Int) -> Void)? = nil) {
        self.engines = engines
        self.progress = progress
    }

    private struct EngineKey: Hashable {
        let arm: String
        let origin: Origin
    }

    public func run(_ job: Job, device: DeviceInfo, variant: String) -> ResultDocument {
        let readiness = job.readiness.map { ReadinessCheck().run($0) }
        if let readiness = readiness, readiness.refused {
            return ResultDocument(runId: job.runId, block: job.block, attempt: job.attempt, status: "not_ready",
                                  samples: [], fingerprint: fingerprint(job, device: device, variant: variant),
                                  error: readiness.error, readiness: readiness)
        }
        let blockStart = MonotonicClock.nanos()
        let settings = EngineSettings(timeoutMs: job.timeoutMs, maxParallel: job.maxParallel)
        let arms = Dictionary(uniqueKeysWithValues: job.arms.map { ($0.label, $0) })
        var open: [EngineKey: ProtocolEngine] = [:]
        func engine(for request: PlannedRequest) -> ProtocolEngine {
            let arm = arms[request.arm]!
            let key = EngineKey(arm: arm.label, origin: request.origin ?? arm.origin)
            if let existing = open[key] { return existing }
            let created = engines.create(arm.at(key.origin), settings: settings)
            open[key] = created
            return created
        }
        var samples: [Sample] = []
        samples.reserveCapacity(job.requests.count)
        defer { open.values.forEach { $0.close() } }
        var index = 0
        while index < job.requests.count {
            let request = job.requests[index]
            if request.newConnection {
                open.filter { $0.key.arm == request.arm }.values.forEach { $0.closeConnection() }
            }
            let group = BlockRunner.groupAt(job.requests, index)
            let measurements: [Measurement]
            if group.count == 1 {
                let m = engine(for: request).execute(request, body: BlockRunner.body(of: request))
                m.inFlight = 1 // issued alone: the only request of its arm in flight
                measurements = [m]
            } else {
                measurements = measureGroup(group, engineFor: engine(for:))
            }
            for (r, m) in zip(group, measurements) {
                samples.append(Sample(request: r, block: job.block, measurement: m, blockStartNanos: blockStart))
            }
            index += group.count
            progress?(index, job.requests.count)
            if job.gapMs > 0 { Thread.sleep(forTimeInterval: Double(job.gapMs) / 1000) }
        }
        return ResultDocument(runId: job.runId, block: job.block, attempt: job.attempt, status: "ok",
                              samples: samples, fingerprint: fingerprint(job, device: device, variant: variant), error: nil,
                              readiness: readiness)
    }

    private func fingerprint(_ job: Job, device: DeviceInfo, variant: String) -> Fingerprint {
        var stacks: [String: String] = [:]
        for arm in job.arms { stacks[arm.protocol.rawValue] = engines.clientStack(arm.protocol) }
        return Fingerprint(device: device, harnessVersion: HarnessInfo.describe(variant),
                           clockSource: MonotonicClock.source, clockResolutionUs: MonotonicClock.resolutionUs(),
                           clientStacks: stacks)
    }

    /// One concurrency group: each origin's requests on that origin's engine, the origins side
    /// by side, then every sample's in_flight from the group's spans.
    private func measureGroup(_ group: [PlannedRequest], engineFor: (PlannedRequest) -> ProtocolEngine) -> [Measurement] {
        // Bodies are generated as the group is issued, so client_ts_us is its send time.
        let issued = group.map { GroupRequest(request: $0, body: BlockRunner.body(of: $0)) }
        var parts: [(engine: ProtocolEngine, indexes: [Int])] = []
        for (i, item) in issued.enumerated() {
            let engine = engineFor(item.request)
            if let p = parts.firstIndex(where: { $0.engine === engine }) {
                parts[p].indexes.append(i)
            } else {
                parts.append((engine, [i]))
            }
        }
        var measured = [Measurement?](repeating: nil, count: issued.count)
        let lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: parts.count) { p in
            let part = parts[p]
            let results = part.engine.executeGroup(part.indexes.map { issued[$0] })
            lock.lock()
            for (i, m) in zip(part.indexes, results) { measured[i] = m }
            lock.unlock()
        }
        let measurements: [Measurement] = measured.map { m in
            if let m = m { return m }
            let missing = Measurement(Timeline())
            missing.fail(.other, "harness error: no measurement for this request of the group")
            return missing
        }
        for (m, n) in zip(measurements, InFlight.count(measurements)) { m.inFlight = n }
        return measurements
    }

    /// The customer's own bytes (body_b64), else a generated body of body_bytes, else none.
    static func body(of request: PlannedRequest) -> Data {
        if let body = request.body { return body }
        return request.bodyBytes > 0 ? RequestBodies.generate(size: request.bodyBytes) : Data()
    }

    /// The request at `index` and the consecutive ones of the same arm and phase with the same (non-nil) group.
    static func groupAt(_ requests: [PlannedRequest], _ index: Int) -> [PlannedRequest] {
        let first = requests[index]
        guard let group = first.group else { return [first] }
        var end = index + 1
        while end < requests.count, requests[end].group == group, requests[end].arm == first.arm,
              requests[end].phase == first.phase {
            end += 1
        }
        return Array(requests[index..<end])
    }
}
