package dev.latencylab.harness

import com.fasterxml.jackson.databind.JsonNode
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.ValueSource

/**
 * Concurrency groups and a request's own origin against the real reference target (and a
 * second one on other ports). Nothing here is timed: the server's delay only keeps a group's
 * requests open long enough that they are certainly in flight together.
 */
class ConcurrencyGroupsTest {
    private val certName = "target.latencylab.test"

    /** A warm-up alone, then one group of [size] requests each held [delayMs] by the server. */
    private fun groupJob(protocol: String, connection: String, size: Int, maxParallel: Int = 4, delayMs: Int = 200): JobBuilder {
        val builder = JobBuilder().maxParallel(maxParallel)
            .arm("g", protocol, connection, tlsOrigin(if (protocol == "h3") "localhost" else ReferenceTarget.host))
            .request("g", "/bytes/1", phase = "warmup")
        repeat(size) { builder.request("g", "/delay/$delayMs", op = "delay", step = it, group = 0) }
        return builder
    }

    /** [wall_time, wall_time + app_done] in epoch µs: when the request was issued and when the app saw it complete. */
    private fun JsonNode.span(): LongRange = get("wall_time").asLong().let { it..(it + us("app_done")!!) }

    private fun overlapping(samples: List<JsonNode>): Boolean = samples.indices.any { i ->
        samples.indices.any { j -> i < j && samples[i].span().first < samples[j].span().last && samples[j].span().first < samples[i].span().last }
    }

    private fun List<JsonNode>.inFlight() = map { it["in_flight"].asInt() }

    @Test
    fun `h1 spreads a group over up to max_parallel connections, as an app's per-host limit does`() {
        val samples = runJob(groupJob("h1", "warm", size = 8).build()).second.samples()
        assertEquals(1, samples[0]["in_flight"].asInt(), "a request issued alone")
        val group = samples.drop(1)
        group.forEach { assertOk(it); assertEquals("http/1.1", it.text("alpn")) }
        val connections = group.map { it.text("conn_id") }.toSet()
        assertTrue(connections.size in 2..4, "≤ max_parallel connections and more than one: $connections")
        assertTrue(samples[0].text("conn_id") in connections, "warm: the warm-up's connection is reused")
        assertTrue(group.inFlight().max() > 1, "requests in flight together: ${group.inFlight()}")
        assertTrue(group.inFlight().all { it in 1..4 }, "a queued request is issued when a connection frees: ${group.inFlight()}")
        assertTrue(overlapping(group), "the [t0, app_done] spans overlap")
        assertEquals((0 until 8).toList(), group.map { it["step"].asInt() }, "samples in the job's order")
    }

    @Test
    fun `cold h1 opens a connection per request, at most max_parallel at a time`() {
        val samples = runJob(groupJob("h1", "cold", size = 6, maxParallel = 3).build()).second.samples()
        samples.forEach { assertOk(it); assertOpenedConnection(it) }
        assertEquals(samples.size, samples.map { it.text("conn_id") }.toSet().size)
        val group = samples.drop(1)
        assertTrue(group.inFlight().max() in 2..3, "${group.inFlight()}")
    }

    @ParameterizedTest
    @ValueSource(strings = ["h2", "grpc", "h3"])
    fun `a multiplexed protocol carries the whole group on one connection`(protocol: String) {
        val builder = groupJob(protocol, "warm", size = 6)
        val samples = runJob(builder.build()).second.samples()
        samples.forEach { assertOk(it) }
        assertEquals(1, samples.map { it.text("conn_id") }.toSet().size, "one connection: ${samples.map { it.text("conn_id") }}")
        val group = samples.drop(1)
        group.forEach { assertReusedConnection(it) }
        assertTrue(group.inFlight().max() > 1, "${group.inFlight()}")
        assertTrue(overlapping(group), "the [t0, app_done] spans overlap")
    }

    @ParameterizedTest
    @ValueSource(strings = ["h1", "h2", "grpc", "h3"])
    fun `a series of the seeded images issued at once arrives whole`(protocol: String) {
        // Twelve downloads at once: far more than one flow-control window on a multiplexed connection.
        val builder = JobBuilder().maxParallel(4)
            .arm("s", protocol, "warm", tlsOrigin(if (protocol == "h3") "localhost" else ReferenceTarget.host))
            .request("s", "/files/mid-01", op = "file", phase = "warmup")
        (1..12).forEach { builder.request("s", "/files/mid-%02d".format(it), op = "file", step = it - 1, group = 0) }
        val samples = runJob(builder.build()).second.samples()
        samples.forEach { assertOk(it) }
        assertEquals(listOf(Repo.midFileSize(1)) + (1..12).map { Repo.midFileSize(it) }, samples.map { it.us("resp_bytes") })
        assertTrue(samples.drop(1).inFlight().max() > 1, "${samples.inFlight()}")
    }

