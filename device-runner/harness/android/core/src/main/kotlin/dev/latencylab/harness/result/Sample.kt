package dev.latencylab.harness.result

import com.fasterxml.jackson.databind.node.JsonNodeFactory
import com.fasterxml.jackson.databind.node.ObjectNode
import dev.latencylab.harness.job.PlannedRequest
import dev.latencylab.harness.measure.Measurement
import dev.latencylab.harness.measure.Phase

/**
 * One request's sample (sample.schema.json): the request's context plus what was measured.
 * [blockStartNanos]: the block's start on the monotonic clock, from which `issued_mono_us`
 * counts (null: not reported).
 */
class Sample(val request: PlannedRequest, val block: Int, val measurement: Measurement, private val blockStartNanos: Long? = null) {
    private val phases: Map<Phase, Long?> = measurement.timeline.seal()

    operator fun get(phase: Phase): Long? = phases[phase]

    val wallTimeUs: Long get() = measurement.timeline.wallTimeUs

    /** When the request was issued, µs since the block began on the monotonic clock (a concurrent series' span is measured on it). */
    val issuedMonoUs: Long? get() = blockStartNanos?.let { maxOf(0L, (measurement.timeline.issuedAtNanos() - it) / 1_000) }

    /** Field order follows the contract's examples; every field is present, null when it did not happen. */
    fun toJson(nodes: JsonNodeFactory = JsonNodeFactory.instance): ObjectNode {
        val m = measurement
        val r = request
        return nodes.objectNode().apply {
            put("arm", r.arm)
            put("block", block)
            put("period", r.period)
            put("repetition", r.repetition)
            put("seq", r.seq)
            put("step", r.step)
            put("phase", r.phase)
            put("op", r.op)
            put("path", r.path.take(MAX_PATH))
            put("wall_time", wallTimeUs)
            put("issued_mono_us", issuedMonoUs)
            put("t0", 0)
            for (phase in Phase.entries) put(phase.field, phases[phase])
            put("conn_id", m.connId)
            put("conn_reused", m.connReused)
            put("in_flight", m.inFlight)
            put("alpn", m.alpn)
            put("tls_version", m.tlsVersion)
            put("tls_resumed", m.tlsResumed)
            put("early_data", m.earlyData)
            put("req_bytes", m.reqBytes)
            put("resp_bytes", m.respBytes)
            put("status", m.status)
            put("server_delay_ms", r.serverDelayMs)
            put("server_time_us", m.serverTimeUs)
            // TCP_INFO is not reachable from Java sockets (JVM or Android): not observed, so null.
            putNull("srtt_us")
            putNull("retrans")
            put("error_class", m.errorClass?.wire)
            put("error_detail", m.errorDetail)
            if (r.part != null) put("part", r.part)
        }
    }

    companion object {
        const val MAX_PATH = 512
    }
}
