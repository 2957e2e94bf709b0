package dev.latencylab.harness.net

import java.io.FilterInputStream
import java.io.FilterOutputStream
import java.io.InputStream
import java.io.OutputStream

/** What the cleartext start of a TLS handshake showed. */
data class HelloObservation(
    /** From the ServerHello: supported_versions if present, else legacy_version. */
    val tlsVersion: String?,
    /** TLS 1.3: the server accepted a pre-shared key; TLS 1.2: it echoed the session id the client offered. */
    val resumed: Boolean,
)

/**
 * Reads the unencrypted ClientHello and ServerHello as they pass through a raw TCP socket's
 * streams, to tell whether a TLS session was resumed: neither the JDK's nor OkHttp's API says
 * so. It only looks at bytes the TLS stack reads and writes anyway, adds no reads, and stops
 * after the ServerHello. Where a TLS stack bypasses the socket's streams (Conscrypt's
 * file-descriptor sockets on Android), it sees nothing and [observation] stays null: then
 * `tls_resumed` is reported as not observed (null).
 */
class TlsHelloTap {
    @Volatile var observation: HelloObservation? = null
        private set

    private val fromClient = HandshakeReader(CLIENT_HELLO)
    private val fromServer = HandshakeReader(SERVER_HELLO)
    private var offeredSessionId: ByteArray? = null

    fun inbound(stream: InputStream): InputStream = object : FilterInputStream(stream) {
        override fun read(): Int {
            val b = super.read()
            if (b >= 0) feedServer(byteArrayOf(b.toByte()), 0, 1)
            return b
        }

        override fun read(b: ByteArray, off: Int, len: Int): Int {
            val n = super.read(b, off, len)
            if (n > 0) feedServer(b, off, n)
            return n
        }
    }

    fun outbound(stream: OutputStream): OutputStream = object : FilterOutputStream(stream) {
        override fun write(b: Int) {
            feedClient(byteArrayOf(b.toByte()), 0, 1)
            out.write(b)
        }

        // FilterOutputStream would write byte by byte: pass whole buffers through.
        override fun write(b: ByteArray, off: Int, len: Int) {
            feedClient(b, off, len)
            out.write(b, off, len)
        }
    }

    private fun feedClient(b: ByteArray, off: Int, len: Int) {
        if (fromClient.done) return
        fromClient.append(b, off, len)
        val body = fromClient.next() ?: return
        offeredSessionId = parseClientSessionId(body)
    }

    private fun feedServer(b: ByteArray, off: Int, len: Int) {
        if (fromServer.done) return
        fromServer.append(b, off, len)
        while (true) {
            val body = fromServer.next() ?: return
            val hello = parseServerHello(body) ?: return
            if (hello.isRetryRequest) { // HelloRetryRequest: the real ServerHello follows
                fromServer.expectAnother()
                continue
            }
            val resumed = if (hello.version == TLS13) hello.pskAccepted
            else hello.sessionId.isNotEmpty() && hello.sessionId.contentEquals(offeredSessionId)
            observation = HelloObservation(versionName(hello.version), resumed)
            return
        }
    }

    private class ServerHello(val version: Int, val sessionId: ByteArray, val pskAccepted: Boolean, val isRetryRequest: Boolean)

    private fun parseClientSessionId(body: ByteArray): ByteArray? {
        if (body.size < 35) return null
        val sidLen = body[34].toInt() and 0xff
        if (body.size < 35 + sidLen) return null
        return body.copyOfRange(35, 35 + sidLen)
    }