    @ParameterizedTest
    @ValueSource(strings = ["h2", "grpc", "h3"])
    fun `cold - a multiplexed group opens one new connection, its first request opens it`(protocol: String) {
        val builder = JobBuilder().maxParallel(2)
            .arm("c", protocol, "cold", tlsOrigin(if (protocol == "h3") "localhost" else ReferenceTarget.host))
        repeat(4) { builder.request("c", "/delay/100", op = "delay", step = it, group = 0) }
        repeat(2) { builder.request("c", "/bytes/10", op = "bytes", step = 4 + it, group = 1) }
        val samples = runJob(builder.build()).second.samples()
        samples.forEach { assertOk(it) }
        val first = samples.take(4)
        val second = samples.drop(4)
        assertOpenedConnection(first[0])
        first.drop(1).forEach { assertReusedConnection(it) }
        assertEquals(1, first.map { it.text("conn_id") }.toSet().size)
        assertOpenedConnection(second[0])
        assertNotEquals(first[0].text("conn_id"), second[0].text("conn_id"), "cold: the next group has a new connection")
    }

    @ParameterizedTest
    @ValueSource(strings = ["h1", "h2", "grpc", "h3"])
    fun `a request's absolute URL reaches its own origin on a connection of its own`(protocol: String) {
        val host = if (protocol == "h3") "localhost" else ReferenceTarget.host
        val elsewhere = "https://localhost:${SecondReferenceTarget.tlsPort}"
        val nowhere = "https://localhost:${unusedPort()}"
        val job = JobBuilder().arm("a", protocol, "warm", tlsOrigin(host), serverNameFor(protocol))
            .request("a", "/bytes/5")
            .request("a", "/bytes/7", origin = elsewhere)
            .request("a", "/bytes/5")
            .request("a", "/bytes/9", origin = elsewhere)
            .request("a", "/bytes/1", origin = nowhere)
            .build()
        val samples = runJob(job).second.samples()
        listOf(0, 1, 2, 3).forEach { assertOk(samples[it]) }
        assertEquals(listOf(5L, 7L, 5L, 9L), samples.take(4).map { it.us("resp_bytes") })
        assertOpenedConnection(samples[1])
        assertNotEquals(samples[0].text("conn_id"), samples[1].text("conn_id"), "the other origin has its own connection")
        assertEquals(samples[0].text("conn_id"), samples[2].text("conn_id"), "the arm's connection is kept meanwhile")
        assertEquals(samples[1].text("conn_id"), samples[3].text("conn_id"), "warm applies to the other origin's connection too")
        // QUIC has no connection refusal to see: an h3 client only times out (or reads the ICMP error as it will).
        if (protocol == "h3") assertTrue(samples[4].text("error_class") != null, "nobody listens at $nowhere: ${samples[4]}")
        else assertFailed(samples[4], "connect")
    }

    @Test
    fun `an h1 group across two origins counts every request of the arm in flight`() {
        val elsewhere = "https://localhost:${SecondReferenceTarget.tlsPort}"
        val builder = JobBuilder().maxParallel(2).arm("x", "h1", "warm", tlsOrigin())
        repeat(3) { builder.request("x", "/delay/200", op = "delay", step = it, group = 0) }
        repeat(3) { builder.request("x", "/delay/200", op = "delay", step = 3 + it, group = 0, origin = elsewhere) }
        val samples = runJob(builder.build()).second.samples()
        samples.forEach { assertOk(it) }
        val here = samples.take(3).map { it.text("conn_id") }.toSet()
        val there = samples.drop(3).map { it.text("conn_id") }.toSet()
        assertTrue(here.size <= 2 && there.size <= 2, "max_parallel per origin: $here $there")
        assertTrue(here.intersect(there).isEmpty())
        assertTrue(samples.inFlight().max() > 2, "both origins' requests are in flight together: ${samples.inFlight()}")
        assertTrue(samples.inFlight().max() <= 4, "${samples.inFlight()}")
    }

    @Test
    fun `groups run in order - the next one starts when the previous one completed`() {
        val builder = JobBuilder().arm("o", "h2", "warm", tlsOrigin())
        repeat(3) { builder.request("o", "/delay/100", op = "delay", step = it, group = 0) }
        repeat(3) { builder.request("o", "/delay/100", op = "delay", step = 3 + it, group = 1) }
        builder.request("o", "/bytes/1", step = 6)
        val samples = runJob(builder.build()).second.samples()
        samples.forEach { assertOk(it) }
        val firstEnds = samples.take(3).maxOf { it.span().last }
        assertTrue(samples.drop(3).all { it.span().first >= firstEnds - CLOCK_SLACK_US }, "group 1 starts after group 0 ended")
        assertEquals(1, samples.last()["in_flight"].asInt())
    }

    private fun serverNameFor(protocol: String) = if (protocol == "h3") certName else null

    companion object {
        /** wall_time is the system clock: allow it to step a little between samples. */
        private const val CLOCK_SLACK_US = 2_000L
    }
}
