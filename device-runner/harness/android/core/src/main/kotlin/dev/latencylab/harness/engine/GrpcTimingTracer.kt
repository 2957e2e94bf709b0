package dev.latencylab.harness.engine

import dev.latencylab.harness.measure.Measurement
import dev.latencylab.harness.measure.Phase
import dev.latencylab.harness.net.ConnectionRegistry
import io.grpc.Attributes
import io.grpc.ClientStreamTracer
import io.grpc.Grpc
import io.grpc.Metadata
import java.net.InetSocketAddress

/**
 * Maps one gRPC call's stream events to the contract's phases (OkHttp's EventListener never
 * sees gRPC: grpc-okhttp has its own HTTP/2 code). Connection phases come from the sockets
 * (see [dev.latencylab.harness.net.ObservedSocket] and [dev.latencylab.harness.net.TimedSslSocket]).
 *
 * | grpc-java event                                   | contract field                      |
 * |---------------------------------------------------|-------------------------------------|
 * | (harness) before ClientCall.start                 | t0                                  |
 * | streamCreated (transport attributes)              | conn_id, conn_reused, alpn, tls_*   |
 * | outboundHeaders                                   | req_start                           |
 * | outboundMessageSent (the one request message)     | req_end                             |
 * | inboundHeaders                                    | resp_first_byte, resp_headers_end   |
 * | inboundTrailers                                   | resp_end                            |
 * | (harness) ClientCall.Listener.onClose             | app_done                            |
 *
 * grpc-java reports no earlier response event than the parsed headers, so resp_first_byte
 * equals resp_headers_end here (as for QUIC in the contract's examples).
 */
class GrpcTimingTracer(private val m: Measurement, private val registry: ConnectionRegistry) {
    private val tl = m.timeline

    /** The server answered (headers or trailers arrived): a non-OK status then is the server's, not the transport's. */
    @Volatile var serverResponded = false
        private set

    /** Completed when the call got its stream on a connection (the connection is then usable by others). */
    val streamCreated = java.util.concurrent.CompletableFuture<Unit>()

    val factory: ClientStreamTracer.Factory = object : ClientStreamTracer.Factory() {
        override fun newClientStreamTracer(info: ClientStreamTracer.StreamInfo, headers: Metadata): ClientStreamTracer = Tracer()
    }

    private inner class Tracer : ClientStreamTracer() {
        override fun streamCreated(transportAttrs: Attributes, headers: Metadata) {
            val local = transportAttrs.get(Grpc.TRANSPORT_ATTR_LOCAL_ADDR) as? InetSocketAddress
            val connection = local?.let { registry.lookup(it.port) }
            val session = transportAttrs.get(Grpc.TRANSPORT_ATTR_SSL_SESSION)
            m.connId = connection?.id
            m.connReused = !tl.has(Phase.CONN_START)
            m.alpn = connection?.alpn
            m.tlsVersion = session?.protocol ?: connection?.tlsVersion
            m.tlsResumed = connection?.tlsResumed
            m.earlyData = false // grpc-okhttp over JDK TLS / Conscrypt never sends early data
            connection?.requests?.incrementAndGet()
            streamCreated.complete(Unit)
        }

        override fun outboundHeaders() = tl.markFirst(Phase.REQ_START)

        override fun outboundMessageSent(seqNo: Int, optionalWireSize: Long, optionalUncompressedSize: Long) = tl.mark(Phase.REQ_END)

        override fun inboundHeaders() = responseHeaders()

        override fun inboundHeaders(headers: Metadata) = responseHeaders()

        override fun inboundTrailers(trailers: Metadata) {
            serverResponded = true
            // A trailers-only response: its one HEADERS frame is also the first response byte.
            tl.markFirst(Phase.RESP_FIRST_BYTE)
            tl.markFirst(Phase.RESP_HEADERS_END)
            tl.mark(Phase.RESP_END)
        }

        private fun responseHeaders() {
            serverResponded = true
            tl.markFirst(Phase.RESP_FIRST_BYTE)
            tl.markFirst(Phase.RESP_HEADERS_END)
        }
    }
}
