import Foundation

/// What the device reports about itself (BenchTests fills it from UIKit). Mirrors Fingerprint.kt.
public struct DeviceInfo {
    public let platform: String
    public let model: String
    public let osVersion: String
    public let radio: String?
    public let battery: Double?
    public let charging: Bool?
    public let temperature: Double?

    public init(platform: String, model: String, osVersion: String, radio: String?, battery: Double?, charging: Bool?, temperature: Double?) {
        self.platform = platform
        self.model = model
        self.osVersion = osVersion
        self.radio = radio
        self.battery = battery
        self.charging = charging
        self.temperature = temperature
    }
}

public struct Fingerprint {
    public let device: DeviceInfo
    public let harnessVersion: String
    public let clockSource: String
    public let clockResolutionUs: Double
    public let clientStacks: [String: String]

    public func toJSON() -> [String: Any] {
        func v(_ x: Any?) -> Any { x ?? NSNull() }
        return [
            "platform": device.platform, "model": device.model, "os_version": device.osVersion,
            "harness_version": harnessVersion, "radio": v(device.radio), "battery": v(device.battery),
            "charging": v(device.charging), "temperature": v(device.temperature),
            "clock_source": clockSource, "clock_resolution_us": clockResolutionUs, "client_stacks": clientStacks,
        ]
    }
}
