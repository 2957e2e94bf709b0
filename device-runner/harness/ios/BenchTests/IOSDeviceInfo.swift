import Foundation
import HarnessCore
import Network
#if canImport(UIKit)
import UIKit
#endif

/// The fingerprint's device part from iOS APIs (AndroidDeviceInfo.kt's twin). iOS exposes no
/// battery temperature to apps: temperature is null (ProcessInfo.thermalState is not °C; it
/// is reported on its own, `thermalStatus()`).
enum IOSDeviceInfo {
    static func read() -> DeviceInfo {
        #if canImport(UIKit)
        let device = UIDevice.current
        device.isBatteryMonitoringEnabled = true
        let level = device.batteryLevel // -1 when unknown (the simulator)
        let charging: Bool? = switch device.batteryState {
        case .charging, .full: true
        case .unplugged: false
        default: nil
        }
        return DeviceInfo(platform: "ios", model: modelIdentifier(), osVersion: device.systemVersion, radio: radio(),
                          battery: level >= 0 ? Double(level) * 100 : nil, charging: charging, temperature: nil)
        #else
        return DeviceInfo(platform: "ios", model: modelIdentifier(), osVersion: ProcessInfo.processInfo.operatingSystemVersionString,
                          radio: radio(), battery: nil, charging: nil, temperature: nil)
        #endif
    }

    /// The fingerprint's `thermal_status` on iOS: ProcessInfo.ThermalState by its own names
    /// (nominal, fair, serious, critical: Apple's "Respond to thermal state changes"; serious and
    /// critical throttle the CPU and networking). Android's getCurrentThermalStatus has other names
    /// and steps; the runner's gate reads each platform's own.
    static func thermalStatus(_ state: ProcessInfo.ThermalState = ProcessInfo.processInfo.thermalState) -> String {
        switch state {
        case .nominal: return "nominal"
        case .fair: return "fair"
        case .serious: return "serious"
        case .critical: return "critical"
        @unknown default: return "unknown"
        }
    }

    /// e.g. "iPhone15,2" (what ideviceinfo reports as ProductType).
    static func modelIdentifier() -> String {
        var info = utsname()
        uname(&info)
        return withUnsafeBytes(of: &info.machine) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// The interface the current network path uses.
    static func radio() -> String? {
        let monitor = NWPathMonitor()
        let ready = DispatchSemaphore(value: 0)
        var kind: String?
        monitor.pathUpdateHandler = { path in
            if path.usesInterfaceType(.wifi) { kind = "wifi" }
            else if path.usesInterfaceType(.cellular) { kind = "cellular" }
            else if path.usesInterfaceType(.wiredEthernet) { kind = "ethernet" }
            else { kind = "other" }
            ready.signal()
        }
        monitor.start(queue: DispatchQueue(label: "latencylab.radio"))
        _ = ready.wait(timeout: .now() + 2)
        monitor.cancel()
        return kind
    }
}
