package dev.latencylab.harness.engine

import dev.latencylab.harness.job.Arm
import dev.latencylab.harness.job.ConnectionPolicy
import dev.latencylab.harness.job.Origin
import dev.latencylab.harness.job.PlannedRequest
import dev.latencylab.harness.job.Protocol
import dev.latencylab.harness.measure.ErrorClass
import dev.latencylab.harness.measure.Failures
import dev.latencylab.harness.measure.Measurement
import dev.latencylab.harness.measure.Phase
import dev.latencylab.harness.measure.ProtocolMismatchException
import dev.latencylab.harness.measure.Timeline
import dev.latencylab.harness.net.ConnectionRegistry
import dev.latencylab.harness.net.ObservedSocketFactory
import dev.latencylab.harness.net.TrustMaterial
import okhttp3.Call
import okhttp3.Callback
import okhttp3.ConnectionPool
import okhttp3.Dispatcher
import okhttp3.Dns
import okhttp3.Headers.Companion.toHeaders
import okhttp3.HttpUrl.Companion.toHttpUrl
import okhttp3.Interceptor
import okhttp3.OkHttpClient
import okhttp3.Request
import okhttp3.RequestBody.Companion.toRequestBody
import okio.blackholeSink
import java.io.IOException
import java.net.InetAddress
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import javax.net.ssl.SSLContext

/**
 * h1c, h1 and h2 through OkHttp 5, timed by [PhaseListener].
 *
 * Connection policies:
 * - warm: one client (one connection pool, one TLS session cache) per arm for the block;
 * - cold: per request a new pool and a new SSLContext, so nothing is reused (the JVM's own
 *   name cache is off in the CLI; on Android the OS resolver's cache is out of the app's reach);
 * - resumed: per request a new pool (a new TCP+TLS connection) sharing the arm's SSLContext,
 *   whose client session cache offers the previous session for resumption.
 *
 * Concurrency groups go through the engine's own [Dispatcher], as an app's enqueued calls do:
 * h1/h1c with `maxRequestsPerHost` = max_parallel (one call per connection, a queued call takes
 * the connection the previous one released; cold and resumed still take a new one per request);
 * h2 with the whole group running, multiplexed on one connection: the first call opens it (or
 * takes the pooled one) and the others are enqueued once it has it, since OkHttp would otherwise
 * race a connection per call and keep one (a cold or resumed h2 group shares one new connection).
 */
