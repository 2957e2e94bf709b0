import Foundation
#if canImport(UIKit)
import UIKit
#endif

/// Keeps the iPhone from dimming and auto-locking while a block runs: a locked phone suspends
/// the harness's networking mid-block, and the next block could not even start
/// (xcodebuild: "…because the device was not, or could not be, unlocked"). The XCTest runs in
/// the harness app's process, so `UIApplication.shared` is the app's; the idle timer is
/// restored when the block ends. A lab still sets Auto-Lock to Never between blocks
/// (docs/device-lab.md §1).
enum KeepAwake {
    static func during<T>(_ body: () throws -> T) rethrows -> T {
        #if canImport(UIKit)
        let before = onMain { UIApplication.shared.isIdleTimerDisabled }
        onMain { UIApplication.shared.isIdleTimerDisabled = true }
        defer { onMain { UIApplication.shared.isIdleTimerDisabled = before } }
        #endif
        return try body()
    }

    /// UIApplication is main-thread only; XCTest runs test methods on the main thread.
    private static func onMain<T>(_ work: () -> T) -> T {
        Thread.isMainThread ? work() : DispatchQueue.main.sync(execute: work)
    }
}
