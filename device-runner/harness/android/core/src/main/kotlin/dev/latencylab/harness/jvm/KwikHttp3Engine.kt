package dev.latencylab.harness.jvm

import dev.latencylab.harness.engine.EngineSettings
import dev.latencylab.harness.engine.FailingEngine
import dev.latencylab.harness.engine.GroupRequest
import dev.latencylab.harness.engine.Http3EngineProvider
import dev.latencylab.harness.engine.ProtocolEngine
import dev.latencylab.harness.job.Arm
import dev.latencylab.harness.job.ConnectionPolicy
import dev.latencylab.harness.job.Origin
import dev.latencylab.harness.job.PlannedRequest
import dev.latencylab.harness.measure.ErrorClass
import dev.latencylab.harness.measure.Failures
import dev.latencylab.harness.measure.Measurement
import dev.latencylab.harness.measure.Phase
import dev.latencylab.harness.measure.ServerTiming
import dev.latencylab.harness.measure.Timeline
import dev.latencylab.harness.net.ConnectionInfo
import dev.latencylab.harness.net.TrustMaterial
import tech.kwik.core.KwikVersion
import tech.kwik.core.QuicClientConnection
import tech.kwik.core.QuicSessionTicket
import tech.kwik.flupke.FlupkeVersion
import tech.kwik.flupke.Http3ClientConnection
import tech.kwik.flupke.impl.Http3ClientConnectionImpl
import java.net.DatagramPacket
import java.net.DatagramSocket
import java.net.InetAddress
import java.net.URI
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.nio.ByteBuffer
import java.security.cert.X509Certificate
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionStage
import java.util.concurrent.ExecutionException
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors
import java.util.concurrent.Flow
import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeoutException
import java.util.concurrent.atomic.AtomicLong
import javax.net.ssl.X509TrustManager

/**
 * JVM STAND-IN for Cronet: HTTP/3 through kwik (QUIC) + flupke (HTTP/3), both pure Java from
 * Maven Central. It lets the core's h3 path run against the reference target here; on a phone
 * the Android shell's Cronet engine takes its place. Its `client_stacks` entry says so.
 */
object KwikHttp3Provider : Http3EngineProvider {
    override val clientStack: String =
        "flupke ${flupkeVersion()} + kwik ${KwikVersion.getVersion()} (JVM stand-in for Cronet)"

    /** FlupkeVersion looks for its version.properties beside itself, but the jar ships it in impl/. */
    private fun flupkeVersion(): String =
        Http3ClientConnectionImpl::class.java.getResourceAsStream("version.properties")
            ?.bufferedReader()?.use { it.readLine()?.trim() }?.takeIf { it.isNotEmpty() }
            ?: FlupkeVersion.getVersion()

    override fun create(arm: Arm, trust: TrustMaterial, settings: EngineSettings): ProtocolEngine =
        if (Origin.isIpLiteral(arm.tlsName)) {
            FailingEngine(
                ErrorClass.TLS,
                "arm '${arm.label}': the JVM HTTP/3 stand-in (kwik) verifies certificates by DNS name only, " +
                    "not IP address ${arm.tlsName}; give the arm a server_name (Cronet on a device has no such limit)",
                settings.clock,
            )
        } else {
            KwikHttp3Engine(arm, trust, settings)
        }
}

/**
 * kwik checks every chain with authType "RSA", which makes the JDK's trust manager demand
 * RSA key-encipherment usage and reject ECDSA certificates. TLS 1.3 (the only TLS in QUIC)
 * has no key-exchange-specific checks, which the JDK expresses as "UNKNOWN": full chain
 * validation, without the TLS 1.2 RSA rule.
 */
private class Tls13TrustManager(private val delegate: X509TrustManager) : X509TrustManager {
    override fun checkClientTrusted(chain: Array<X509Certificate>, authType: String) = delegate.checkClientTrusted(chain, authType)
    override fun checkServerTrusted(chain: Array<X509Certificate>, authType: String) = delegate.checkServerTrusted(chain, "UNKNOWN")
    override fun getAcceptedIssuers(): Array<X509Certificate> = delegate.acceptedIssuers
}

/**
 * Phases: conn_start = tls_start (QUIC does both at once, as the contract says) before the
 * handshake, conn_ready when it finished; req_start before the HEADERS frame is written,
 * req_end when the request body publisher completed (flupke then closes the stream);
 * resp_first_byte = resp_headers_end when flupke hands over the parsed HEADERS frame
 * (no earlier event exists); resp_end when the body subscriber completes.
 * Policies: warm keeps the QUIC connection; cold opens a new one per request with no session
 * ticket; resumed opens a new one per request offering the last ticket the server sent.
 */
