package dev.latencylab.harness.android

import android.content.Context
import dev.latencylab.harness.engine.EngineSettings
import dev.latencylab.harness.engine.GroupRequest
import dev.latencylab.harness.engine.Http3EngineProvider
import dev.latencylab.harness.engine.ProtocolEngine
import dev.latencylab.harness.job.Arm
import dev.latencylab.harness.job.ConnectionPolicy
import dev.latencylab.harness.job.Origin
import dev.latencylab.harness.job.PlannedRequest
import dev.latencylab.harness.measure.ErrorClass
import dev.latencylab.harness.measure.Measurement
import dev.latencylab.harness.measure.Phase
import dev.latencylab.harness.measure.ServerTiming
import dev.latencylab.harness.measure.Timeline
import dev.latencylab.harness.net.TrustMaterial
import org.chromium.net.CronetException
import org.chromium.net.ExperimentalCronetEngine
import org.chromium.net.ExperimentalUrlRequest
import org.chromium.net.NetworkException
import org.chromium.net.RequestFinishedInfo
import org.chromium.net.UploadDataProviders
import org.chromium.net.UrlRequest
import org.chromium.net.UrlResponseInfo
import org.json.JSONObject
import java.nio.ByteBuffer
import java.util.Date
import java.util.concurrent.CountDownLatch
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicReference

/** Chromium's net error for a QUIC certificate that does not chain to a known root (net_error_list.h). */
const val ERR_QUIC_CERT_ROOT_NOT_KNOWN = -380

/**
 * Cronet's experimental options mapping the arm's TLS name to the address the runner checked;
 * null when the origin is already that name (nothing to map: Cronet resolves it itself).
 * Chromium's rule syntax (net/base/host_mapping_rules.h): `MAP <name> <address>`, an IPv6
 * address in brackets.
 */
fun hostResolverRules(arm: Arm): String? {
    val name = arm.tlsName
    val address = arm.origin.host
    if (address.equals(name, ignoreCase = true)) return null
    val mapped = if (address.contains(':')) "[$address]" else address
    return JSONObject().put("HostResolverRules", JSONObject().put("host_resolver_rules", "MAP $name $mapped")).toString()
}

/**
 * HTTP/3 on the phone through Cronet (Chromium's network stack). Not compiled or run where
 * this repository is tested (no Android SDK there); the JVM core's tests use the kwik/flupke
 * stand-in behind the same interface.
 *
 * Cronet reports phases as wall-clock Dates with millisecond resolution; they become
 * offsets from its own requestStart (so these samples are ms-granular):
 * dnsStart/End → dns_*, connectStart → conn_start, sslStart → tls_start, connectEnd →
 * conn_ready, sendingStart/End → req_*, requestStart + ttfbMs → resp_first_byte,
 * responseStart → resp_headers_end, requestEnd → resp_end; app_done is the harness's own
 * monotonic clock when onSucceeded/onFailed ran. socketReused → conn_reused.
 *
 * Names and addresses: a request goes to the arm's TLS name (`server_name`, or the origin's
 * host), never to an IP literal, and the engine's host resolver maps that name to the address
 * the runner checked (the origin's host when the arm names a server, or a hosted run's pinned
 * address: [Arm.pinned] has already moved it there). So SNI, the certificate check and
 * :authority use the name, the packets go where the runner looked, and no DNS query is made
 * for a mapped name (Cronet's `HostResolverRules` experimental option, a `MAP name address`
 * rule of Chromium's MappedHostResolver).
 *
 * Trust: Chromium's QUIC accepts only certificates that chain to a root of the phone's
 * system store (`ERR_QUIC_CERT_ROOT_NOT_KNOWN`, net error -380, even when the app's network
 * security config trusts a private CA), so an h3 arm needs a publicly trusted certificate:
 * the lab's reference target serves one for its DNS name (docs/device-lab.md §4), and the
 * service refuses Android h3 arms at submit where a runner reports a private one. Such a
 * refusal still reaching a phone is a `tls` error sample that says so. Cronet has no API for
 * extra trust anchors nor for connection ids or TLS resumption: those stay null.
 * warm keeps one engine per arm; cold and resumed build a new engine per request (Cronet's
 * session state cannot be kept apart from its connections), so resumed behaves like cold.
 */
class CronetHttp3Provider(private val context: Context) : Http3EngineProvider {
    override val clientStack: String = "cronet ${org.chromium.net.ApiVersion.getCronetVersion()}"

