package dev.latencylab.harness.engine

import dev.latencylab.harness.job.Arm
import dev.latencylab.harness.job.PlannedRequest
import dev.latencylab.harness.measure.ErrorClass
import dev.latencylab.harness.measure.Measurement
import dev.latencylab.harness.measure.MonotonicClock
import dev.latencylab.harness.measure.Timeline
import dev.latencylab.harness.net.TrustMaterial
import java.io.Closeable

/** What every engine of a block shares. */
data class EngineSettings(
    /** Per request, from t0 to app_done (job `timeout_ms`). */
    val timeoutMs: Int,
    val clock: MonotonicClock = MonotonicClock.SYSTEM,
)

/**
 * One arm's client: issues its planned requests on the arm's connection as the arm's
 * connection policy says, and reports what the client library observed.
 */
interface ProtocolEngine : Closeable {
    /**
     * Issues one request (in the block's `seq` order) and returns its measurement. Network
     * trouble never throws: it is an error sample (DESIGN: failures are data).
     */
    fun execute(request: PlannedRequest, body: ByteArray): Measurement

    /** Closes the arm's current connection: a planned `new_connection`. */
    fun closeConnection()
}

/** The platform's HTTP/3 client: Cronet on a phone; on the JVM a QUIC library stands in for tests. */
interface Http3EngineProvider {
    /** e.g. "cronet 128.0.6613.40" or "flupke 0.9.4 + kwik 0.10.8 (JVM stand-in for Cronet)". */
    val clientStack: String

    fun create(arm: Arm, trust: TrustMaterial, settings: EngineSettings): ProtocolEngine
}

/** An arm that cannot be measured at all: every request is the same error sample, with real t0/app_done. */
class FailingEngine(
    private val errorClass: ErrorClass,
    private val detail: String,
    private val clock: MonotonicClock,
) : ProtocolEngine {
    override fun execute(request: PlannedRequest, body: ByteArray): Measurement =
        Measurement(Timeline(clock)).also { it.fail(errorClass, detail) }

    override fun closeConnection() = Unit
    override fun close() = Unit
}