class KwikHttp3Engine(
    private val arm: Arm,
    private val trust: TrustMaterial,
    private val settings: EngineSettings,
) : ProtocolEngine {
    private val executor: ExecutorService = Executors.newCachedThreadPool { r -> Thread(r, "h3-${arm.label}").apply { isDaemon = true } }
    private var quic: QuicClientConnection? = null
    private var h3: Http3ClientConnection? = null
    private var connId: String? = null
    private var resumed: Boolean? = null
    private var ticket: QuicSessionTicket? = null

    override fun execute(request: PlannedRequest, body: ByteArray): Measurement =
        executeGroup(listOf(GroupRequest(request, body)), 1).single()

    /**
     * The first request opens the QUIC connection if there is none (on its timeline); then every
     * request is issued as a stream on it, each with its own t0, and the harness waits for each
     * within its own timeout from when it was issued.
     */
    override fun executeGroup(group: List<GroupRequest>, maxParallel: Int): List<Measurement> {
        if (arm.connection != ConnectionPolicy.WARM) closeConnection()
        val issued = ArrayList<Issued>(group.size)
        var connection: Http3ClientConnection? = null
        for ((i, item) in group.withIndex()) {
            val m = Measurement(Timeline(settings.clock))
            val tl = m.timeline
            val started = tl.now()
            val opener = issued.firstOrNull()?.m
            if (i > 0 && connection == null) {
                m.fail(opener?.errorClass ?: ErrorClass.OTHER, "not issued: the group's connection failed: ${opener?.errorDetail}")
                issued += Issued(item, m, started, null)
                continue
            }
            try {
                val h3connection = connection ?: h3 ?: connect(m)
                connection = h3connection
                m.connId = connId
                m.connReused = !tl.has(Phase.CONN_START)
                m.alpn = "h3" // kwik offers only h3; a QUIC handshake without an agreed ALPN fails
                m.tlsVersion = "TLSv1.3" // QUIC always runs TLS 1.3 (RFC 9001)
                m.tlsResumed = resumed
                m.earlyData = false // no 0-RTT attempted
                val httpRequest = buildRequest(item.request, item.body, tl)
                val response = CompletableFuture<HttpResponse<Long>>()
                // Marked where the response completes, not where the harness waits: a group's streams end in any order.
                response.whenComplete { _, _ -> tl.markFirst(Phase.APP_DONE) }
                tl.mark(Phase.REQ_START)
                // flupke reads the response headers on the calling thread: run it aside to enforce the timeout.
                executor.execute { h3connection.sendAsync(httpRequest, CountingBody(tl), response) }
                issued += Issued(item, m, started, response)
            } catch (e: Exception) {
                m.fail(Failures.classify(e))
                issued += Issued(item, m, started, null)
            }
        }
        issued.forEach { it.await() }
        rememberTicket()
        if (issued.any { it.m.failed && it.m.errorClass != ErrorClass.HTTP }) closeConnection()
        if (arm.connection != ConnectionPolicy.WARM) closeConnection()
        return issued.map { it.m }
    }

    /** One issued stream of a group (no [response] when it was never sent). */
    private inner class Issued(
        private val item: GroupRequest,
        val m: Measurement,
        private val startedNanos: Long,
        private val response: CompletableFuture<HttpResponse<Long>>?,
    ) {
        fun await() {
            val tl = m.timeline
            if (response != null) {
                try {
                    val remainingMs = settings.timeoutMs - TimeUnit.NANOSECONDS.toMillis(tl.now() - startedNanos)
                    val done = response.get(maxOf(1L, remainingMs), TimeUnit.MILLISECONDS)
                    m.reqBytes = item.body.size.toLong()
                    m.status = done.statusCode()
                    m.respBytes = done.body()
                    m.serverTimeUs = ServerTiming.parseMicros(done.headers().firstValue("server-timing").orElse(null))
                } catch (e: TimeoutException) {
                    m.fail(ErrorClass.TIMEOUT, "no HTTP/3 response within ${settings.timeoutMs} ms")
                } catch (e: ExecutionException) {
                    m.fail(Failures.classify(e.cause ?: e))
                } catch (e: Exception) {
                    m.fail(Failures.classify(e))
                }
            }
            tl.markFirst(Phase.APP_DONE)
            m.failOnHttpStatus(item.request.expectStatus)
        }
    }

    private fun connect(m: Measurement): Http3ClientConnection {
        val tl = m.timeline
        val origin = arm.origin
        val address = if (origin.hostIsIpLiteral) origin.host else {
            tl.mark(Phase.DNS_START)
            val resolved = InetAddress.getAllByName(origin.host).first().hostAddress
            tl.mark(Phase.DNS_END)
            resolved
        }
        val offered = if (arm.connection == ConnectionPolicy.RESUMED) ticket else null
        val builder = QuicClientConnection.newBuilder()
            .host(arm.tlsName) // SNI and certificate name
            .port(origin.port)
            .proxy(address) // the address the datagrams go to
            .applicationProtocol("h3")
            .connectTimeout(Duration.ofMillis(settings.timeoutMs.toLong()))
            .customTrustManager(Tls13TrustManager(trust.trustManager))
            // RFC 9114 §6.2: let the server open its control and QPACK streams.
            .maxOpenPeerInitiatedUnidirectionalStreams(3)
            .maxOpenPeerInitiatedBidirectionalStreams(0)
            .socketFactory { HandshakeGateSocket(Thread.currentThread()) }
        if (offered != null) builder.sessionTicket(offered)
        val connection = builder.build()
        quic = connection
        tl.mark(Phase.CONN_START)
        tl.mark(Phase.TLS_START)
        val http3 = Http3ClientConnectionImpl(connection, executor)
        http3.connect()
        tl.mark(Phase.CONN_READY)
        h3 = http3
        connId = ConnectionInfo.newId()
        // A server that accepts a pre-shared key sends no Certificate message: no chain means resumed.
        resumed = offered != null && connection.serverCertificateChain.isNullOrEmpty()
        return http3
    }

    private fun rememberTicket() {
        val latest = quic?.newSessionTickets?.lastOrNull()
        if (latest != null) ticket = latest
    }

    private fun buildRequest(request: PlannedRequest, body: ByteArray, tl: Timeline): HttpRequest {
        val uri = URI("https://${urlHost(arm.tlsName)}:${arm.origin.port}${request.path}")
        val builder = HttpRequest.newBuilder(uri).method(request.method, MarkingPublisher(body, tl))
        request.headers.forEach { (k, v) -> builder.header(k, v) }
        return builder.build()
    }

    override fun closeConnection() {
        rememberTicket()
        quic?.close()
        quic = null
        h3 = null
        connId = null
        resumed = null
    }

    override fun close() {
        closeConnection()
        executor.shutdownNow()
    }

    /** The request body; its completion (everything handed to the QUIC stream) is req_end. */
    private class MarkingPublisher(private val body: ByteArray, private val tl: Timeline) : HttpRequest.BodyPublisher {
        private val inner = HttpRequest.BodyPublishers.ofByteArray(body)
        override fun contentLength(): Long = body.size.toLong()
        override fun subscribe(subscriber: Flow.Subscriber<in ByteBuffer>) {
            inner.subscribe(object : Flow.Subscriber<ByteBuffer> {
                override fun onSubscribe(subscription: Flow.Subscription) = subscriber.onSubscribe(subscription)
                override fun onNext(item: ByteBuffer) = subscriber.onNext(item)
                override fun onError(throwable: Throwable) = subscriber.onError(throwable)
                override fun onComplete() {
                    tl.mark(Phase.REQ_END)
                    subscriber.onComplete()
                }
            })
        }
    }

    /** Counts the response body bytes; the parsed headers and the body's end are marked on the timeline. */
    private class CountingBody(private val tl: Timeline) : HttpResponse.BodyHandler<Long> {
        override fun apply(info: HttpResponse.ResponseInfo): HttpResponse.BodySubscriber<Long> {
            tl.markFirst(Phase.RESP_FIRST_BYTE)
            tl.mark(Phase.RESP_HEADERS_END)
            return object : HttpResponse.BodySubscriber<Long> {
                private val count = AtomicLong()
                private val result = CompletableFuture<Long>()
                override fun getBody(): CompletionStage<Long> = result
                override fun onSubscribe(subscription: Flow.Subscription) = subscription.request(Long.MAX_VALUE)
                override fun onNext(item: List<ByteBuffer>) { item.forEach { count.addAndGet(it.remaining().toLong()) } }
                override fun onError(throwable: Throwable) { result.completeExceptionally(throwable) }
                override fun onComplete() {
                    tl.mark(Phase.RESP_END)
                    result.complete(count.get())
                }
            }
        }
    }

    companion object {
        private fun urlHost(host: String) = if (host.contains(':')) "[$host]" else host
    }
}