    override fun create(arm: Arm, trust: TrustMaterial, settings: EngineSettings): ProtocolEngine = CronetHttp3Engine(context, arm, settings)
}

class CronetHttp3Engine(private val context: Context, private val arm: Arm, private val settings: EngineSettings) : ProtocolEngine {
    private val executor = Executors.newSingleThreadExecutor()
    private var engine: ExperimentalCronetEngine? = null

    /** The name every request is sent to: what TLS checks and :authority carries. */
    private val name: String = arm.tlsName

    private fun engine(): ExperimentalCronetEngine = engine ?: ExperimentalCronetEngine.Builder(context)
        .enableQuic(true)
        // QUIC from the first request: no Alt-Svc discovery round over TCP first.
        .addQuicHint(name, arm.origin.port, arm.origin.port)
        .apply { hostResolverRules(arm)?.let { setExperimentalOptions(it) } }
        .build().also { engine = it }

    override fun execute(request: PlannedRequest, body: ByteArray): Measurement =
        executeGroup(listOf(GroupRequest(request, body)), 1).single()

    /**
     * Every request of the group is started at once on the arm's one engine: Cronet puts them
     * as streams on its one QUIC connection to the origin (a request that finds the connection
     * still being set up waits for it rather than opening another). Each has its own t0.
     */
    override fun executeGroup(group: List<GroupRequest>, maxParallel: Int): List<Measurement> {
        if (arm.connection != ConnectionPolicy.WARM) closeConnection()
        val cronet = engine()
        val started = group.map { start(cronet, it) }
        started.forEach { it.await() }
        if (started.any { it.timedOut }) closeConnection()
        return started.map { it.m }
    }

    private inner class Started(
        val item: GroupRequest,
        val m: Measurement,
        private val urlRequest: UrlRequest,
        private val done: CountDownLatch,
        private val metrics: AtomicReference<RequestFinishedInfo.Metrics?>,
    ) {
        private val startedNanos = m.timeline.now()
        var timedOut = false
            private set

        fun await() {
            val remainingMs = settings.timeoutMs - TimeUnit.NANOSECONDS.toMillis(m.timeline.now() - startedNanos)
            if (!done.await(maxOf(1L, remainingMs), TimeUnit.MILLISECONDS)) {
                timedOut = true
                urlRequest.cancel()
                m.fail(ErrorClass.TIMEOUT, "no HTTP/3 response within ${settings.timeoutMs} ms")
                done.await(2, TimeUnit.SECONDS)
            }
            m.timeline.markFirst(Phase.APP_DONE)
            metrics.get()?.let { apply(it, m, item.body.size.toLong()) }
            if (!m.failed && m.alpn?.startsWith("h3") != true) {
                m.fail(ErrorClass.PROTOCOL_MISMATCH, "negotiated '${m.alpn}', arm '${arm.label}' wants h3")
            }
            m.failOnHttpStatus(item.request.expectStatus)
        }
    }

    private fun start(cronet: ExperimentalCronetEngine, item: GroupRequest): Started {
        val request = item.request
        val m = Measurement(Timeline(settings.clock))
        val done = CountDownLatch(2) // the callback's end and the finished-info listener
        val metrics = AtomicReference<RequestFinishedInfo.Metrics?>()
        val callback = Callback(m) { done.countDown() }
        val url = "https://${Origin("https", name, arm.origin.port).urlHost}:${arm.origin.port}${request.path}"
        val builder = cronet.newUrlRequestBuilder(url, callback, executor) as ExperimentalUrlRequest.Builder
        builder.setHttpMethod(request.method)
        builder.setRequestFinishedListener(object : RequestFinishedInfo.Listener(executor) {
            override fun onRequestFinished(info: RequestFinishedInfo) {
                metrics.set(info.metrics)
                done.countDown()
            }
        })
        request.headers.forEach { (k, v) -> builder.addHeader(k, v) }
        if (item.body.isNotEmpty()) {
            if (request.headers.keys.none { it.equals("content-type", ignoreCase = true) }) {
                builder.addHeader("Content-Type", "application/json")
            }
            builder.setUploadDataProvider(UploadDataProviders.create(item.body), executor)
        }
        val urlRequest = builder.build()
        urlRequest.start()
        return Started(item, m, urlRequest, done, metrics)
    }

