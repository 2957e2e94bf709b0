package dev.latencylab.harness.readiness

import dev.latencylab.harness.measure.Failures
import dev.latencylab.harness.measure.MonotonicClock
import java.io.IOException
import java.net.InetAddress
import java.net.InetSocketAddress
import java.net.NetworkInterface
import java.net.Socket

/**
 * The readiness check the job asks for: one plain HTTP/1.1 GET on a socket of its own (not a
 * sample, and before the block's first request, so it warms nothing the block measures). It
 * reports the interface and local address the connection left from and its connect time (one
 * round trip, on the monotonic clock); the block is refused when the fetch fails or the
 * address is in none of the job's lab networks. The runner judges the address again itself.
 * The Python host harness (drivers/readiness_check.py) and the Swift core do the same.
 */
class ReadinessCheck(
    private val links: LinkInspector = NetworkInterfaceLinks,
    private val clock: MonotonicClock = MonotonicClock.SYSTEM,
    private val timeoutMs: Int = TIMEOUT_MS,
) {
    fun run(request: ReadinessRequest): ReadinessReport {
        val origin = request.origin
        var link = LinkDescription(null, null)
        var local: InetAddress? = null
        var rttMs: Double? = null
        var status: Int? = null
        val error: String? = try {
            Socket().use { socket ->
                // The reference target as the device reaches it: an IP literal in a lab (no lookup).
                val target = InetSocketAddress(origin.host, origin.port)
                val started = clock.nanos()
                socket.connect(target, timeoutMs)
                rttMs = Math.round((clock.nanos() - started) / 1_000.0) / 1_000.0
                socket.soTimeout = timeoutMs
                val address = socket.localAddress
                local = address
                link = runCatching { links.describe(address) }.getOrDefault(LinkDescription(null, null))
                val get = "GET ${request.path} HTTP/1.1\r\nHost: ${origin.urlHost}:${origin.port}\r\n" +
                    "Connection: close\r\nUser-Agent: latencylab-readiness\r\n\r\n"
                socket.getOutputStream().apply { write(get.toByteArray(Charsets.US_ASCII)); flush() }
                val code = statusOf(readLine(socket))
                status = code
                if (code in 200..299) null else "HTTP $code from $origin"
            }
        } catch (e: IOException) {
            Failures.describe(e)
        }
        val address = local
        val onLab = if (request.labNetworks.isEmpty() || address == null) null else request.labNetworks.any { address in it }
        val text = address?.hostAddress?.substringBefore('%')
        val refusal = if (onLab == false) {
            "not on the lab network: local address $text (${link.kind ?: "interface unknown"}) is in none of " +
                request.labNetworks.joinToString(", ")
        } else {
            error
        }
        return ReadinessReport(origin.toString(), link, text, rttMs, status, onLab, refusal)
    }

    private fun readLine(socket: Socket): String {
        val input = socket.getInputStream()
        val line = StringBuilder()
        while (line.length < 256) {
            val b = input.read()
            if (b < 0 || b == '\n'.code) break
            if (b != '\r'.code) line.append(b.toChar())
        }
        return line.toString()
    }

    private fun statusOf(line: String): Int {
        val parts = line.split(' ')
        val code = parts.getOrNull(1)?.toIntOrNull()
        if (!parts[0].startsWith("HTTP/") || code == null || code !in 100..599) {
            throw IOException("not an HTTP response: '${line.take(80)}'")
        }
        return code
    }

    companion object {
        const val TIMEOUT_MS = 5_000
    }
}

/**
 * The JVM's (and, without the app's ConnectivityManager answer, Android's) reading: the
 * interface holding the address, its kind by the address (loopback) or the name the kernel
 * gave it (names starting wl: Wi-Fi; eth or en: Ethernet; rmnet, ccmni or ww: cellular), else other.
 */
object NetworkInterfaceLinks : LinkInspector {
    override fun describe(local: InetAddress): LinkDescription {
        val name = NetworkInterface.getByInetAddress(local)?.name
        if (local.isLoopbackAddress) return LinkDescription("loopback", name)
        if (name == null) return LinkDescription(null, null)
        val kind = when {
            name.startsWith("wl") -> "wifi"
            name.startsWith("eth") || name.startsWith("en") -> "ethernet"
            name.startsWith("rmnet") || name.startsWith("ccmni") || name.startsWith("ww") -> "cellular"
            else -> "other"
        }
        return LinkDescription(kind, name)
    }
}
