package dev.latencylab.harness

import dev.latencylab.harness.job.InvalidJobException
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows

/**
 * Hosted pools (job `pinned_addresses`): a customer host is reached at the address the runner
 * checked at lease time and never looked up again, so a name that resolves elsewhere later
 * (DNS rebinding) gets nowhere. `target.latencylab.test` is one of the reference target
 * certificate's names and resolves nowhere: only the pin can get these requests through.
 */
class PinnedAddressesTest {
    private val name = "target.latencylab.test"

    @Test
    fun `pinned hosts are connected to at the checked address with SNI and Host kept as the name`() {
        val job = JobBuilder()
            .arm("plain", "h1c", "warm", "http://$name:${ReferenceTarget.plainPort}", ca = false)
            .arm("h1", "h1", "cold", "https://$name:${ReferenceTarget.tlsPort}")
            .arm("h2", "h2", "warm", "https://$name:${ReferenceTarget.tlsPort}")
            .request("plain", "/bytes/10").request("h1", "/bytes/10").request("h2", "/bytes/10").request("h2", "/bytes/10")
            .pin(name, "127.0.0.1")
            .build()
        assertEquals(mapOf(name to "127.0.0.1"), job.pinnedAddresses)
        val samples = runJob(job).second.samples()
        samples.forEach { s ->
            assertNull(s.text("error_class"), s.text("error_detail"))
            assertEquals(200L, s.us("status"))
            assertNull(s.us("dns_start"), "a pinned host is not looked up: $s")
        }
        assertEquals(listOf(null, "http/1.1", "h2", "h2"), samples.map { it.text("alpn") }) // h1c negotiates no ALPN
        assertTrue(samples.drop(1).all { it.text("tls_version") != null }, "TLS with verification, to the name")
    }

    @Test
    fun `a pinned address that is not an IP literal is refused with its field`() {
        val error = assertThrows<InvalidJobException> {
            JobBuilder().arm("a", "h1c", "warm", "http://$name:1", ca = false).request("a", "/x")
                .pin(name, "1234").build()
        }
        assertTrue("$.pinned_addresses.$name" in error.message!!, error.message)
    }
}
