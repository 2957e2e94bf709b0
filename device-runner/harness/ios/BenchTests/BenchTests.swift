import Foundation
import HarnessCore
import XCTest

/// The XCTest the runner starts (fastlane ios bench → run_tests, test-without-building):
///
/// - `LATENCYLAB_JOB`: where the job document is. xcodebuild hands `TEST_RUNNER_LATENCYLAB_JOB`
///   from its environment to the test runner without the prefix. A URL on the lab network
///   (the runner's job exchange serves `GET /jobs/<token>.json`) or, on a simulator, a path;
///   a 20,000-request job never travels in the variable itself.
/// - `LATENCYLAB_RESULT` (optional): a URL the result document is PUT to.
///
/// The result is always attached to the test (named latencylab-result.json, kept) so a lane
/// run by hand can export it from the result bundle. Mirrors BenchTest.kt line by line.
final class BenchTests: XCTestCase {
    func testRunJob() throws {
        let env = ProcessInfo.processInfo.environment
        let location = try XCTUnwrap(env["LATENCYLAB_JOB"].flatMap { $0.isEmpty ? nil : $0 },
                                     "LATENCYLAB_JOB (URL or path of the job document) is required")
        let job = try JobReader().read(data: try fetch(location))
        let result = BlockRunner().run(job, device: IOSDeviceInfo.read(), variant: "ios")
        let data = try ResultWriter().encode(result)

        let attachment = XCTAttachment(data: data, uniformTypeIdentifier: "public.json")
        attachment.name = "latencylab-result.json"
        attachment.lifetime = .keepAlways
        add(attachment)
        if let target = env["LATENCYLAB_RESULT"], !target.isEmpty {
            try put(data, to: target)
        }
    }

    /// The job document from a URL (lab network) or a file path (simulator).
    private func fetch(_ location: String) throws -> Data {
        guard let url = URL(string: location), let scheme = url.scheme, scheme.hasPrefix("http") else {
            return try Data(contentsOf: URL(fileURLWithPath: location))
        }
        let (data, response) = try exchange(URLRequest(url: url))
        XCTAssertEqual(response.statusCode, 200, "GET \(location) answered \(response.statusCode)")
        return data
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
