/// The harness's own version (the same as the Kotlin core's HarnessInfo.VERSION).
public enum HarnessInfo {
    public static let version = "0.1.0"

    /// `harness_version` in the fingerprint, e.g. "latencylab-harness 0.1.0 (ios)".
    public static func describe(_ variant: String) -> String { "latencylab-harness \(version) (\(variant))" }
}
