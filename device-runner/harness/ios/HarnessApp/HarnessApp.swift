import SwiftUI

/// The host app of the XCTest bundle: the tests run in its process (and under its Info.plist,
/// which allows the cleartext h1c arms). It has nothing to do on its own.
@main
struct HarnessApp: App {
    var body: some Scene {
        WindowGroup { Text("LatencyLab harness: driven by its XCTest (fastlane ios bench)") }
    }
}
