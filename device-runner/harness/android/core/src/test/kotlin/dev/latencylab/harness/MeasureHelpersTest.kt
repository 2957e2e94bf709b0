package dev.latencylab.harness

import dev.latencylab.harness.engine.TargetService
import dev.latencylab.harness.job.PlannedRequest
import dev.latencylab.harness.measure.RequestBodies
import dev.latencylab.harness.measure.ServerTiming
import org.junit.jupiter.api.Assertions.assertArrayEquals
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows

class MeasureHelpersTest {
    @Test
    fun `request bodies carry the client timestamp and are padded to exactly their size`() {
        val body = RequestBodies.generate(800, epochMicros = 1763725201234567).toString(Charsets.US_ASCII)
        assertEquals(800, body.length)
        assertEquals("{\"client_ts_us\":1763725201234567,\"pad\":\"", body.substring(0, 40))
        assertEquals("x".repeat(800 - 42), body.substring(40, 798))
        assertEquals("\"}", body.takeLast(2))
        // Too small for the envelope: its first bytes, as the host harness does.
        assertEquals("{\"client_t", RequestBodies.generate(10, epochMicros = 1).toString(Charsets.US_ASCII))
        assertEquals(0, RequestBodies.generate(0).size)
    }

    @Test
    fun `server timing is read in microseconds from the first metric with a duration`() {
        assertEquals(1234L, ServerTiming.parseMicros("app;dur=1.234"))
        assertEquals(20214L, ServerTiming.parseMicros("cache;desc=hit, app;dur=\"20.214\""))
        assertNull(ServerTiming.parseMicros(null))
        assertNull(ServerTiming.parseMicros("app"))
        assertNull(ServerTiming.parseMicros("app;dur=soon"))
    }

    // Expected bytes from latencylab_tools/grpcwire.py (encode_echo_request etc.).
    @Test
    fun `gRPC messages are encoded byte for byte like the target's own codec`() {
        assertArrayEquals(hex("0a0268691019"), TargetService.echoRequest("hi".toByteArray(), 25))
        assertArrayEquals(hex("10ac02"), TargetService.echoRequest(ByteArray(0), 300))
        assertArrayEquals(hex("08f0a204"), TargetService.downloadRequest(70000, ""))
        assertArrayEquals(hex("12066d69642d3031"), TargetService.downloadRequest(0, "mid-01"))
        assertEquals(200, TargetService.dataLength(hex("0ac801") + ByteArray(200) { 'x'.code.toByte() }))
        assertEquals(0, TargetService.dataLength(ByteArray(0)))
        assertThrows<IllegalArgumentException> { TargetService.dataLength(hex("0ac801") + ByteArray(10)) }
    }

    @Test
    fun `workload routes map to the target's gRPC calls as the contract says`() {
        fun req(method: String, path: String) = PlannedRequest(0, "g", "measure", "get", method, path, emptyMap(), 0, false, null, null, null, null, null)
        val echo = TargetService.map(req("POST", "/echo"), "abc".toByteArray())!!
        assertSame(TargetService.ECHO, echo.method)
        assertEquals(3L, echo.requestBytes)
        assertArrayEquals(hex("0a03616263"), echo.message)
        assertArrayEquals(hex("1019"), TargetService.map(req("GET", "/delay/25"), ByteArray(0))!!.message)
        assertSame(TargetService.DOWNLOAD, TargetService.map(req("GET", "/bytes/70000?x=1"), ByteArray(0))!!.method)
        assertArrayEquals(hex("12066d69642d3031"), TargetService.map(req("GET", "/files/mid-01"), ByteArray(0))!!.message)
        assertArrayEquals(ByteArray(0), TargetService.map(req("GET", "/healthz"), ByteArray(0))!!.message)
        assertNull(TargetService.map(req("GET", "/delay/soon"), ByteArray(0)))
        assertNull(TargetService.map(req("GET", "/nowhere"), ByteArray(0)))
    }

    private fun hex(s: String) = s.chunked(2).map { it.toInt(16).toByte() }.toByteArray()
}