/**
 * Works around a race in kwik's TLS engine (agent15 3.1, `TlsClientEngineImpl.startHandshake`):
 * it hands the ClientHello to the sender and only then records that it waits for the
 * ServerHello, so a ServerHello processed in between is silently ignored and the handshake
 * hangs until the connect timeout. On a loaded machine that happened to ~1 % of full and ~4 %
 * of resumed handshakes against the reference target. This socket holds the first received
 * datagram until the connecting thread has reached kwik's wait for the handshake (the only
 * TIMED_WAITING point in `connect()`), which is after that bookkeeping. When the ServerHello
 * is not early, the check passes at once; it only ever delays a datagram that kwik would
 * otherwise have lost. (kwik 0.10.9 needs agent15 3.2, which Maven Central does not have.)
 */
private class HandshakeGateSocket(private val connecting: Thread) : DatagramSocket() {
    @Volatile private var open = false

    override fun receive(p: DatagramPacket) {
        super.receive(p)
        if (open) return
        val deadline = System.nanoTime() + GATE_LIMIT_NS
        while (connecting.state != Thread.State.TIMED_WAITING && connecting.isAlive && System.nanoTime() < deadline) {
            Thread.onSpinWait()
        }
        open = true
    }

    companion object {
        private const val GATE_LIMIT_NS = 1_000_000_000L
    }
}
