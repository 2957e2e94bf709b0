package dev.latencylab.harness.measure

/**
 * The contract's `in_flight`: how many requests of an arm were in flight when a request was
 * issued, itself included. Counted afterwards from the requests' own [t0, app_done] spans on
 * the block's monotonic clock rather than by counters in the clients' callbacks, so it means
 * the same for every engine (OkHttp's dispatcher, grpc's and QUIC's threads) whatever order
 * their callbacks ran in. A request issued at the same instant as an earlier one of the group
 * counts that one as in flight (the group's order breaks the tie).
 */
object InFlight {
    fun count(group: List<Measurement>): List<Int> {
        val spans = group.map { it.timeline.issuedUntilDoneNanos() }
        return spans.mapIndexed { i, own ->
            1 + spans.indices.count { j ->
                j != i && spans[j].last > own.first &&
                    (spans[j].first < own.first || (spans[j].first == own.first && j < i))
            }
        }
    }
}
