package dev.latencylab.harness.net

import dev.latencylab.harness.measure.Phase
import dev.latencylab.harness.measure.Timeline
import java.io.InputStream
import java.io.OutputStream
import java.net.InetAddress
import java.net.InetSocketAddress
import java.net.Socket
import java.net.SocketAddress
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.ThreadLocalRandom
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicLong
import javax.net.SocketFactory

/** One TCP connection the harness opened, as seen on its socket. */
class ConnectionInfo(val id: String, val tap: TlsHelloTap) {
    /** ALPN and TLS version as the TLS socket reported them after its handshake (where an engine hooks it). */
    @Volatile var alpn: String? = null
    @Volatile var tlsVersion: String? = null
    @Volatile var handshakeDone: Boolean = false

    /** Requests this connection carried before the current one. */
    val requests = AtomicInteger()

    /** Null when the handshake was not visible on the socket's streams (see [TlsHelloTap]). */
    val tlsResumed: Boolean? get() = tap.observation?.resumed

    companion object {
        fun newId(): String = "%016x".format(ThreadLocalRandom.current().nextLong())
    }
}

/**
 * The connections an engine opened, found again by their local port (a TLS socket layered
 * over our socket reports the same local port; grpc exposes it as TRANSPORT_ATTR_LOCAL_ADDR).
 *
 * For libraries without connection events (grpc-java) the sockets mark the connection
 * phases on [current], the request in flight; requests are sequential within a block, so the
 * connection a socket belongs to is the current request's. Libraries with their own events
 * (OkHttp) leave [current] null.
 */
class ConnectionRegistry {
    @Volatile var current: Timeline? = null
    private val byLocalPort = ConcurrentHashMap<Int, ConnectionInfo>()

    /** Connections that completed their TCP connect, and the latest of them. */
    val opened = AtomicLong()
    @Volatile var lastOpened: ConnectionInfo? = null
        private set

    fun lookup(localPort: Int): ConnectionInfo? = byLocalPort[localPort]

    fun lookup(socket: Socket?): ConnectionInfo? = socket?.let { byLocalPort[it.localPort] }

    internal fun connectStarting() {
        current?.markFirst(Phase.CONN_START)
    }

    internal fun connected(socket: ObservedSocket) {
        byLocalPort[socket.localPort] = socket.info // a reused port number now means this connection
        lastOpened = socket.info
        opened.incrementAndGet()
    }
}

/** A plain TCP socket that reports its connect to the registry and lets the TLS tap see its bytes. */
class ObservedSocket(private val registry: ConnectionRegistry) : Socket() {
    val info = ConnectionInfo(ConnectionInfo.newId(), TlsHelloTap())
    @Volatile private var input: InputStream? = null
    @Volatile private var output: OutputStream? = null

    override fun connect(endpoint: SocketAddress, timeout: Int) {
        registry.connectStarting()
        super.connect(endpoint, timeout)
        setTcpNoDelay(true) // as every client under test does (OkHttp, grpc); never a Nagle stall
        registry.connected(this)
    }

    @Synchronized
    override fun getInputStream(): InputStream = input ?: info.tap.inbound(super.getInputStream()).also { input = it }

    @Synchronized
    override fun getOutputStream(): OutputStream = output ?: info.tap.outbound(super.getOutputStream()).also { output = it }
}

/** Hands out [ObservedSocket]s; the `createSocket(host, port)` forms connect with [connectTimeoutMs]. */
class ObservedSocketFactory(private val registry: ConnectionRegistry, private val connectTimeoutMs: Int) : SocketFactory() {
    override fun createSocket(): Socket = ObservedSocket(registry)

    override fun createSocket(host: String, port: Int): Socket = connected(InetSocketAddress(host, port))

    override fun createSocket(host: String, port: Int, localHost: InetAddress?, localPort: Int): Socket =
        connected(InetSocketAddress(host, port), InetSocketAddress(localHost, localPort))

    override fun createSocket(host: InetAddress, port: Int): Socket = connected(InetSocketAddress(host, port))

    override fun createSocket(address: InetAddress, port: Int, localAddress: InetAddress?, localPort: Int): Socket =
        connected(InetSocketAddress(address, port), InetSocketAddress(localAddress, localPort))

    private fun connected(remote: InetSocketAddress, local: InetSocketAddress? = null): Socket =
        ObservedSocket(registry).apply {
            if (local != null) bind(local)
            connect(remote, connectTimeoutMs)
        }
}
