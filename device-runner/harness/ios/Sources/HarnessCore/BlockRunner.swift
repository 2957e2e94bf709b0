import Foundation

/// Runs one job: requests in `seq` order, each on its arm's engine (created at the arm's first
/// request, closed at the end of the block); `new_connection` closes the arm's connection
/// first; `gap_ms` pauses after each request; every request yields one sample. Mirrors BlockRunner.kt.
public struct BlockRunner {
    private let engines: Engines
    private let progress: ((Int, Int) -> Void)?

    public init(engines: Engines = Engines(), progress: ((Int, Int) -> Void)? = nil) {
        self.engines = engines
        self.progress = progress
    }

    public func run(_ job: Job, device: DeviceInfo, variant: String) -> ResultDocument {
        let settings = EngineSettings(timeoutMs: job.timeoutMs)
        let arms = Dictionary(uniqueKeysWithValues: job.arms.map { ($0.label, $0) })
        var open: [String: ProtocolEngine] = [:]
        var samples: [Sample] = []
        samples.reserveCapacity(job.requests.count)
        defer { open.values.forEach { $0.close() } }
        for (i, request) in job.requests.enumerated() {
            let engine = open[request.arm] ?? engines.create(arms[request.arm]!, settings: settings)
            open[request.arm] = engine
            if request.newConnection { engine.closeConnection() }
            // Generated just before the request, so client_ts_us is its send time.
            let body = request.bodyBytes > 0 ? RequestBodies.generate(size: request.bodyBytes) : Data()
            samples.append(Sample(request: request, block: job.block, measurement: engine.execute(request, body: body)))
            progress?(i + 1, job.requests.count)
            if job.gapMs > 0 { Thread.sleep(forTimeInterval: Double(job.gapMs) / 1000) }
        }
        var stacks: [String: String] = [:]
        for arm in job.arms { stacks[arm.protocol.rawValue] = engines.clientStack(arm.protocol) }
        let fingerprint = Fingerprint(device: device, harnessVersion: HarnessInfo.describe(variant),
                                      clockSource: MonotonicClock.source, clockResolutionUs: MonotonicClock.resolutionUs(),
                                      clientStacks: stacks)
        return ResultDocument(runId: job.runId, block: job.block, attempt: job.attempt, status: "ok",
                              samples: samples, fingerprint: fingerprint, error: nil)
    }
}
