package dev.latencylab.harness.measure

import java.time.Instant

/** The contract's per-request phases, in the order they happen on a fresh connection. */
enum class Phase(val field: String) {
    DNS_START("dns_start"),
    DNS_END("dns_end"),
    CONN_START("conn_start"),
    TLS_START("tls_start"),
    CONN_READY("conn_ready"),
    REQ_START("req_start"),
    REQ_END("req_end"),
    RESP_FIRST_BYTE("resp_first_byte"),
    RESP_HEADERS_END("resp_headers_end"),
    RESP_END("resp_end"),
    APP_DONE("app_done"),
}

/** A monotonic nanosecond clock; System.nanoTime on the JVM and on Android (CLOCK_MONOTONIC). */
fun interface MonotonicClock {
    fun nanos(): Long

    companion object {
        val SYSTEM = MonotonicClock { System.nanoTime() }
        const val SOURCE = "System.nanoTime"

        /**
         * The clock's resolution in µs: its smallest observed tick (System.nanoTime promises
         * ns units, not ns resolution). Samples carry integer µs whatever this is.
         */
        fun resolutionUs(clock: MonotonicClock = SYSTEM, probes: Int = 2000): Double {
            var smallest = Long.MAX_VALUE
            var last = clock.nanos()
            repeat(probes) {
                var now = clock.nanos()
                while (now == last) now = clock.nanos()
                smallest = minOf(smallest, now - last)
                last = now
            }
            return smallest / 1000.0
        }
    }
}

fun epochMicros(): Long {
    val now = Instant.now()
    return now.epochSecond * 1_000_000 + now.nano / 1_000
}

/**
 * One request's phase marks as integer µs offsets from t0 on a monotonic clock.
 *
 * Callbacks arrive on library threads (OkHttp's caller thread, grpc's transport threads,
 * QUIC's receiver), so every access is synchronized. Once [seal]ed, late callbacks (a
 * channel reconnecting after the request ended) change nothing.
 */
class Timeline(private val clock: MonotonicClock = MonotonicClock.SYSTEM) {
    private val marks = arrayOfNulls<Long>(Phase.entries.size)
    private var t0Nanos: Long = clock.nanos()
    private var sealed = false

    /** Epoch µs at t0 (the contract's wall_time). */
    var wallTimeUs: Long = epochMicros()
        private set

    fun now(): Long = clock.nanos()

    /** t0 on the monotonic clock (ns): when the request was issued (the sample's issued_mono_us, against the block's start). */
    @Synchronized
    fun issuedAtNanos(): Long = t0Nanos

    /** Moves t0 to now: the library's own "call starts" event (OkHttp callStart). Only before any mark. */
    @Synchronized
    fun restartAtCallStart() {
        if (sealed || marks.any { it != null }) return
        t0Nanos = clock.nanos()
        wallTimeUs = epochMicros()
    }

    @Synchronized
    fun mark(phase: Phase, atNanos: Long = clock.nanos()) {
        if (!sealed) marks[phase.ordinal] = offsetUs(atNanos)
    }

    /** Marks only if the phase has no mark yet (the first of several attempts or events). */
    @Synchronized
    fun markFirst(phase: Phase, atNanos: Long = clock.nanos()) {
        if (!sealed && marks[phase.ordinal] == null) marks[phase.ordinal] = offsetUs(atNanos)
    }

    /**
     * Sets a phase from a library's own timestamps, as µs after t0 (Cronet and URLSession
     * report wall-clock dates, which become offsets from their own request start).
     */
    @Synchronized
    fun markAtOffset(phase: Phase, offsetUs: Long?) {
        if (!sealed) marks[phase.ordinal] = offsetUs?.let { maxOf(0L, it) }
    }

    @Synchronized
    fun clear(phase: Phase) {
        if (!sealed) marks[phase.ordinal] = null
    }

    @Synchronized
    fun has(phase: Phase): Boolean = marks[phase.ordinal] != null

    @Synchronized
    operator fun get(phase: Phase): Long? = marks[phase.ordinal]

    /**
     * When the request was issued and when the app saw it complete, as instants of the
     * monotonic clock (ns): a concurrency group's requests are placed against each other by
     * these (in_flight). Seals the timeline.
     */
    fun issuedUntilDoneNanos(): LongRange {
        val appDoneUs = seal().getValue(Phase.APP_DONE) ?: 0L
        return synchronized(this) { t0Nanos..(t0Nanos + appDoneUs * 1_000) }
    }

    /** Ends the timeline: app_done (if nobody marked it) and no further changes. */
    @Synchronized
    fun seal(): Map<Phase, Long?> {
        if (!sealed) {
            if (marks[Phase.APP_DONE.ordinal] == null) marks[Phase.APP_DONE.ordinal] = offsetUs(clock.nanos())
            sealed = true
        }
        return Phase.entries.associateWith { marks[it.ordinal] }
    }

    private fun offsetUs(atNanos: Long): Long = maxOf(0L, (atNanos - t0Nanos) / 1_000)
}
