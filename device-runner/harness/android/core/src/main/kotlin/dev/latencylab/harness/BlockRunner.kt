package dev.latencylab.harness

import dev.latencylab.harness.engine.EngineSettings
import dev.latencylab.harness.engine.Engines
import dev.latencylab.harness.engine.GroupRequest
import dev.latencylab.harness.engine.ProtocolEngine
import dev.latencylab.harness.job.Job
import dev.latencylab.harness.job.Origin
import dev.latencylab.harness.job.PlannedRequest
import dev.latencylab.harness.measure.ErrorClass
import dev.latencylab.harness.measure.Failures
import dev.latencylab.harness.measure.InFlight
import dev.latencylab.harness.measure.Measurement
import dev.latencylab.harness.measure.MonotonicClock
import dev.latencylab.harness.measure.RequestBodies
import dev.latencylab.harness.measure.Timeline
import dev.latencylab.harness.readiness.LinkInspector
import dev.latencylab.harness.readiness.NetworkInterfaceLinks
import dev.latencylab.harness.readiness.ReadinessCheck
import dev.latencylab.harness.result.DeviceInfo
import dev.latencylab.harness.result.Fingerprint
import dev.latencylab.harness.result.ResultDocument
import dev.latencylab.harness.result.Sample

/**
 * Runs one job: the requests in `seq` order, each on the engine of its arm and origin (created
 * at the first request that needs it, closed at the end of the block, so every block starts
 * from the same state; a request's own `origin` has its own engine, hence its own connection).
 * Consecutive requests of one arm and phase with the same `group` are issued together
 * ([ProtocolEngine.executeGroup]); the next request or group starts once the group completed.
 * A planned `new_connection` closes the arm's connections first; `gap_ms` pauses after each
 * request or group. Every request yields exactly one sample, in request order; a failure is a
 * sample, never an abort.
 *
 * A job with `readiness` is checked first ([ReadinessCheck]): a refused check answers
 * `not_ready` with no samples. Each sample's `issued_mono_us` counts from the block's start on
 * [clock], taken after the check, so a concurrent series' span never rests on the wall clock.
 */