    private fun parseServerHello(body: ByteArray): ServerHello? {
        var pos = 0
        fun need(n: Int) = pos + n <= body.size
        if (!need(35)) return null
        val legacyVersion = u16(body, 0)
        val isRetry = body.copyOfRange(2, 34).contentEquals(HELLO_RETRY_REQUEST_RANDOM)
        pos = 34
        val sidLen = body[pos].toInt() and 0xff
        pos += 1
        if (!need(sidLen + 3)) return null
        val sessionId = body.copyOfRange(pos, pos + sidLen)
        pos += sidLen + 3 // session id, cipher suite, compression method
        var version = legacyVersion
        var psk = false
        if (need(2)) {
            val end = minOf(body.size, pos + 2 + u16(body, pos))
            pos += 2
            while (pos + 4 <= end) {
                val type = u16(body, pos)
                val len = u16(body, pos + 2)
                pos += 4
                if (pos + len > end) break
                if (type == EXT_SUPPORTED_VERSIONS && len == 2) version = u16(body, pos)
                if (type == EXT_PRE_SHARED_KEY) psk = true
                pos += len
            }
        }
        return ServerHello(version, sessionId, psk, isRetry)
    }

    /**
     * Reassembles handshake messages from TLS records (a message may span records, a read
     * may hold part of a record) until it finds one of [wantedType]; gives up at the first
     * non-handshake record or after [LIMIT] bytes.
     */
    private class HandshakeReader(private val wantedType: Int) {
        var done = false
            private set
        private val records = java.io.ByteArrayOutputStream()
        private var recordPos = 0
        private val handshake = java.io.ByteArrayOutputStream()
        private var handshakePos = 0

        fun append(b: ByteArray, off: Int, len: Int) {
            if (done) return
            records.write(b, off, len)
            if (records.size() > LIMIT) done = true
        }

        /** After a HelloRetryRequest: keep reading for the next message of the same type. */
        fun expectAnother() { done = false }

        /** The next complete message of the wanted type from what was appended, or null for now. */
        fun next(): ByteArray? {
            if (done) return null
            val raw = records.toByteArray()
            while (recordPos + 5 <= raw.size) {
                val type = raw[recordPos].toInt() and 0xff
                val len = u16(raw, recordPos + 3)
                if (type != RECORD_HANDSHAKE && type != RECORD_CHANGE_CIPHER_SPEC) { done = true; return null }
                if (recordPos + 5 + len > raw.size) break
                // TLS 1.3 middlebox compatibility sends a dummy ChangeCipherSpec (e.g. after a HelloRetryRequest).
                if (type == RECORD_HANDSHAKE) handshake.write(raw, recordPos + 5, len)
                recordPos += 5 + len
            }
            val hs = handshake.toByteArray()
            while (handshakePos + 4 <= hs.size) {
                val type = hs[handshakePos].toInt() and 0xff
                val len = ((hs[handshakePos + 1].toInt() and 0xff) shl 16) or u16(hs, handshakePos + 2)
                if (handshakePos + 4 + len > hs.size) return null
                val body = hs.copyOfRange(handshakePos + 4, handshakePos + 4 + len)
                handshakePos += 4 + len
                if (type == wantedType) { done = true; return body }
            }
            return null
        }
    }

    companion object {
        private const val RECORD_CHANGE_CIPHER_SPEC = 20
        private const val RECORD_HANDSHAKE = 22
        private const val CLIENT_HELLO = 1
        private const val SERVER_HELLO = 2
        private const val EXT_PRE_SHARED_KEY = 41
        private const val EXT_SUPPORTED_VERSIONS = 43
        private const val TLS13 = 0x0304
        private const val LIMIT = 64 * 1024

        /** RFC 8446 §4.1.3: a ServerHello with this random is a HelloRetryRequest. */
        private val HELLO_RETRY_REQUEST_RANDOM = "CF21AD74E59A6111BE1D8C021E65B891C2A211167ABB8C5E079E09E2C8A8339C"
            .chunked(2).map { it.toInt(16).toByte() }.toByteArray()

        private fun u16(b: ByteArray, at: Int): Int = ((b[at].toInt() and 0xff) shl 8) or (b[at + 1].toInt() and 0xff)

        fun versionName(code: Int): String? = when (code) {
            0x0304 -> "TLSv1.3"
            0x0303 -> "TLSv1.2"
            0x0302 -> "TLSv1.1"
            0x0301 -> "TLSv1"
            else -> null
        }
    }
}
