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
    /// ProcessInfo.thermalState when the block starts, in iOS's names (nominal, fair, serious,
    /// critical: `DeviceInfo.thermalStateName`); nil when unknown. The runner's gate holds the
    /// phone above its limit: no host tool reads an iPhone's thermal state.
    public let thermalStatus: String?

    public init(platform: String, model: String, osVersion: String, radio: String?, battery: Double?, charging: Bool?,
                temperature: Double?, thermalStatus: String? = nil) {
        self.platform = platform
        self.model = model
        self.osVersion = osVersion
        self.radio = radio
        self.battery = battery
        self.charging = charging
        self.temperature = temperature
        self.thermalStatus = thermalStatus
    }

    /// result.schema.json `fingerprint.thermal_status` on iOS, mildest first.
    public static let iosThermalStates = ["nominal", "fair", "serious", "critical"]

    /// ProcessInfo.ThermalState as the contract names it.
    public static func thermalStateName(_ state: ProcessInfo.ThermalState) -> String? {
        switch state {
        case .nominal: return "nominal"
        case .fair: return "fair"
        case .serious: return "serious"
        case .critical: return "critical"
        @unknown default: return nil
        }
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
            "thermal_status": v(device.thermalStatus),
            "clock_source": clockSource, "clock_resolution_us": clockResolutionUs, "client_stacks": clientStacks,
        ]
    }
}
