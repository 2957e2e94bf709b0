import Foundation
import Network

/// Whether this app may reach the lab network, asked before the first request of a block.
///
/// iOS 14+ gates every connection to the local network behind the Local Network permission.
/// URLSession reports a refused permission only as a generic "offline" error, so the harness
/// opens an NWConnection to the runner's job exchange first: while the permission is missing
/// (or its prompt is still on the screen) the connection stays `.waiting` and its path's
/// `unsatisfiedReason` is `.localNetworkDenied` (Network framework, iOS 14.2+). The outcome is
/// reported with a fixed marker that the runner reads from xcodebuild's output
/// (drivers/outcome.py IOS_NOT_READY): a denied permission or an unreachable exchange is the
/// phone's state (device_not_ready, retried), never a failed measurement.
enum LabNetworkAccess {
    /// The markers the runner matches (keep equal to outcome.py's IOS_NOT_READY).
    static let deniedMarker = "LatencyLab: Local Network access denied"
    static let unreachableMarker = "LatencyLab: the runner's job exchange did not answer"

    enum Verdict: Equatable {
        case reachable
        case denied(String)
        case unreachable(String)
    }

    /// Connects to the URL's host and port (TCP only, nothing sent) within `timeout` seconds.
    static func check(_ url: URL, timeout: TimeInterval = 10) -> Verdict {
        guard let host = url.host else { return .unreachable("\(unreachableMarker): \(url) has no host") }
        let port = NWEndpoint.Port(rawValue: UInt16(url.port ?? (url.scheme == "https" ? 443 : 80))) ?? .http
        let connection = NWConnection(host: NWEndpoint.Host(host), port: port, using: .tcp)
        let settled = DispatchSemaphore(value: 0)
        let lock = NSLock()
        var verdict: Verdict?
        var lastWait = "no answer"
        func settle(_ value: Verdict) {
            lock.lock()
            defer { lock.unlock() }
            if verdict == nil {
                verdict = value
                settled.signal()
            }
        }
        connection.stateUpdateHandler = { state in
            switch state {
            case .ready:
                settle(.reachable)
            case .waiting(let error):
                if #available(iOS 14.2, macOS 11.0, *), connection.currentPath?.unsatisfiedReason == .localNetworkDenied {
                    settle(.denied("\(deniedMarker): iOS refused the connection to \(host):\(port) (NWPath unsatisfied "
                                   + "reason localNetworkDenied); allow it in Settings → Privacy & Security → Local "
                                   + "Network → LatencyLabHarness"))
                } else {
                    lock.lock()
                    lastWait = "waiting: \(error)"
                    lock.unlock()
                }
            case .failed(let error):
                settle(.unreachable("\(unreachableMarker): \(host):\(port) failed: \(error); is the phone on the lab Wi-Fi?"))
            default:
                break
            }
        }
        connection.start(queue: DispatchQueue(label: "latencylab.lab-network"))
        if settled.wait(timeout: .now() + timeout) == .timedOut {
            lock.lock()
            let reason = lastWait
            lock.unlock()
            settle(.unreachable("\(unreachableMarker): \(host):\(port) not reachable within \(Int(timeout)) s "
                                + "(\(reason)); is the phone on the lab Wi-Fi?"))
        }
        connection.cancel()
        lock.lock()
        defer { lock.unlock() }
        return verdict ?? .unreachable(unreachableMarker)
    }
}
