package dev.latencylab.harness

import dev.latencylab.harness.engine.EngineSettings
import dev.latencylab.harness.engine.Engines
import dev.latencylab.harness.engine.ProtocolEngine
import dev.latencylab.harness.job.Job
import dev.latencylab.harness.measure.ErrorClass
import dev.latencylab.harness.measure.Failures
import dev.latencylab.harness.measure.Measurement
import dev.latencylab.harness.measure.MonotonicClock
import dev.latencylab.harness.measure.RequestBodies
import dev.latencylab.harness.measure.Timeline
import dev.latencylab.harness.result.DeviceInfo
import dev.latencylab.harness.result.Fingerprint
import dev.latencylab.harness.result.ResultDocument
import dev.latencylab.harness.result.Sample

/**
 * Runs one job: the requests in `seq` order, each on its arm's engine (created at the arm's
 * first request, closed at the end of the block, so every block starts from the same state).
 * A planned `new_connection` closes the arm's connection first; `gap_ms` pauses after each
 * request. Every request yields exactly one sample; a failure is a sample, never an abort.
 */
class BlockRunner(
    private val engines: Engines,
    private val clock: MonotonicClock = MonotonicClock.SYSTEM,
    /** Called after each request with (done, total), e.g. for instrumentation status. */
    private val progress: ((Int, Int) -> Unit)? = null,
) {
    fun run(job: Job, device: DeviceInfo, variant: String): ResultDocument {
        val settings = EngineSettings(job.timeoutMs, clock)
        val arms = job.arms.associateBy { it.label }
        val open = LinkedHashMap<String, ProtocolEngine>()
        val samples = ArrayList<Sample>(job.requests.size)
        try {
            for ((i, request) in job.requests.withIndex()) {
                val engine = open.getOrPut(request.arm) { engines.create(arms.getValue(request.arm), settings) }
                if (request.newConnection) engine.closeConnection()
                // Generated just before the request, so client_ts_us is its send time to within µs.
                val body = request.body ?: if (request.bodyBytes > 0) RequestBodies.generate(request.bodyBytes) else EMPTY
                val measurement = try {
                    engine.execute(request, body)
                } catch (e: Exception) { // an engine bug still yields this request's sample
                    Measurement(Timeline(clock)).apply { fail(ErrorClass.OTHER, "harness error: ${Failures.describe(e)}") }
                }
                samples += Sample(request, job.block, measurement)
                progress?.invoke(i + 1, job.requests.size)
                if (job.gapMs > 0) Thread.sleep(job.gapMs.toLong())
            }
        } finally {
            open.values.forEach { runCatching { it.close() } }
        }
        val stacks = job.arms.map { it.protocol }.distinct().associate { it.wire to engines.clientStack(it) }
        val fingerprint = Fingerprint(
            device = device,
            harnessVersion = HarnessInfo.describe(variant),
            clockSource = MonotonicClock.SOURCE,
            clockResolutionUs = MonotonicClock.resolutionUs(clock),
            clientStacks = stacks,
        )
        return ResultDocument(job.runId, job.block, job.attempt, "ok", samples, fingerprint)
    }

    companion object {
        private val EMPTY = ByteArray(0)
    }
}
