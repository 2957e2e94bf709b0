import Foundation

/// h1c, h1, h2 and h3 through URLSession, timed by URLSessionTaskMetrics (the twin of OkHttpEngine.kt).
///
/// - ALPN is asserted per arm from `networkProtocolName`: "http/1.1" for h1, "h2" for h2, "h3"
///   for h3 (requests carry `assumesHTTP3Capable`, so QUIC is raced without Alt-Svc discovery).
///   URLSession has no public switch to turn HTTP/2 off: an h1 arm against a server that
///   offers h2 negotiates h2 and every request is a protocol_mismatch sample (see README).
/// - Policies: warm keeps one ephemeral URLSession per arm for the block; cold and resumed
///   use a new session per request, or per concurrency group (URLSession cannot close one
///   connection and keep TLS state, and does not report resumption: tls_resumed is null on iOS).
/// - The certificate is checked against the arm's TLS name with the job's extra anchors; the
///   URL keeps the origin's host (URLSession has no way to send another SNI name).
final class URLSessionEngine: NSObject, ProtocolEngine, URLSessionTaskDelegate, URLSessionDataDelegate {
    private let arm: Arm
    private let trust: TrustMaterial
    private let settings: EngineSettings
    private var session: URLSession?
    private var tasks: [Int: TaskState] = [:]
    private let lock = NSLock()

    private final class TaskState {
        let measurement: Measurement
        let anchor: (nanos: UInt64, date: Date)
        var received: Int64 = 0
        var metrics: URLSessionTaskMetrics?
        let done = DispatchSemaphore(value: 0)
        init(_ m: Measurement, anchor: (nanos: UInt64, date: Date)) { measurement = m; self.anchor = anchor }
    }

    init(arm: Arm, trust: TrustMaterial, settings: EngineSettings) {
        self.arm = arm
        self.trust = trust
        self.settings = settings
    }

    private var expectedAlpn: String? {
        switch arm.protocol {
        case .h1: return "http/1.1"
        case .h2: return "h2"
        case .h3: return "h3"
        default: return nil // h1c: cleartext, no ALPN
        }
    }

    func execute(_ request: PlannedRequest, body: Data) -> Measurement {
        executeGroup([GroupRequest(request: request, body: body)])[0]
    }

    /// Every task of the group is resumed at once on the arm's session: URLSession carries them
    /// over up to `httpMaximumConnectionsPerHost` (= max_parallel) HTTP/1.1 connections, a
    /// waiting task taking the connection a finished one released, and multiplexes h2 and h3 on
    /// one connection. A cold or resumed group shares one new session.
    func executeGroup(_ group: [GroupRequest]) -> [Measurement] {
        if arm.connection != .warm { closeConnection() }
        let session = self.session ?? newSession()
        self.session = session
        let started = group.map { start($0, on: session) }
        for (state, task) in started {
            guard let task = task else { continue }
            if state.done.wait(timeout: .now() + .milliseconds(settings.timeoutMs + 2000)) == .timedOut {
                task.cancel()
                state.measurement.fail(.timeout, "no response within \(settings.timeoutMs) ms")
                _ = state.done.wait(timeout: .now() + 2)
            }
            lock.lock(); tasks[task.taskIdentifier] = nil; lock.unlock()
        }
        var mismatch = false
        for (item, (state, _)) in zip(group, started) {
            let m = state.measurement
            if let expected = expectedAlpn, !m.failed, m.alpn != expected {
                m.fail(.protocolMismatch, "negotiated '\(m.alpn ?? "none")', arm '\(arm.label)' wants \(arm.protocol.rawValue) (\(expected))")
            }
            mismatch = mismatch || m.errorClass == .protocolMismatch
            m.failOnHttpStatus(expected: item.request.expectStatus)
        }
        if arm.connection != .warm || mismatch { closeConnection() }
        return started.map { $0.0.measurement }
    }

    /// Resumes the request's task; no task when no URL can be built (the measurement says why).
    private func start(_ item: GroupRequest, on session: URLSession) -> (TaskState, URLSessionDataTask?) {
        let request = item.request
        let m = Measurement(Timeline())
        let state = TaskState(m, anchor: (MonotonicClock.nanos(), Date()))
        guard let url = URL(string: "\(arm.origin.scheme)://\(arm.origin.urlHost):\(arm.origin.port)\(request.path)") else {
            m.fail(.other, "cannot build a URL for \(request.path.prefix(200))")
            return (state, nil)
        }
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData,
                                    timeoutInterval: Double(settings.timeoutMs) / 1000)
        urlRequest.httpMethod = request.method
        urlRequest.assumesHTTP3Capable = arm.protocol == .h3
        request.headers.forEach { urlRequest.setValue($0.value, forHTTPHeaderField: $0.key) }
        if !item.body.isEmpty { urlRequest.httpBody = item.body }

        let task = session.dataTask(with: urlRequest)
        lock.lock(); tasks[task.taskIdentifier] = state; lock.unlock()
        task.resume()
        return (state, task)
    }

    private func newSession() -> URLSession {
        let config = URLSessionConfiguration.ephemeral
        config.urlCache = nil
        // HTTP/1.1: a concurrency group's per-host connection limit (max_parallel), as an app sets it;
        // h2 and h3 multiplex on one connection.
        config.httpMaximumConnectionsPerHost = (arm.protocol == .h1 || arm.protocol == .h1c) ? settings.maxParallel : 1
        config.timeoutIntervalForRequest = Double(settings.timeoutMs) / 1000
        config.httpShouldUsePipelining = false
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        return URLSession(configuration: config, delegate: self, delegateQueue: queue)
    }

    private func state(_ task: URLSessionTask) -> TaskState? {
        lock.lock(); defer { lock.unlock() }
        return tasks[task.taskIdentifier]
    }

    // MARK: URLSession delegate

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
              let serverTrust = challenge.protectionSpace.serverTrust else {
            return completionHandler(.performDefaultHandling, nil)
        }
        if trust.evaluate(serverTrust, tlsName: arm.tlsName) {
            completionHandler(.useCredential, URLCredential(trust: serverTrust))
        } else {
            completionHandler(.cancelAuthenticationChallenge, nil) // → URLError.cancelled; reported as tls below
            state(task)?.measurement.fail(.tls, "certificate not trusted for \(arm.tlsName)")
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        if let http = response as? HTTPURLResponse, let m = state(dataTask)?.measurement {
            m.status = http.statusCode
            m.serverTimeUs = ServerTiming.parseMicros(http.value(forHTTPHeaderField: "Server-Timing"))
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        state(dataTask)?.received += Int64(data.count)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        state(task)?.metrics = metrics
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let doneNanos = MonotonicClock.nanos()
        guard let s = state(task) else { return }
        let m = s.measurement
        if let metrics = s.metrics {
            TaskMetricsMapping.apply(metrics, to: m, tls: arm.origin.isTls, anchor: s.anchor, doneNanos: doneNanos)
        } else {
            m.timeline.mark(.appDone, at: doneNanos)
        }
        if let error = error {
            let (cls, detail) = Failures.classify(error)
            m.fail(cls, detail)
        } else {
            m.respBytes = s.received
        }
        s.done.signal()
    }

    func closeConnection() {
        session?.invalidateAndCancel()
        session = nil
    }

    func close() { closeConnection() }
}
