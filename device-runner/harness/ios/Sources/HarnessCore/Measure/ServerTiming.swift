import Foundation

/// `Server-Timing: app;dur=1.234` (ms) → 1234 µs; the first metric with a `dur`. Mirrors ServerTiming.kt.
public enum ServerTiming {
    public static func parseMicros(_ value: String?) -> Int64? {
        guard let value = value, !value.isEmpty else { return nil }
        for metric in value.split(separator: ",") {
            for param in metric.split(separator: ";").dropFirst() {
                let kv = param.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if kv.first?.lowercased() == "dur" {
                    guard kv.count == 2, let ms = Double(kv[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))) else { return nil }
                    return max(0, Int64((ms * 1000).rounded()))
                }
            }
        }
        return nil
    }
}
