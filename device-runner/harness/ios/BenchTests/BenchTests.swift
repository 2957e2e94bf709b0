import Foundation
import HarnessCore
import XCTest

/// The XCTests the runner starts (fastlane ios bench / ios preflight → run_tests,
/// test-without-building, one test each through `only_testing`):
///
/// - `testRunJob` (bench): `LATENCYLAB_JOB` is where the job document is. xcodebuild hands
///   `TEST_RUNNER_LATENCYLAB_JOB` from its environment to the test runner without the prefix.
///   A URL on the lab network (the runner's job exchange serves `GET /jobs/<token>.json`) or, on
///   a simulator, a path; a 20,000-request job never travels in the variable itself.
///   `LATENCYLAB_RESULT` (optional): a URL the result document is PUT to.
/// - `testReachesRunner` (preflight): `LATENCYLAB_PROBE` is a URL of the runner's exchange; the
///   test asks it from the phone, which proves the phone is unlocked (the test host launched),
///   on the lab network and allowed there (Local Network permission).
///
/// Before any request to the lab network the harness checks that iOS lets it through
/// (LabNetworkAccess): a refused Local Network permission or an exchange that does not answer
/// fails the test with a fixed marker the runner reads as the phone not being ready.
///
/// The result is always attached to the test (named latencylab-result, kept) so a lane run by
/// hand can export it from the result bundle (xcresulttool's manifest.json names it). The idle
/// timer is off while the block runs (KeepAwake). Mirrors BenchTest.kt.
final class BenchTests: XCTestCase {
    func testRunJob() throws {
        let env = ProcessInfo.processInfo.environment
        let location = try XCTUnwrap(env["LATENCYLAB_JOB"].flatMap { $0.isEmpty ? nil : $0 },
                                     "LATENCYLAB_JOB (URL or path of the job document) is required")
        guard let jobData = try fetch(location) else { return }
        let job = try JobReader().read(data: jobData)
        let result = KeepAwake.during { BlockRunner().run(job, device: IOSDeviceInfo.read(), variant: "ios") }
        let data = try ResultWriter().encode(result)

        let attachment = XCTAttachment(data: data, uniformTypeIdentifier: "public.json")
        attachment.name = "latencylab-result"
        attachment.lifetime = .keepAlways
        add(attachment)
        if let target = env["LATENCYLAB_RESULT"], !target.isEmpty {
            try put(data, to: target)
        }
    }

    func testReachesRunner() throws {
        let probe = try XCTUnwrap(ProcessInfo.processInfo.environment["LATENCYLAB_PROBE"].flatMap { $0.isEmpty ? nil : $0 },
                                  "LATENCYLAB_PROBE (a URL of the runner's job exchange) is required")
        let url = try XCTUnwrap(URL(string: probe), "LATENCYLAB_PROBE is not a URL")
        guard admitted(url) else { return }
        let (_, response) = try exchange(URLRequest(url: url))
        XCTAssertTrue((200..<300).contains(response.statusCode), "GET \(probe) answered \(response.statusCode)")
    }

    /// The job document from a URL (lab network) or a file path (simulator); nil when the lab
    /// network is closed to the harness (the test has failed with the reason).
    private func fetch(_ location: String) throws -> Data? {
        guard let url = URL(string: location), let scheme = url.scheme, scheme.hasPrefix("http") else {
            return try Data(contentsOf: URL(fileURLWithPath: location))
        }
        guard admitted(url) else { return nil }
        let (data, response) = try exchange(URLRequest(url: url))
        XCTAssertEqual(response.statusCode, 200, "GET \(location) answered \(response.statusCode)")
        return data
    }

    /// Whether iOS lets the harness reach `url`'s host; otherwise fails the test with the marker.
    private func admitted(_ url: URL) -> Bool {
        switch LabNetworkAccess.check(url) {
        case .reachable:
            return true
        case .denied(let reason), .unreachable(let reason):
            XCTFail(reason)
            return false
        }
    }

    private func put(_ data: Data, to location: String) throws {
        var request = URLRequest(url: try XCTUnwrap(URL(string: location), "LATENCYLAB_RESULT is not a URL"))
        request.httpMethod = "PUT"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = data
        let (_, response) = try exchange(request)
        XCTAssertTrue((200..<300).contains(response.statusCode), "PUT \(location) answered \(response.statusCode)")
    }

    private func exchange(_ request: URLRequest) throws -> (Data, HTTPURLResponse) {
        let done = DispatchSemaphore(value: 0)
        var outcome: Result<(Data, HTTPURLResponse), Error> = .failure(URLError(.unknown))
        URLSession.shared.dataTask(with: request) { data, response, error in
            if let error = error {
                outcome = .failure(error)
            } else if let http = response as? HTTPURLResponse {
                outcome = .success((data ?? Data(), http))
            }
            done.signal()
        }.resume()
        done.wait()
        return try outcome.get()
    }
}
