package dev.latencylab.harness.measure

/**
 * The generated request body of `body_bytes` bytes: `{"client_ts_us":<epoch µs>,"pad":"xxx…"}`
 * padded to exactly that size, the same bytes as the host driver's
 * (`request_body` in device-runner/runner/latencylab_runner/drivers/probe_harness.py). A size too small for the
 * whole envelope is the envelope's first bytes, as there.
 */
object RequestBodies {
    fun generate(size: Int, epochMicros: Long = epochMicros()): ByteArray {
        require(size >= 0) { "body size must be >= 0, got $size" }
        val stamp = "{\"client_ts_us\":$epochMicros,\"pad\":\"".toByteArray(Charsets.US_ASCII)
        if (size <= stamp.size + 2) return stamp.copyOf(size)
        val body = ByteArray(size) { 'x'.code.toByte() }
        stamp.copyInto(body)
        body[size - 2] = '"'.code.toByte()
        body[size - 1] = '}'.code.toByte()
        return body
    }
}
