package dev.latencylab.harness.engine

import dev.latencylab.harness.job.Arm
import dev.latencylab.harness.measure.Measurement
import dev.latencylab.harness.measure.Phase
import dev.latencylab.harness.measure.ServerTiming
import dev.latencylab.harness.net.ConnectionRegistry
import okhttp3.Call
import okhttp3.Connection
import okhttp3.Dispatcher
import okhttp3.EventListener
import okhttp3.Handshake
import okhttp3.Protocol
import okhttp3.Request
import okhttp3.Response
import java.io.IOException
import java.net.InetAddress
import java.net.InetSocketAddress
import java.net.Proxy

/**
 * Maps one OkHttp call's events to the contract's phases. OkHttp's callbacks carry no
 * timestamps, so each stamps the monotonic clock when it runs (on the calling thread:
 * a sequential request is executed synchronously). A concurrency group's calls are enqueued:
 * one that waits in the dispatcher for a free connection slot is issued when it leaves the
 * queue, so its t0 moves to dispatcherQueueEnd and the wait is not part of its t0..app_done.
 *
 * | OkHttp callback                         | contract field            |
 * |-----------------------------------------|---------------------------|
 * | callStart (dispatcherQueueEnd if queued) | t0                        |
 * | dnsStart / dnsEnd                       | dns_start / dns_end       |
 * | connectStart (first attempt)            | conn_start                |
 * | secureConnectStart                      | tls_start                 |
 * | connectEnd                              | conn_ready                |
 * | connectionAcquired                      | conn_id, conn_reused, alpn, tls_version, tls_resumed |
 * | requestHeadersStart                     | req_start                 |
 * | requestHeadersEnd / requestBodyEnd      | req_end (body end if any) |
 * | responseHeadersStart                    | resp_first_byte           |
 * | responseHeadersEnd                      | resp_headers_end, status, server_time_us |
 * | responseBodyEnd                         | resp_end, resp_bytes      |
 * | callEnd / callFailed                    | app_done                  |
 *
 * A reused connection fires no dns/connect events: those phases stay null and conn_reused is true.
 */
class PhaseListener(
    private val m: Measurement,
    private val arm: Arm,
    private val registry: ConnectionRegistry,
    /** Released once the call has a connection or has ended without one (a group's first h2 call). */
    private val connected: ConnectionSignal? = null,
) : EventListener() {
    private val tl = m.timeline

    // An IP-literal origin is never looked up; OkHttp's lookup of the mapped name is then not DNS.
    private val realLookup = !arm.origin.hostIsIpLiteral

    override fun callStart(call: Call) = tl.restartAtCallStart()

    override fun dispatcherQueueEnd(call: Call, dispatcher: Dispatcher) = tl.restartAtCallStart()

    override fun dnsStart(call: Call, domainName: String) {
        if (realLookup) tl.markFirst(Phase.DNS_START)
    }

    override fun dnsEnd(call: Call, domainName: String, inetAddressList: List<InetAddress>) {
        if (realLookup) tl.mark(Phase.DNS_END)
    }

    override fun connectStart(call: Call, inetSocketAddress: InetSocketAddress, proxy: Proxy) = tl.markFirst(Phase.CONN_START)

    override fun secureConnectStart(call: Call) = tl.mark(Phase.TLS_START)

    override fun secureConnectEnd(call: Call, handshake: Handshake?) {
        m.tlsVersion = handshake?.tlsVersion?.javaName
    }

    override fun connectEnd(call: Call, inetSocketAddress: InetSocketAddress, proxy: Proxy, protocol: Protocol?) =
        tl.mark(Phase.CONN_READY)

    override fun connectionAcquired(call: Call, connection: Connection) {
        val info = registry.lookup(connection.socket())
        val tls = connection.handshake() != null
        m.connId = info?.id
        m.connReused = !tl.has(Phase.CONN_START)
        // Without TLS there is no ALPN: a cleartext connection reports none.
        m.alpn = if (tls) connection.protocol().toString() else null
        m.tlsVersion = connection.handshake()?.tlsVersion?.javaName
        m.tlsResumed = if (tls) info?.tlsResumed else null
        // OkHttp (JDK TLS, Conscrypt) never sends TLS 1.3 early data.
        m.earlyData = if (tls) false else null
        info?.requests?.incrementAndGet()
        connected?.latch?.countDown()
    }

    override fun requestHeadersStart(call: Call) = tl.mark(Phase.REQ_START)

    override fun requestHeadersEnd(call: Call, request: Request) = tl.mark(Phase.REQ_END)

    override fun requestBodyEnd(call: Call, byteCount: Long) {
        tl.mark(Phase.REQ_END)
        m.reqBytes = byteCount
    }

    override fun responseHeadersStart(call: Call) = tl.mark(Phase.RESP_FIRST_BYTE)

    override fun responseHeadersEnd(call: Call, response: Response) {
        tl.mark(Phase.RESP_HEADERS_END)
        m.status = response.code
        m.serverTimeUs = ServerTiming.parseMicros(response.header("Server-Timing"))
    }

    override fun responseBodyEnd(call: Call, byteCount: Long) {
        tl.mark(Phase.RESP_END)
        m.respBytes = byteCount
    }

    override fun callEnd(call: Call) {
        tl.mark(Phase.APP_DONE)
        connected?.latch?.countDown()
    }

    override fun callFailed(call: Call, ioe: IOException) {
        tl.mark(Phase.APP_DONE)
        connected?.latch?.countDown()
    }
}

/** A call's "has its connection (or will never get one)" moment, handed to its [PhaseListener] as a request tag. */
class ConnectionSignal {
    val latch = java.util.concurrent.CountDownLatch(1)
}
