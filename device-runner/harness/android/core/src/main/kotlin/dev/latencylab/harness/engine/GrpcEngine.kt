package dev.latencylab.harness.engine

import dev.latencylab.harness.job.Arm
import dev.latencylab.harness.job.ConnectionPolicy
import dev.latencylab.harness.job.PlannedRequest
import dev.latencylab.harness.measure.ErrorClass
import dev.latencylab.harness.measure.Failures
import dev.latencylab.harness.measure.Measurement
import dev.latencylab.harness.measure.Phase
import dev.latencylab.harness.measure.ServerTiming
import dev.latencylab.harness.measure.Timeline
import dev.latencylab.harness.net.ConnectionRegistry
import dev.latencylab.harness.net.ObservedSocketFactory
import dev.latencylab.harness.net.TimedSslSocketFactory
import dev.latencylab.harness.net.TrustMaterial
import io.grpc.CallOptions
import io.grpc.ClientCall
import io.grpc.ManagedChannel
import io.grpc.Metadata
import io.grpc.Status
import io.grpc.okhttp.OkHttpChannelBuilder
import java.net.InetAddress
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeoutException
import java.util.concurrent.atomic.AtomicLong
import java.util.concurrent.atomic.AtomicReference
import javax.net.ssl.SSLContext

/**
 * gRPC through grpc-java with the OkHttp transport (the one Android uses), timed by
 * [GrpcTimingTracer] and the connection's sockets.
 *
 * Policies as for [OkHttpEngine]: warm keeps one channel (one HTTP/2 connection) for the
 * block; cold opens a new channel with a new SSLContext per request; resumed opens a new
 * channel per request on the arm's SSLContext, whose session cache offers resumption.
 * A concurrency group is streams on the one channel (see [executeGroup]).
 * After a transport failure the channel is dropped: grpc would otherwise hold the next calls
 * in its reconnect backoff and report them as failures of their own.
 */
