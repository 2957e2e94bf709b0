package dev.latencylab.harness.engine

import dev.latencylab.harness.job.PlannedRequest
import io.grpc.MethodDescriptor
import java.io.ByteArrayInputStream
import java.io.ByteArrayOutputStream
import java.io.InputStream

/**
 * The reference target's gRPC service `latencylab.target.v1.Target`
 * (device-runner/tools/latencylab_tools/target/target.proto), hand-encoded like the target's own
 * latencylab_tools/grpcwire.py: four one- or two-field proto3 messages, no protoc needed.
 *
 *     EchoRequest     { bytes payload = 1; uint32 delay_ms = 2; }
 *     DownloadRequest { uint64 size = 1;  string name = 2; }
 *     EchoReply { bytes payload = 1; }   DownloadChunk { bytes data = 1; }
 */
object TargetService {
    const val SERVICE = "latencylab.target.v1.Target"

    val ECHO: MethodDescriptor<ByteArray, ByteArray> = method("Echo", MethodDescriptor.MethodType.UNARY)
    val DOWNLOAD: MethodDescriptor<ByteArray, ByteArray> = method("Download", MethodDescriptor.MethodType.SERVER_STREAMING)

    /** A call of the service: the method, its encoded request message and the application bytes it sends. */
    class Call(val method: MethodDescriptor<ByteArray, ByteArray>, val message: ByteArray, val requestBytes: Long)

    /**
     * The contract's gRPC mapping (every arm moves the same application bytes):
     * POST /echo → Echo(payload=body), GET /delay/{ms} → Echo(delay_ms=ms), GET /healthz → Echo(),
     * GET /bytes/{n} → Download(size=n), GET /files/{name} → Download(name=name),
     * /latencylab.target.v1.Target/<Method> → that method with the body as its message.
     * Null when the path has no mapping.
     */
    fun map(request: PlannedRequest, body: ByteArray): Call? {
        val path = request.path.substringBefore('?')
        return when {
            path == "/$SERVICE/Echo" -> Call(ECHO, body, body.size.toLong())
            path == "/$SERVICE/Download" -> Call(DOWNLOAD, body, body.size.toLong())
            path == "/echo" -> Call(ECHO, echoRequest(body, 0), body.size.toLong())
            path.startsWith("/delay/") && isDecimal(path.substring(7)) -> Call(ECHO, echoRequest(ByteArray(0), path.substring(7).toLong()), 0)
            path == "/healthz" -> Call(ECHO, echoRequest(ByteArray(0), 0), 0)
            path.startsWith("/bytes/") && isDecimal(path.substring(7)) -> Call(DOWNLOAD, downloadRequest(path.substring(7).toLong(), ""), 0)
            path.startsWith("/files/") && path.length > 7 -> Call(DOWNLOAD, downloadRequest(0, path.substring(7)), 0)
            else -> null
        }
    }

    fun echoRequest(payload: ByteArray, delayMs: Long): ByteArray = ByteArrayOutputStream().apply {
        bytesField(1, payload)
        varintField(2, delayMs)
    }.toByteArray()

    fun downloadRequest(size: Long, name: String): ByteArray = ByteArrayOutputStream().apply {
        varintField(1, size)
        bytesField(2, name.toByteArray(Charsets.UTF_8))
    }.toByteArray()

    /** The length of field 1 (`payload` / `data`) of an EchoReply/DownloadChunk: the application bytes received. */
    fun dataLength(message: ByteArray): Int {
        var pos = 0
        var length = 0
        while (pos < message.size) {
            val (key, afterKey) = readVarint(message, pos)
            pos = afterKey
            when ((key and 7L).toInt()) {
                0 -> pos = readVarint(message, pos).second
                1 -> pos += 8
                2 -> {
                    val (len, afterLen) = readVarint(message, pos)
                    if (len < 0 || afterLen + len > message.size) throw IllegalArgumentException("truncated length-delimited field")
                    if (key shr 3 == 1L) length = len.toInt() // proto3: the last occurrence wins
                    pos = afterLen + len.toInt()
                }
                5 -> pos += 4
                else -> throw IllegalArgumentException("unsupported wire type ${key and 7L}")
            }
        }
        if (pos != message.size) throw IllegalArgumentException("truncated message")
        return length
    }

    private fun isDecimal(s: String) = s.isNotEmpty() && s.length <= 12 && s.all { it in '0'..'9' }

    // proto3 omits fields at their default value (0, empty).
    private fun ByteArrayOutputStream.varintField(number: Int, value: Long) {
        if (value == 0L) return
        writeVarint((number shl 3).toLong())
        writeVarint(value)
    }

    private fun ByteArrayOutputStream.bytesField(number: Int, value: ByteArray) {
        if (value.isEmpty()) return
        writeVarint((number shl 3 or 2).toLong())
        writeVarint(value.size.toLong())
        write(value)
    }

    private fun ByteArrayOutputStream.writeVarint(value: Long) {
        var v = value
        while (true) {
            if (v and 0x7FL.inv() == 0L) { write(v.toInt()); return }
            write(((v and 0x7F) or 0x80).toInt())
            v = v ushr 7
        }
    }

    private fun readVarint(buf: ByteArray, start: Int): Pair<Long, Int> {
        var result = 0L
        var shift = 0
        var pos = start
        while (true) {
            if (pos >= buf.size) throw IllegalArgumentException("truncated varint")
            val b = buf[pos++].toInt() and 0xff
            result = result or ((b and 0x7f).toLong() shl shift)
            if (b and 0x80 == 0) return result to pos
            shift += 7
            if (shift > 63) throw IllegalArgumentException("varint too long")
        }
    }

    private fun method(name: String, type: MethodDescriptor.MethodType) =
        MethodDescriptor.newBuilder(RawBytes, RawBytes)
            .setType(type)
            .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
            .build()

    /** Messages travel as their encoded bytes: this harness encodes and decodes them itself. */
    private object RawBytes : MethodDescriptor.Marshaller<ByteArray> {
        override fun stream(value: ByteArray): InputStream = ByteArrayInputStream(value)
        override fun parse(stream: InputStream): ByteArray = stream.use { input ->
            val out = ByteArrayOutputStream()
            val buf = ByteArray(16 * 1024)
            while (true) {
                val n = input.read(buf)
                if (n < 0) break
                out.write(buf, 0, n)
            }
            out.toByteArray()
        }
    }
}
