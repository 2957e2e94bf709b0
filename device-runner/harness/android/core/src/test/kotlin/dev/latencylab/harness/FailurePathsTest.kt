package dev.latencylab.harness

import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotNull
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.ValueSource

/** What a failed request looks like: always a sample, classified, and the block goes on. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FailurePathsTest {
    /**
     * An HTTPS server that speaks only HTTP/1.1 and negotiates no ALPN (a JDK SSLServerSocket
     * with the reference target's certificate): what a client meets behind an old proxy.
     */
    private lateinit var h1Only: H1OnlyTlsServer

    @BeforeAll
    fun startH1OnlyServer() {
        h1Only = H1OnlyTlsServer(ReferenceTarget.serverCert, ReferenceTarget.serverKey)
    }

    @AfterAll
    fun stop() = h1Only.close()

    private fun h1OnlyOrigin() = "https://127.0.0.1:${h1Only.port}"

    @Test
    fun `an h2 arm on the cleartext h1c port gets HTTP-1_1 - every request is a protocol_mismatch, never a measurement`() {
        val job = JobBuilder().arm("m", "h2", "warm", plainOrigin(), ca = false)
            .request("m", "/bytes/100").request("m", "/bytes/100").build()
        runJob(job).second.samples().forEach { s ->
            assertFailed(s, "protocol_mismatch")
            assertNotNull(s.us("conn_ready"), "the connection really happened: $s")
            assertNull(s.us("req_start"), "no request was sent on the wrong protocol")
            assertNull(s["status"].takeUnless { it.isNull })
            assertNull(s.us("resp_bytes"))
        }
    }

    @Test
    fun `an h2 arm against an HTTPS server without h2 falls back silently - reported as protocol_mismatch`() {
        val job = JobBuilder().arm("m", "h2", "warm", h1OnlyOrigin()).request("m", "/x").build()
        val s = runJob(job).second.samples().single()
        assertFailed(s, "protocol_mismatch")
        assertTrue("http/1.1" in s.text("error_detail")!!, s.text("error_detail"))
        assertNotNull(s.us("tls_start"))
    }

    @Test
    fun `an h1 arm against the same server measures normally (the check is per arm)`() {
        val job = JobBuilder().arm("h", "h1", "warm", h1OnlyOrigin()).request("h", "/x").build()
        val s = runJob(job).second.samples().single()
        assertNull(s.text("error_class"), s.text("error_detail"))
        assertEquals("http/1.1", s.text("alpn"))
        assertEquals(2L, s.us("resp_bytes"))
    }

    @Test
    fun `a gRPC arm against a server that negotiates no ALPN is a protocol_mismatch`() {
        val job = JobBuilder().arm("g", "grpc", "warm", h1OnlyOrigin()).request("g", "/healthz").request("g", "/healthz").build()
        runJob(job).second.samples().forEach { s ->
            assertFailed(s, "protocol_mismatch")
            assertTrue("negotiated ALPN none" in s.text("error_detail")!!, s.text("error_detail"))
            assertNotNull(s.us("conn_ready"), "TLS completed, then the protocol was refused: $s")
        }
    }

    @ParameterizedTest
    @ValueSource(strings = ["h1c", "h1", "h2", "grpc"])
    fun `an unreachable port gives connect error samples`(protocol: String) {
        val port = unusedPort()
        val origin = if (protocol == "h1c") "http://127.0.0.1:$port" else "https://127.0.0.1:$port"
        val job = JobBuilder().arm("u", protocol, "warm", origin).request("u", "/bytes/1").request("u", "/bytes/1").build()
        runJob(job).second.samples().forEach { s ->
            assertFailed(s, "connect")
            assertNotNull(s.us("conn_start"), "the connect was attempted: $s")
            assertNull(s.us("conn_ready"))
            assertNull(s.us("req_start"))
        }
    }

    @Test
    fun `an arm whose origin cannot carry its protocol is a protocol_mismatch without any traffic`() {
        val job = JobBuilder()
            .arm("a", "h1c", "warm", tlsOrigin())
            .arm("b", "grpc", "warm", plainOrigin())
            .arm("c", "h3", "warm", plainOrigin())
            .request("a", "/bytes/1").request("b", "/bytes/1").request("c", "/bytes/1").build()
        runJob(job).second.samples().forEach { s ->
            assertFailed(s, "protocol_mismatch")
            assertNull(s.us("conn_start"))
        }
    }

    @Test
    fun `a bad CA bundle fails the arm's requests as tls errors, other arms still measure`() {
        val job = JobBuilder()
            .arm("bad", "h2", "warm", tlsOrigin())
            .arm("good", "h1c", "warm", plainOrigin(), ca = false)
            .request("bad", "/bytes/1").request("good", "/bytes/1").build()
        val json = job.let { j ->
            val broken = j.copy(arms = j.arms.map { if (it.label == "bad") it.copy(caBundlePem = "-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----\n") else it })
            runJob(broken).second
        }
        val (bad, good) = json.samples()
        assertFailed(bad, "tls")
        assertTrue("ca_bundle_pem" in bad.text("error_detail")!!)
        assertOk(good)
    }

    @Test
    fun `without the target's CA the certificate is refused - verification is never turned off`() {
        val job = JobBuilder().arm("x", "h2", "warm", tlsOrigin(), ca = false).arm("y", "grpc", "warm", tlsOrigin(), ca = false)
            .request("x", "/bytes/1").request("y", "/bytes/1").build()
        runJob(job).second.samples().forEach { assertFailed(it, "tls") }
    }

    @Test
    fun `the h3 stand-in refuses IP-address certificate names up front with a clear reason`() {
        val job = JobBuilder().arm("q", "h3", "warm", tlsOrigin()).request("q", "/bytes/1").build()
        val s = runJob(job).second.samples().single()
        assertFailed(s, "tls")
        assertTrue("server_name" in s.text("error_detail")!!, s.text("error_detail"))
    }
}
