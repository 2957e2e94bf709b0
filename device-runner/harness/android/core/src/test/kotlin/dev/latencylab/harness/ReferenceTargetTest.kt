package dev.latencylab.harness

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotEquals
import org.junit.jupiter.api.Assertions.assertNotNull
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.ValueSource

/**
 * The core measuring the real reference target (python -m latencylab_tools.target) over
 * real loopback sockets: h1 and h2 through OkHttp, gRPC through grpc-java, h3 through the
 * JVM stand-in for Cronet. No timing is asserted, only what the clients observed.
 */
class ReferenceTargetTest {
    /** The name the certificate carries; the h3 stand-in verifies DNS names only, so h3 arms always name it. */
    private val certName = "target.latencylab.test"

    private fun alpnOf(protocol: String) = when (protocol) {
        "h1" -> "http/1.1"
        "h2", "grpc" -> "h2"
        "h3" -> "h3"
        else -> null
    }

    private fun serverNameFor(protocol: String, wanted: String?) = if (protocol == "h3") certName else wanted

    /** The same four requests on every protocol: a warm-up, a download, a seeded file, an 800-byte echo. */
    private fun JobBuilder.mixedRequests(arm: String) = this
        .request(arm, "/bytes/0", phase = "warmup")
        .request(arm, "/bytes/70000", op = "bytes", step = 0)
        .request(arm, "/files/mid-01", op = "file", step = 1, part = "B")
        .request(arm, "/echo", method = "POST", op = "echo", bodyBytes = 800, step = 2)

    private fun assertMixedPayloads(samples: List<com.fasterxml.jackson.databind.JsonNode>) {
        assertEquals(listOf(0L, 70_000L, Repo.midFileSize(1), 800L), samples.map { it.us("resp_bytes") })
        assertEquals(listOf(0L, 0L, 0L, 800L), samples.map { it.us("req_bytes") })
    }

    @ParameterizedTest
    @ValueSource(strings = ["h1", "h2", "grpc", "h3"])
    fun `warm - the first request opens the connection and the others reuse it`(protocol: String) {
        val job = JobBuilder().arm("a", protocol, "warm", tlsOrigin(), serverNameFor(protocol, null)).mixedRequests("a").build()
        val (_, json) = runJob(job)
        val samples = json.samples()
        assertEquals(4, samples.size)
        val stack = json["fingerprint"]["client_stacks"][protocol].asText()
        val library = mapOf("h1" to "okhttp 5.", "h2" to "okhttp 5.", "grpc" to "grpc-java 1.", "h3" to "flupke ")[protocol]!!
        assertTrue(stack.startsWith(library), stack)
        if (protocol == "h3") assertTrue("JVM stand-in for Cronet" in stack, stack)
        samples.forEach { s ->
            assertOk(s)
            assertEquals(alpnOf(protocol), s.text("alpn"), "ALPN asserted per arm")
            assertEquals("TLSv1.3", s.text("tls_version"))
            assertEquals("a", s.text("arm"))
        }
        assertOpenedConnection(samples[0])
        assertNull(samples[0].us("dns_start"), "an IP-literal origin is never looked up")
        samples.drop(1).forEach { assertReusedConnection(it) }
        assertEquals(1, samples.map { it.text("conn_id") }.toSet().size, "one connection for the arm")
        assertNotNull(samples[0].text("conn_id"))
        assertMixedPayloads(samples)
        // The request's context travels into its sample.
        assertEquals(listOf(0, 1, 2, 3), samples.map { it["seq"].asInt() })
        assertEquals(listOf("warmup", "measure", "measure", "measure"), samples.map { it.text("phase") })
        assertEquals("B", samples[2].text("part"))
        assertTrue(!samples[1].has("part"), "part is left out when the request has none")
        assertEquals(listOf(null, 0, 1, 2), samples.map { it["step"].takeUnless { n -> n.isNull }?.asInt() })
    }

    @ParameterizedTest
    @ValueSource(strings = ["h1", "h2", "grpc", "h3"])
    fun `cold - every request opens its own connection and resumes nothing`(protocol: String) {
        val job = JobBuilder().arm("c", protocol, "cold", tlsOrigin(), serverNameFor(protocol, certName)).mixedRequests("c").build()
        val samples = runJob(job).second.samples()
        samples.forEach { s ->
            assertOk(s)
            assertOpenedConnection(s)
            assertEquals(alpnOf(protocol), s.text("alpn"))
            assertEquals(false, s.bool("tls_resumed"), "cold keeps no TLS session: $s")
        }
        assertEquals(4, samples.map { it.text("conn_id") }.toSet().size, "a new connection per request")
        assertMixedPayloads(samples)
    }

    @ParameterizedTest
    @ValueSource(strings = ["h1", "h2", "grpc", "h3"])
    fun `resumed - every request opens a new connection that resumes the arm's TLS session`(protocol: String) {
        val job = JobBuilder().arm("r", protocol, "resumed", tlsOrigin(), serverNameFor(protocol, null)).mixedRequests("r").build()
        val samples = runJob(job).second.samples()
        samples.forEach { s ->
            assertOk(s)
            assertOpenedConnection(s)
        }
        assertEquals(4, samples.map { it.text("conn_id") }.toSet().size)
        assertEquals(false, samples[0].bool("tls_resumed"), "nothing to resume on the first connection")
        samples.drop(1).forEach { assertEquals(true, it.bool("tls_resumed"), "the server accepted the session: $it") }
    }