    private fun apply(metrics: RequestFinishedInfo.Metrics, m: Measurement, bodyBytes: Long) {
        val start = metrics.requestStart ?: return
        fun at(date: Date?): Long? = date?.let { (it.time - start.time) * 1000 }
        val tl = m.timeline
        tl.markAtOffset(Phase.DNS_START, at(metrics.dnsStart))
        tl.markAtOffset(Phase.DNS_END, at(metrics.dnsEnd))
        tl.markAtOffset(Phase.CONN_START, at(metrics.connectStart))
        tl.markAtOffset(Phase.TLS_START, at(metrics.sslStart))
        tl.markAtOffset(Phase.CONN_READY, at(metrics.connectEnd))
        tl.markAtOffset(Phase.REQ_START, at(metrics.sendingStart))
        tl.markAtOffset(Phase.REQ_END, at(metrics.sendingEnd))
        tl.markAtOffset(Phase.RESP_FIRST_BYTE, metrics.ttfbMs?.let { it * 1000 })
        tl.markAtOffset(Phase.RESP_HEADERS_END, at(metrics.responseStart))
        tl.markAtOffset(Phase.RESP_END, at(metrics.requestEnd))
        m.connReused = metrics.socketReused
        m.reqBytes = bodyBytes
    }

    private class Callback(private val m: Measurement, private val finished: () -> Unit) : UrlRequest.Callback() {
        private val buffer = ByteBuffer.allocateDirect(64 * 1024)
        private var received = 0L

        override fun onRedirectReceived(request: UrlRequest, info: UrlResponseInfo, newLocationUrl: String) {
            // Redirects are not followed (as on every arm): the 3xx is the answer.
            record(info)
            request.cancel()
        }

        override fun onResponseStarted(request: UrlRequest, info: UrlResponseInfo) {
            record(info)
            buffer.clear()
            request.read(buffer)
        }

        override fun onReadCompleted(request: UrlRequest, info: UrlResponseInfo, byteBuffer: ByteBuffer) {
            received += byteBuffer.position()
            byteBuffer.clear()
            request.read(byteBuffer)
        }

        override fun onSucceeded(request: UrlRequest, info: UrlResponseInfo) = end()

        override fun onFailed(request: UrlRequest, info: UrlResponseInfo?, error: CronetException) {
            val why = if (rootNotKnown(error)) {
                "; Chromium's QUIC accepts only a certificate that chains to a root of the phone's system store, " +
                    "whatever the app trusts: the h3 target needs a publicly trusted certificate"
            } else {
                ""
            }
            m.fail(classify(error), "${error.javaClass.simpleName}: ${error.message}$why")
            end()
        }

        private fun rootNotKnown(error: CronetException): Boolean =
            (error as? NetworkException)?.cronetInternalErrorCode == ERR_QUIC_CERT_ROOT_NOT_KNOWN

        private fun classify(error: CronetException): ErrorClass =
            if (rootNotKnown(error)) ErrorClass.TLS else classifyByCode(error)

        private fun classifyByCode(error: CronetException): ErrorClass = when ((error as? NetworkException)?.errorCode) {
            NetworkException.ERROR_HOSTNAME_NOT_RESOLVED -> ErrorClass.DNS
            NetworkException.ERROR_CONNECTION_REFUSED, NetworkException.ERROR_ADDRESS_UNREACHABLE,
            NetworkException.ERROR_INTERNET_DISCONNECTED -> ErrorClass.CONNECT
            NetworkException.ERROR_TIMED_OUT, NetworkException.ERROR_CONNECTION_TIMED_OUT -> ErrorClass.TIMEOUT
            NetworkException.ERROR_CONNECTION_RESET, NetworkException.ERROR_CONNECTION_CLOSED -> ErrorClass.RESET
            else -> ErrorClass.OTHER
        }

        override fun onCanceled(request: UrlRequest, info: UrlResponseInfo?) = end()

        private fun record(info: UrlResponseInfo) {
            m.status = info.httpStatusCode
            m.alpn = info.negotiatedProtocol.ifEmpty { null }
            // QUIC always runs TLS 1.3 (RFC 9001); Cronet reports no TLS details.
            if (m.alpn?.startsWith("h3") == true) m.tlsVersion = "TLSv1.3"
            m.serverTimeUs = ServerTiming.parseMicros(info.allHeaders.entries.firstOrNull { it.key.equals("server-timing", true) }?.value?.firstOrNull())
        }

        private fun end() {
            m.timeline.mark(Phase.APP_DONE)
            m.respBytes = received
            finished()
        }
    }

    override fun closeConnection() {
        engine?.shutdown()
        engine = null
    }

    override fun close() {
        closeConnection()
        executor.shutdownNow()
    }
}
