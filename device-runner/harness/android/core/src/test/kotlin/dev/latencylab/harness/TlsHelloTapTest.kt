package dev.latencylab.harness

import dev.latencylab.harness.net.HelloObservation
import dev.latencylab.harness.net.TlsHelloTap
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Test
import java.io.ByteArrayInputStream
import java.io.ByteArrayOutputStream

/** The ServerHello reader, on hand-built records (RFC 8446 §4.1.3 layout). */
class TlsHelloTapTest {
    private val sessionId = ByteArray(32) { it.toByte() }

    private fun ext(type: Int, data: ByteArray) = u16(type) + u16(data.size) + data
    private fun u16(v: Int) = byteArrayOf((v shr 8).toByte(), v.toByte())
    private fun handshake(type: Int, body: ByteArray) = byteArrayOf(type.toByte(), 0, (body.size shr 8).toByte(), body.size.toByte()) + body
    private fun record(type: Int, payload: ByteArray) = byteArrayOf(type.toByte(), 3, 3) + u16(payload.size) + payload

    private fun serverHello(random: ByteArray = ByteArray(32) { 7 }, sid: ByteArray = sessionId, vararg exts: ByteArray): ByteArray {
        val extensions = exts.fold(ByteArray(0)) { a, b -> a + b }
        val body = u16(0x0303) + random + byteArrayOf(sid.size.toByte()) + sid + u16(0x1301) + byteArrayOf(0) + u16(extensions.size) + extensions
        return handshake(2, body)
    }

    private fun clientHello(sid: ByteArray) =
        handshake(1, u16(0x0303) + ByteArray(32) + byteArrayOf(sid.size.toByte()) + sid + u16(2) + u16(0x1301) + byteArrayOf(1, 0) + u16(0))

    /** Feeds the client bytes then the server bytes in [chunk]-sized reads, as a socket would deliver them. */
    private fun observe(client: ByteArray, server: ByteArray, chunk: Int = 7): HelloObservation? {
        val tap = TlsHelloTap()
        tap.outbound(ByteArrayOutputStream()).apply { write(client, 0, client.size) }
        val input = tap.inbound(ByteArrayInputStream(server))
        val buf = ByteArray(chunk)
        while (input.read(buf, 0, chunk) > 0) Unit
        return tap.observation
    }

    private val tls13 = ext(43, u16(0x0304))
    private val psk = ext(41, u16(0))
    private val hrrRandom = "CF21AD74E59A6111BE1D8C021E65B891C2A211167ABB8C5E079E09E2C8A8339C".chunked(2).map { it.toInt(16).toByte() }.toByteArray()

    @Test
    fun `TLS 1_3 with an accepted pre-shared key is a resumption, without one it is not`() {
        val client = record(22, clientHello(sessionId))
        assertEquals(HelloObservation("TLSv1.3", true), observe(client, record(22, serverHello(exts = arrayOf(tls13, psk)))))
        assertEquals(HelloObservation("TLSv1.3", false), observe(client, record(22, serverHello(exts = arrayOf(tls13)))))
    }

    @Test
    fun `TLS 1_2 resumes when the server echoes the offered session id`() {
        val client = record(22, clientHello(sessionId))
        assertEquals(HelloObservation("TLSv1.2", true), observe(client, record(22, serverHello())))
        assertEquals(HelloObservation("TLSv1.2", false), observe(client, record(22, serverHello(sid = ByteArray(32) { 9 }))))
        assertEquals(HelloObservation("TLSv1.2", false), observe(record(22, clientHello(ByteArray(0))), record(22, serverHello(sid = ByteArray(0)))))
    }

    @Test
    fun `a HelloRetryRequest is skipped for the ServerHello after it, across a ChangeCipherSpec and split records`() {
        val hrr = record(22, serverHello(random = hrrRandom, exts = arrayOf(tls13)))
        val ccs = record(20, byteArrayOf(1))
        val hello = serverHello(exts = arrayOf(tls13, psk))
        // The real ServerHello split over two records.
        val split = record(22, hello.copyOfRange(0, 20)) + record(22, hello.copyOfRange(20, hello.size))
        assertEquals(HelloObservation("TLSv1.3", true), observe(record(22, clientHello(sessionId)), hrr + ccs + split, chunk = 3))
    }

    @Test
    fun `encrypted or non-TLS bytes give no observation`() {
        assertNull(observe(ByteArray(0), record(23, ByteArray(40))))
        assertNull(observe(ByteArray(0), "HTTP/1.1 400 Bad Request\r\n\r\n".toByteArray()))
    }
}
