import Foundation

/// The contract's `in_flight`, counted afterwards from a group's [t0, app_done] spans on the
/// monotonic clock, so it means the same for every engine whatever order their callbacks ran
/// in; a request issued at the same instant as an earlier one of the group counts it. Mirrors InFlight.kt.
public enum InFlight {
    public static func count(_ group: [Measurement]) -> [Int] {
        let spans = group.map { $0.timeline.issuedUntilDoneNanos() }
        return spans.indices.map { i in
            1 + spans.indices.filter { j in
                j != i && spans[j].done > spans[i].issued &&
                    (spans[j].issued < spans[i].issued || (spans[j].issued == spans[i].issued && j < i))
            }.count
        }
    }
}
