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
     * trouble never throws: it is an error sample (failures are data: docs/methodology.md §4).
     */
    fun execute(request: PlannedRequest, body: ByteArray): Measurement

    /**
     * Issues one concurrency group (requests of this arm to this engine's origin) at once, as
     * an app's HTTP stack does: HTTP/1.1 over up to [maxParallel] connections, each taking the
     * next waiting request when its previous one completes; HTTP/2, HTTP/3 and gRPC as streams
     * on the one connection (the first request opens it if there is none, the others are
     * issued once it is there). One measurement per request, in the group's order, each with
     * its own t0 (the moment it was issued). Network trouble never throws, as for [execute].
     */
    fun executeGroup(group: List<GroupRequest>, maxParallel: Int): List<Measurement>

    /** Closes the arm's current connection: a planned `new_connection`. */
    fun closeConnection()
}

/** One request of a concurrency group and the body it sends. */
class GroupRequest(val request: PlannedRequest, val body: ByteArray)

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

    override fun executeGroup(group: List<GroupRequest>, maxParallel: Int): List<Measurement> =
        group.map { execute(it.request, it.body) }

    override fun closeConnection() = Unit
    override fun close() = Unit
}