class BlockRunner(
    private val engines: Engines,
    private val clock: MonotonicClock = MonotonicClock.SYSTEM,
    /** Called after each request or group with (done, total), e.g. for instrumentation status. */
    private val progress: ((Int, Int) -> Unit)? = null,
    /** Which network a local address is on: the Android app answers from ConnectivityManager. */
    private val links: LinkInspector = NetworkInterfaceLinks,
) {
    fun run(job: Job, device: DeviceInfo, variant: String): ResultDocument {
        val readiness = job.readiness?.let { ReadinessCheck(links, clock).run(it) }
        if (readiness != null && readiness.refused) {
            return ResultDocument(job.runId, job.block, job.attempt, "not_ready", emptyList(), fingerprint(job, device, variant),
                readiness.error, readiness)
        }
        val blockStart = clock.nanos()
        val settings = EngineSettings(job.timeoutMs, clock)
        val arms = job.arms.associateBy { it.label }
        val open = LinkedHashMap<Pair<String, Origin>, ProtocolEngine>()
        fun engineFor(request: PlannedRequest): ProtocolEngine {
            val arm = arms.getValue(request.arm)
            val origin = request.origin ?: arm.origin
            return open.getOrPut(arm.label to origin) { engines.create(arm.at(origin).pinned(job.pinnedAddresses), settings) }
        }
        val samples = ArrayList<Sample>(job.requests.size)
        try {
            var index = 0
            while (index < job.requests.size) {
                val request = job.requests[index]
                if (request.newConnection) open.filterKeys { it.first == request.arm }.values.forEach { it.closeConnection() }
                val group = groupAt(job.requests, index)
                val measurements = if (group.size == 1) {
                    listOf(measureAlone(engineFor(request), request))
                } else {
                    measureGroup(group, job.maxParallel, ::engineFor)
                }
                group.zip(measurements).forEach { (r, m) -> samples += Sample(r, job.block, m, blockStart) }
                index += group.size
                progress?.invoke(index, job.requests.size)
                if (job.gapMs > 0) Thread.sleep(job.gapMs.toLong())
            }
        } finally {
            open.values.forEach { runCatching { it.close() } }
        }
        return ResultDocument(job.runId, job.block, job.attempt, "ok", samples, fingerprint(job, device, variant), readiness = readiness)
    }

    private fun fingerprint(job: Job, device: DeviceInfo, variant: String): Fingerprint = Fingerprint(
        device = device,
        harnessVersion = HarnessInfo.describe(variant),
        clockSource = MonotonicClock.SOURCE,
        clockResolutionUs = MonotonicClock.resolutionUs(clock),
        clientStacks = job.arms.map { it.protocol }.distinct().associate { it.wire to engines.clientStack(it) },
    )

    private fun measureAlone(engine: ProtocolEngine, request: PlannedRequest): Measurement {
        val measurement = try {
            engine.execute(request, bodyOf(request))
        } catch (e: Exception) { // an engine bug still yields this request's sample
            harnessError(e)
        }
        measurement.inFlight = 1 // issued alone: the only request of its arm in flight
        return measurement
    }

    /**
     * One concurrency group: each origin's requests on that origin's engine, the origins side by
     * side (one thread each), then every sample's in_flight from the group's spans.
     */
    private fun measureGroup(group: List<PlannedRequest>, maxParallel: Int, engineFor: (PlannedRequest) -> ProtocolEngine): List<Measurement> {
        // Bodies are generated as the group is issued, so client_ts_us is its send time to within the group's issue.
        val issued = group.map { GroupRequest(it, bodyOf(it)) }
        val byEngine = issued.groupBy { engineFor(it.request) }
        val measured = java.util.concurrent.ConcurrentHashMap<GroupRequest, Measurement>()
        fun runOn(engine: ProtocolEngine, part: List<GroupRequest>) {
            val results = try {
                engine.executeGroup(part, maxParallel).also {
                    check(it.size == part.size) { "engine returned ${it.size} measurements for ${part.size} requests" }
                }
            } catch (e: Exception) { // an engine bug still yields every request's sample
                part.map { harnessError(e) }
            }
            part.zip(results).forEach { (r, m) -> measured[r] = m }
        }
        if (byEngine.size == 1) {
            byEngine.forEach { (engine, part) -> runOn(engine, part) }
        } else {
            byEngine.map { (engine, part) -> Thread { runOn(engine, part) }.apply { start() } }.forEach { it.join() }
        }
        val measurements = issued.map { measured[it] ?: harnessError(IllegalStateException("no measurement for seq ${it.request.seq}")) }
        InFlight.count(measurements).forEachIndexed { i, n -> measurements[i].inFlight = n }
        return measurements
    }

    // Generated just before the request, so client_ts_us is its send time to within µs.
    private fun bodyOf(request: PlannedRequest): ByteArray =
        request.body ?: if (request.bodyBytes > 0) RequestBodies.generate(request.bodyBytes) else EMPTY

    private fun harnessError(e: Exception): Measurement =
        Measurement(Timeline(clock)).apply { fail(ErrorClass.OTHER, "harness error: ${Failures.describe(e)}") }

    companion object {
        private val EMPTY = ByteArray(0)

        /**
         * The request at [index] and the ones after it issued together with it: the consecutive
         * requests of the same arm and phase with the same (non-null) group.
         */
        fun groupAt(requests: List<PlannedRequest>, index: Int): List<PlannedRequest> {
            val first = requests[index]
            if (first.group == null) return listOf(first)
            var end = index + 1
            while (end < requests.size && requests[end].group == first.group &&
                requests[end].arm == first.arm && requests[end].phase == first.phase
            ) end++
            return requests.subList(index, end)
        }
    }
}