    @Test
    fun `cleartext h1c - TCP connect is the whole connection setup, no TLS and no ALPN`() {
        val job = JobBuilder().arm("p", "h1c", "warm", plainOrigin(), ca = false).mixedRequests("p").build()
        val samples = runJob(job).second.samples()
        samples.forEach { assertOk(it) }
        assertOpenedConnection(samples[0], tls = false)
        samples.drop(1).forEach { assertReusedConnection(it) }
        samples.forEach { s ->
            assertNull(s.text("alpn"))
            assertNull(s.text("tls_version"))
            assertNull(s.bool("tls_resumed"))
            assertNull(s.bool("early_data"))
        }
        assertMixedPayloads(samples)
    }

    @ParameterizedTest
    @ValueSource(strings = ["h2", "grpc"])
    fun `a host-name origin is looked up, and the lookup is the dns phase`(protocol: String) {
        val job = JobBuilder().arm("n", protocol, "cold", tlsOrigin("localhost"))
            .request("n", "/bytes/10").request("n", "/bytes/10").build()
        runJob(job).second.samples().forEach { s ->
            assertOk(s)
            assertNotNull(s.us("dns_start"), "dns_start in $s")
            assertNotNull(s.us("dns_end"), "dns_end in $s")
            assertTrue(s.us("dns_end")!! <= s.us("conn_start")!!)
        }
    }

    @ParameterizedTest
    @ValueSource(strings = ["h1", "h2", "grpc"])
    fun `new_connection closes a warm arm's connection before the request`(protocol: String) {
        val job = JobBuilder().arm("w", protocol, "warm", tlsOrigin())
            .request("w", "/bytes/1").request("w", "/bytes/1").request("w", "/bytes/1", newConnection = true).request("w", "/bytes/1")
            .build()
        val samples = runJob(job).second.samples()
        samples.forEach { assertOk(it) }
        assertOpenedConnection(samples[0])
        assertReusedConnection(samples[1])
        assertOpenedConnection(samples[2])
        assertReusedConnection(samples[3])
        assertEquals(samples[0].text("conn_id"), samples[1].text("conn_id"))
        assertNotEquals(samples[1].text("conn_id"), samples[2].text("conn_id"))
        assertEquals(samples[2].text("conn_id"), samples[3].text("conn_id"))
    }

    @ParameterizedTest
    @ValueSource(strings = ["h1", "h2", "grpc", "h3"])
    fun `an HTTP error is an http error sample and the arm goes on`(protocol: String) {
        val job = JobBuilder().arm("e", protocol, "warm", tlsOrigin(), serverNameFor(protocol, null))
            .request("e", "/files/no-such-file").request("e", "/bytes/3").build()
        val samples = runJob(job).second.samples()
        assertFailed(samples[0], "http")
        if (protocol == "grpc") {
            assertEquals(200, samples[0]["status"].asInt(), "gRPC errors travel in grpc-status on an HTTP 200 response")
            assertTrue("NOT_FOUND" in samples[0].text("error_detail")!!, samples[0].text("error_detail"))
        } else {
            assertEquals(404, samples[0]["status"].asInt())
        }
        assertOk(samples[1])
        assertEquals(3L, samples[1].us("resp_bytes"))
    }

    @ParameterizedTest
    @ValueSource(strings = ["h1", "h2", "h3"])
    fun `a customer's own body is sent as is, and expect_status decides what an error is`(protocol: String) {
        val body = java.util.Base64.getEncoder().encodeToString("{\"dry_run\":true}".toByteArray())
        val job = JobBuilder().arm("c", protocol, "warm", tlsOrigin(), serverNameFor(protocol, null))
            .request("c", "/echo", method = "POST", op = "echo", bodyB64 = body, expectStatus = 200)
            .request("c", "/files/no-such-file", expectStatus = 404)
            .request("c", "/bytes/3", expectStatus = 201).build()
        val samples = runJob(job).second.samples()
        assertOk(samples[0])
        assertEquals(16L, samples[0].us("req_bytes"))
        assertEquals(16L, samples[0].us("resp_bytes"), "the echo returns the body it was sent")
        assertTrue(samples[1]["error_class"].isNull, "the 404 the customer expects is a success: ${samples[1]}")
        assertEquals(404, samples[1]["status"].asInt())
        assertFailed(samples[2], "http")
        assertEquals("HTTP 200, expected 201", samples[2].text("error_detail"))
    }

    @ParameterizedTest
    @ValueSource(strings = ["h1", "h2", "grpc", "h3"])
    fun `a request over the job's timeout is a timeout sample`(protocol: String) {
        // 1 s: far below the 3 s delay, far above a loopback exchange even on a loaded machine.
        val job = JobBuilder(timeoutMs = 1000).arm("t", protocol, "warm", tlsOrigin(), serverNameFor(protocol, null))
            .request("t", "/bytes/1").request("t", "/delay/3000", op = "delay").request("t", "/bytes/1").build()
        val samples = runJob(job).second.samples()
        assertOk(samples[0])
        assertFailed(samples[1], "timeout")
        assertTrue(samples[1].us("app_done")!! < 3_000_000, "the request was given up at its timeout, not waited out")
        assertOk(samples[2])
    }
}