class GrpcEngine(
    private val arm: Arm,
    private val trust: TrustMaterial,
    private val settings: EngineSettings,
) : ProtocolEngine {
    private val registry = ConnectionRegistry()
    private val armSsl: SSLContext = trust.newSslContext()
    private var channel: ManagedChannel? = null

    override fun execute(request: PlannedRequest, body: ByteArray): Measurement {
        if (arm.connection != ConnectionPolicy.WARM) closeConnection()
        val call = TargetService.map(request, body)
        val m = Measurement(Timeline(settings.clock))
        if (call == null) return m.apply { fail(ErrorClass.OTHER, noMapping(request)) }
        val opened = registry.opened.get()
        registry.current = m.timeline
        try {
            val ch = channel ?: openChannel(m).also { channel = it }
            start(ch, call, request, m).await()
        } catch (e: Exception) {
            m.fail(Failures.classify(e))
        } finally {
            registry.current = null
        }
        afterCalls(listOf(m), m, opened)
        return m
    }

    /**
     * A group is streams on the one channel: the first call opens the connection if needed (its
     * sockets mark the connection phases on its timeline), the others start once its stream
     * exists. A request without a gRPC mapping is an error sample and is not sent.
     */
    override fun executeGroup(group: List<GroupRequest>, maxParallel: Int): List<Measurement> {
        if (arm.connection != ConnectionPolicy.WARM) closeConnection()
        val calls = group.map { TargetService.map(it.request, it.body) }
        val measurements = arrayOfNulls<Measurement>(group.size)
        val started = ArrayList<StartedCall>()
        val opener = calls.indexOfFirst { it != null }
        val opened = registry.opened.get()
        var openerMeasurement: Measurement? = null
        for ((i, item) in group.withIndex()) {
            val call = calls[i]
            val m = Measurement(Timeline(settings.clock)) // t0: this call is issued now
            measurements[i] = m
            if (call == null) {
                m.fail(ErrorClass.OTHER, noMapping(item.request))
                continue
            }
            try {
                if (i == opener) {
                    openerMeasurement = m
                    registry.current = m.timeline
                    val ch = channel ?: openChannel(m).also { channel = it }
                    started += start(ch, call, item.request, m).also { it.awaitStream() }
                    registry.current = null
                } else {
                    val ch = channel
                    if (ch == null) {
                        m.fail(openerMeasurement?.errorClass ?: ErrorClass.OTHER,
                            "not issued: the group's channel could not be opened: ${openerMeasurement?.errorDetail}")
                    } else {
                        started += start(ch, call, item.request, m)
                    }
                }
            } catch (e: Exception) {
                m.fail(Failures.classify(e))
            } finally {
                registry.current = null
            }
        }
        started.forEach { it.await() }
        val all = measurements.map { it!! }
        afterCalls(all, openerMeasurement, opened)
        return all
    }

    /** A failure other than the server's drops the channel (after describing the connection a failed opener made). */
    private fun afterCalls(measurements: List<Measurement>, opener: Measurement?, openedBefore: Long) {
        measurements.forEach { it.timeline.markFirst(Phase.APP_DONE) } // onClose marks it when the call closed; otherwise now
        val broken = measurements.filter { it.failed && it.errorClass != ErrorClass.HTTP }
        if (broken.isNotEmpty()) {
            if (opener != null && opener.failed) describeNewConnection(opener, openedBefore)
            closeConnection()
        }
        if (arm.connection != ConnectionPolicy.WARM) closeConnection()
    }

    private fun noMapping(request: PlannedRequest) = "no gRPC mapping for ${request.method} ${request.path.take(200)}"

    /** A started call; [await] waits for it to close and records what it returned. */
    private inner class StartedCall(
        private val call: TargetService.Call,
        private val m: Measurement,
        private val tracer: GrpcTimingTracer,
        private val clientCall: ClientCall<ByteArray, ByteArray>,
        private val closed: CompletableFuture<Pair<Status, Metadata>>,
        private val headers: AtomicReference<Metadata?>,
        private val received: AtomicLong,
    ) {
        /** Until the call has its stream on a connection (or closed without one): the group's other calls then multiplex on it. */
        fun awaitStream() {
            try {
                CompletableFuture.anyOf(tracer.streamCreated, closed).get(settings.timeoutMs + CLOSE_GRACE_MS, TimeUnit.MILLISECONDS)
            } catch (e: TimeoutException) {
                // await() reports it; the others then wait for the connection themselves.
            }
        }

        fun await() {
            val (status, trailers) = try {
                // The deadline inside grpc ends the call; the extra wait only guards against a hang.
                closed.get(settings.timeoutMs + CLOSE_GRACE_MS, TimeUnit.MILLISECONDS)
            } catch (e: TimeoutException) {
                clientCall.cancel("harness timeout", e)
                m.fail(ErrorClass.TIMEOUT, "gRPC call did not close within ${settings.timeoutMs} ms")
                return
            }
            m.reqBytes = call.requestBytes
            m.respBytes = received.get()
            m.serverTimeUs = ServerTiming.parseMicros(headers.get()?.get(SERVER_TIMING) ?: trailers.get(SERVER_TIMING))
            interpret(status, tracer.serverResponded, m)
        }
    }

    private fun start(ch: ManagedChannel, call: TargetService.Call, request: PlannedRequest, m: Measurement): StartedCall {
        val tracer = GrpcTimingTracer(m, registry)
        val options = CallOptions.DEFAULT
            .withDeadlineAfter(settings.timeoutMs.toLong(), TimeUnit.MILLISECONDS)
            .withStreamTracerFactory(tracer.factory)
        val received = AtomicLong()
        val closed = CompletableFuture<Pair<Status, Metadata>>()
        val headers = AtomicReference<Metadata?>()
        val clientCall = ch.newCall(call.method, options)
        clientCall.start(object : ClientCall.Listener<ByteArray>() {
            override fun onHeaders(h: Metadata) { headers.set(h) }
            override fun onMessage(message: ByteArray) { received.addAndGet(TargetService.dataLength(message).toLong()) }
            override fun onClose(status: Status, trailers: Metadata) {
                m.timeline.mark(Phase.APP_DONE) // here, not where the harness waits: a group's calls close in any order
                closed.complete(status to trailers)
            }
        }, metadataOf(request.headers))
        clientCall.request(Int.MAX_VALUE)
        clientCall.sendMessage(call.message)
        clientCall.halfClose()
        return StartedCall(call, m, tracer, clientCall, closed, headers, received)
    }

    private fun interpret(status: Status, serverResponded: Boolean, m: Measurement) {
        val description = status.description.orEmpty()
        val httpStatus = HTTP_STATUS.find(description)?.groupValues?.get(1)?.toInt()
        when {
            // grpc-okhttp hands a response's headers on only when :status was 200 (any other is an error below).
            status.isOk -> m.status = 200
            httpStatus != null -> {
                m.status = httpStatus
                m.fail(ErrorClass.HTTP, "HTTP $httpStatus for gRPC: $description")
            }
            status.code == Status.Code.DEADLINE_EXCEEDED -> m.fail(ErrorClass.TIMEOUT, "DEADLINE_EXCEEDED: $description")
            serverResponded -> {
                m.status = 200
                m.fail(ErrorClass.HTTP, "grpc-status ${status.code.value()} (${status.code}): $description")
            }
            status.cause != null -> m.fail(Failures.classify(status.cause!!))
            else -> m.fail(ErrorClass.OTHER, "${status.code}: $description")
        }
    }

    /**
     * A failed request that opened a connection reports what that connection was, and a
     * completed handshake without h2 is a protocol mismatch, whatever grpc made of it.
     */
    private fun describeNewConnection(m: Measurement, openedBefore: Long) {
        val info = registry.lastOpened ?: return
        if (registry.opened.get() == openedBefore || !m.timeline.has(Phase.CONN_START)) return
        if (m.connId == null) {
            m.connId = info.id
            m.connReused = false
            m.alpn = info.alpn
            m.tlsVersion = info.tlsVersion
            m.tlsResumed = info.tlsResumed
        }
        if (info.handshakeDone && info.alpn != "h2" && m.errorClass != ErrorClass.TIMEOUT) {
            m.overrideFailure(ErrorClass.PROTOCOL_MISMATCH,
                "negotiated ALPN ${info.alpn?.let { "'$it'" } ?: "none"}, arm '${arm.label}' wants grpc (h2); ${m.errorDetail}")
        }
    }

    private fun openChannel(m: Measurement): ManagedChannel {
        val origin = arm.origin
        val address = if (origin.hostIsIpLiteral) origin.host else {
            // grpc's own resolver reports no timings: resolve here, on this request's timeline.
            m.timeline.mark(Phase.DNS_START)
            val resolved = InetAddress.getAllByName(origin.host).first()
            m.timeline.mark(Phase.DNS_END)
            resolved.hostAddress
        }
        val ssl = if (arm.connection == ConnectionPolicy.COLD) trust.newSslContext() else armSsl
        return OkHttpChannelBuilder.forAddress(address, origin.port)
            .overrideAuthority(authority(arm.tlsName, origin.port))
            .socketFactory(ObservedSocketFactory(registry, settings.timeoutMs))
            .sslSocketFactory(TimedSslSocketFactory(ssl.socketFactory, registry))
            // grpc-okhttp's JVM default allows TLS 1.2 only; its Android default (what a phone runs)
            // is TLS 1.3 + 1.2 with these suites. Use the Android one everywhere: same TLS as the other arms.
            .tlsConnectionSpec(TLS_VERSIONS, CIPHER_SUITES)
            .disableRetry() // one attempt per planned request
            .maxInboundMessageSize(MAX_MESSAGE)
            // OkHttp's HTTP/2 window (the h2 arm's), not grpc-okhttp's 64 KiB default: every arm moves its
            // bytes under the same flow control, and a group's concurrent downloads against the reference
            // target stalled with 64 KiB windows (streams past the first few got headers and no data).
            .flowControlWindow(FLOW_CONTROL_WINDOW)
            .build()
    }

    override fun closeConnection() {
        val ch = channel ?: return
        channel = null
        ch.shutdownNow()
        ch.awaitTermination(SHUTDOWN_WAIT_MS, TimeUnit.MILLISECONDS)
    }

    override fun close() = closeConnection()

    companion object {
        private const val CLOSE_GRACE_MS = 5_000L
        private const val SHUTDOWN_WAIT_MS = 2_000L
        private const val MAX_MESSAGE = 8 * 1024 * 1024
        private const val FLOW_CONTROL_WINDOW = 16 * 1024 * 1024
        private val SERVER_TIMING: Metadata.Key<String> = Metadata.Key.of("server-timing", Metadata.ASCII_STRING_MARSHALLER)
        private val HTTP_STATUS = Regex("""HTTP status code (\d{3})""")
        private val TLS_VERSIONS = arrayOf("TLSv1.3", "TLSv1.2")

        /** grpc-okhttp's INTERNAL_DEFAULT_CONNECTION_SPEC (in sync with Netty's Http2SecurityUtil.CIPHERS). */
        private val CIPHER_SUITES = arrayOf(
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
            "TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
        )

        private fun authority(host: String, port: Int) = if (host.contains(':')) "[$host]:$port" else "$host:$port"

        private fun metadataOf(headers: Map<String, String>) = Metadata().apply {
            headers.forEach { (k, v) -> put(Metadata.Key.of(k.lowercase(), Metadata.ASCII_STRING_MARSHALLER), v) }
        }
    }
}