class OkHttpEngine(
    private val arm: Arm,
    private val trust: TrustMaterial,
    private val settings: EngineSettings,
) : ProtocolEngine {
    private val registry = ConnectionRegistry()
    private val dispatcher = Dispatcher() // the arm's own: its limits are set per group
    private val armSsl: SSLContext? = if (arm.origin.isTls) trust.newSslContext() else null
    private val base: OkHttpClient = baseClient()
    private var warm: OkHttpClient? = null

    private val expected: okhttp3.Protocol = if (arm.protocol == Protocol.H2) okhttp3.Protocol.HTTP_2 else okhttp3.Protocol.HTTP_1_1

    override fun execute(request: PlannedRequest, body: ByteArray): Measurement {
        val client = clientForRequest() // built before t0: setting up the client is not part of the request
        val m = Measurement(Timeline(settings.clock))
        try {
            val call = client.newCall(buildRequest(request, body, m, null))
            call.execute().use { response ->
                response.body.source().readAll(blackholeSink()) // resp_bytes come from responseBodyEnd
            }
        } catch (e: Exception) {
            m.fail(Failures.classify(e))
        }
        if (m.errorClass == ErrorClass.PROTOCOL_MISMATCH || arm.connection != ConnectionPolicy.WARM) {
            client.connectionPool.evictAll() // a mismatched connection is never reused; cold/resumed keep none
        }
        finish(m, request, body)
        return m
    }

    override fun executeGroup(group: List<GroupRequest>, maxParallel: Int): List<Measurement> {
        val multiplexed = arm.protocol == Protocol.H2
        val limit = if (multiplexed) group.size else maxParallel
        dispatcher.maxRequests = limit
        dispatcher.maxRequestsPerHost = limit
        // h2 (and warm h1) share one client; cold and resumed h1 take a new pool per request, as in execute().
        val shared = if (multiplexed || arm.connection == ConnectionPolicy.WARM) clientForRequest() else null
        val calls = group.map { QueuedCall(it, shared ?: clientForRequest()) }
        val guardMs = settings.timeoutMs.toLong() * ((group.size + limit - 1) / limit + 1) + GROUP_GRACE_MS
        if (multiplexed) {
            val first = calls.first()
            first.enqueue()
            first.awaitConnection(settings.timeoutMs + GROUP_GRACE_MS)
            if (first.m.connReused == null) {
                // No connection to carry the others: they fail with the first's reason, never issued.
                first.await(guardMs)
                calls.drop(1).forEach { it.notIssued(first.m) }
            } else {
                calls.drop(1).forEach { it.enqueue() }
            }
        } else {
            calls.forEach { it.enqueue() }
        }
        calls.forEach { it.await(guardMs) }
        val mismatch = calls.any { it.m.errorClass == ErrorClass.PROTOCOL_MISMATCH }
        if (mismatch || arm.connection != ConnectionPolicy.WARM) calls.map { it.client }.distinct().forEach { it.connectionPool.evictAll() }
        return calls.map { it.m }
    }

    /** One call of a group, enqueued on the dispatcher; the callback reads the body, as an app's would. */
    private inner class QueuedCall(private val item: GroupRequest, val client: OkHttpClient) : Callback {
        val m = Measurement(Timeline(settings.clock))
        private val connected = ConnectionSignal()
        private val done = CountDownLatch(1)
        private var call: Call? = null

        fun enqueue() {
            call = client.newCall(buildRequest(item.request, item.body, m, connected)).also { it.enqueue(this) }
        }

        fun awaitConnection(timeoutMs: Long) {
            connected.latch.await(timeoutMs, TimeUnit.MILLISECONDS)
        }

        override fun onResponse(call: Call, response: okhttp3.Response) {
            try {
                response.use { it.body.source().readAll(blackholeSink()) } // closing it is callEnd: app_done
            } catch (e: Exception) {
                m.fail(Failures.classify(e))
            } finally {
                done.countDown()
            }
        }

        override fun onFailure(call: Call, e: IOException) {
            m.fail(Failures.classify(e))
            done.countDown()
        }

        /** Waits for the callback; [guardMs] only catches a hang (each call has its own call timeout). */
        fun await(guardMs: Long) {
            if (call != null && !done.await(guardMs, TimeUnit.MILLISECONDS)) {
                call?.cancel()
                m.fail(ErrorClass.TIMEOUT, "no response within ${settings.timeoutMs} ms of being issued")
            }
            finish(m, item.request, item.body)
        }

        fun notIssued(opener: Measurement) {
            m.fail(opener.errorClass ?: ErrorClass.OTHER, "not issued: the group's connection failed: ${opener.errorDetail}")
            m.timeline.markFirst(Phase.APP_DONE)
        }
    }

    /** What every request's measurement gets once its call is over (sequential or in a group). */
    private fun finish(m: Measurement, request: PlannedRequest, body: ByteArray) {
        m.timeline.markFirst(Phase.APP_DONE) // callEnd/callFailed mark it; a request OkHttp refused to start did not
        // A request without a body fires no requestBodyEnd: once its headers were written it sent 0 body bytes.
        if (m.reqBytes == null && body.isEmpty() && m.timeline.has(Phase.REQ_END)) m.reqBytes = 0
        m.failOnHttpStatus(request.expectStatus)
    }

    override fun closeConnection() {
        warm?.connectionPool?.evictAll()
    }

    override fun close() {
        closeConnection()
        warm = null
        dispatcher.executorService.shutdown()
    }

    private fun clientForRequest(): OkHttpClient = when (arm.connection) {
        ConnectionPolicy.WARM -> warm ?: withState(armSsl).also { warm = it }
        ConnectionPolicy.RESUMED -> withState(armSsl)
        ConnectionPolicy.COLD -> withState(if (arm.origin.isTls) trust.newSslContext() else null)
    }

    /** A client with its own connection pool and the given TLS session state (the SSLContext). */
    private fun withState(ssl: SSLContext?): OkHttpClient = base.newBuilder()
        // Room for a group's max_parallel (at most 64) idle HTTP/1.1 connections: warm keeps them all.
        .connectionPool(ConnectionPool(MAX_IDLE_CONNECTIONS, 5, TimeUnit.MINUTES))
        .apply { if (ssl != null) sslSocketFactory(ssl.socketFactory, trust.trustManager) }
        .build()

    private fun baseClient(): OkHttpClient {
        val timeout = settings.timeoutMs.toLong()
        return OkHttpClient.Builder()
            // h1/h1c offer only HTTP/1.1. h2 offers h2 and http/1.1 like real clients do, so a
            // server's silent fallback is seen (and reported) instead of failing the handshake.
            .protocols(if (arm.protocol == Protocol.H2) listOf(okhttp3.Protocol.HTTP_2, okhttp3.Protocol.HTTP_1_1) else listOf(okhttp3.Protocol.HTTP_1_1))
            .dispatcher(dispatcher)
            .dns(OriginDns(arm.origin))
            .socketFactory(ObservedSocketFactory(registry, settings.timeoutMs))
            .eventListenerFactory { call ->
                PhaseListener(call.request().tag(Measurement::class.java)!!, arm, registry, call.request().tag(ConnectionSignal::class.java))
            }
            .addNetworkInterceptor(AlpnCheck())
            .callTimeout(timeout, TimeUnit.MILLISECONDS)
            .connectTimeout(timeout, TimeUnit.MILLISECONDS)
            .readTimeout(timeout, TimeUnit.MILLISECONDS)
            .writeTimeout(timeout, TimeUnit.MILLISECONDS)
            // One attempt per planned request: a hidden retry or redirect would be measured as one request.
            .retryOnConnectionFailure(false)
            .followRedirects(false)
            .followSslRedirects(false)
            .build()
    }

    private fun buildRequest(request: PlannedRequest, body: ByteArray, m: Measurement, connected: ConnectionSignal?): Request {
        // The URL names the TLS name (SNI and certificate check); OriginDns maps it to the origin's address.
        val url = "${arm.origin.scheme}://${urlHost(arm.tlsName)}:${arm.origin.port}${request.path}".toHttpUrl()
        val requestBody = if (body.isNotEmpty() || request.method in METHODS_WITH_BODY) body.toRequestBody() else null
        return Request.Builder()
            .url(url)
            .headers(request.headers.toHeaders())
            .method(request.method, requestBody)
            .tag(Measurement::class.java, m)
            .apply { if (connected != null) tag(ConnectionSignal::class.java, connected) }
            .build()
    }

    /** Runs once the connection is known and before the request is written: a fallback ends the call here. */
    private inner class AlpnCheck : Interceptor {
        override fun intercept(chain: Interceptor.Chain): okhttp3.Response {
            val connection = chain.connection() ?: throw ProtocolMismatchException("no connection to check the protocol of")
            val negotiated = connection.protocol()
            val tls = connection.handshake() != null
            if (negotiated != expected || tls != arm.origin.isTls) {
                val seen = if (tls) "ALPN '$negotiated'" else "cleartext $negotiated (no ALPN)"
                throw ProtocolMismatchException("negotiated $seen, arm '${arm.label}' wants ${arm.protocol.wire} ($expected)")
            }
            return chain.proceed(chain.request())
        }
    }

    /** Resolves the arm's TLS name to the origin's address: a real lookup only for a host name. */
    private class OriginDns(private val origin: Origin) : Dns {
        override fun lookup(hostname: String): List<InetAddress> =
            if (origin.hostIsIpLiteral) listOf(Origin.literalAddress(origin.host))
            else InetAddress.getAllByName(origin.host).toList()
    }

    companion object {
        private val METHODS_WITH_BODY = setOf("POST", "PUT", "PATCH")
        private const val MAX_IDLE_CONNECTIONS = 64
        private const val GROUP_GRACE_MS = 5_000L

        private fun urlHost(host: String) = if (host.contains(':')) "[$host]" else host
    }
}
