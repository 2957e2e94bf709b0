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
import okhttp3.ConnectionPool
import okhttp3.Dns
import okhttp3.Headers.Companion.toHeaders
import okhttp3.HttpUrl.Companion.toHttpUrl
import okhttp3.Interceptor
import okhttp3.OkHttpClient
import okhttp3.Request
import okhttp3.RequestBody.Companion.toRequestBody
import okio.blackholeSink
import java.net.InetAddress
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
 */
class OkHttpEngine(
    private val arm: Arm,
    private val trust: TrustMaterial,
    private val settings: EngineSettings,
) : ProtocolEngine {
    private val registry = ConnectionRegistry()
    private val armSsl: SSLContext? = if (arm.origin.isTls) trust.newSslContext() else null
    private val base: OkHttpClient = baseClient()
    private var warm: OkHttpClient? = null

    private val expected: okhttp3.Protocol = if (arm.protocol == Protocol.H2) okhttp3.Protocol.HTTP_2 else okhttp3.Protocol.HTTP_1_1

    override fun execute(request: PlannedRequest, body: ByteArray): Measurement {
        val client = clientForRequest() // built before t0: setting up the client is not part of the request
        val m = Measurement(Timeline(settings.clock))
        try {
            val call = client.newCall(buildRequest(request, body, m))
            call.execute().use { response ->
                response.body.source().readAll(blackholeSink()) // resp_bytes come from responseBodyEnd
            }
        } catch (e: Exception) {
            m.fail(Failures.classify(e))
        }
        m.timeline.markFirst(Phase.APP_DONE) // callEnd/callFailed mark it; a request OkHttp refused to start did not
        // A request without a body fires no requestBodyEnd: once its headers were written it sent 0 body bytes.
        if (m.reqBytes == null && body.isEmpty() && m.timeline.has(Phase.REQ_END)) m.reqBytes = 0
        if (m.errorClass == ErrorClass.PROTOCOL_MISMATCH || arm.connection != ConnectionPolicy.WARM) {
            client.connectionPool.evictAll() // a mismatched connection is never reused; cold/resumed keep none
        }
        m.failOnHttpStatus(request.expectStatus)
        return m
    }

    override fun closeConnection() {
        warm?.connectionPool?.evictAll()
    }

    override fun close() {
        closeConnection()
        warm = null
    }

    private fun clientForRequest(): OkHttpClient = when (arm.connection) {
        ConnectionPolicy.WARM -> warm ?: withState(armSsl).also { warm = it }
        ConnectionPolicy.RESUMED -> withState(armSsl)
        ConnectionPolicy.COLD -> withState(if (arm.origin.isTls) trust.newSslContext() else null)
    }

    /** A client with its own connection pool and the given TLS session state (the SSLContext). */
    private fun withState(ssl: SSLContext?): OkHttpClient = base.newBuilder()
        .connectionPool(ConnectionPool(5, 5, TimeUnit.MINUTES))
        .apply { if (ssl != null) sslSocketFactory(ssl.socketFactory, trust.trustManager) }
        .build()

    private fun baseClient(): OkHttpClient {
        val timeout = settings.timeoutMs.toLong()
        return OkHttpClient.Builder()
            // h1/h1c offer only HTTP/1.1. h2 offers h2 and http/1.1 like real clients do, so a
            // server's silent fallback is seen (and reported) instead of failing the handshake.
            .protocols(if (arm.protocol == Protocol.H2) listOf(okhttp3.Protocol.HTTP_2, okhttp3.Protocol.HTTP_1_1) else listOf(okhttp3.Protocol.HTTP_1_1))
            .dns(OriginDns(arm.origin))
            .socketFactory(ObservedSocketFactory(registry, settings.timeoutMs))
            .eventListenerFactory { call -> PhaseListener(call.request().tag(Measurement::class.java)!!, arm, registry) }
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

    private fun buildRequest(request: PlannedRequest, body: ByteArray, m: Measurement): Request {
        // The URL names the TLS name (SNI and certificate check); OriginDns maps it to the origin's address.
        val url = "${arm.origin.scheme}://${urlHost(arm.tlsName)}:${arm.origin.port}${request.path}".toHttpUrl()
        val requestBody = if (body.isNotEmpty() || request.method in METHODS_WITH_BODY) body.toRequestBody() else null
        return Request.Builder()
            .url(url)
            .headers(request.headers.toHeaders())
            .method(request.method, requestBody)
            .tag(Measurement::class.java, m)
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

        private fun urlHost(host: String) = if (host.contains(':')) "[$host]" else host
    }
}
