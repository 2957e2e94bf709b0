package dev.latencylab.harness.readiness

import com.fasterxml.jackson.databind.node.JsonNodeFactory
import com.fasterxml.jackson.databind.node.ObjectNode
import dev.latencylab.harness.job.Origin
import java.math.BigInteger
import java.net.InetAddress

/**
 * The job's `readiness` (job.schema.json): before the block, fetch [path] from [origin] once
 * and judge the local address against [labNetworks] (none: reported, not judged).
 */
data class ReadinessRequest(val origin: Origin, val path: String = DEFAULT_PATH, val labNetworks: List<Cidr> = emptyList()) {
    companion object {
        const val DEFAULT_PATH = "/healthz"
    }
}

/** An address range, `192.168.10.0/24` or `fd00:1ab::/64`; parsed without any lookup. */
class Cidr private constructor(val text: String, private val network: BigInteger, private val bits: Int, private val size: Int) {
    operator fun contains(address: InetAddress): Boolean {
        val raw = address.address
        if (raw.size != size) return false
        val shift = size * 8 - bits
        return BigInteger(1, raw).shiftRight(shift) == network.shiftRight(shift)
    }

    override fun toString(): String = text

    companion object {
        /** The range, or null when [text] is not address/prefix with a prefix that fits the address. */
        fun parse(text: String): Cidr? {
            val slash = text.indexOf('/')
            if (slash <= 0) return null
            val host = text.substring(0, slash)
            val bits = text.substring(slash + 1).toIntOrNull() ?: return null
            if (!Origin.isIpLiteral(host)) return null
            val raw = runCatching { Origin.literalAddress(host).address }.getOrNull() ?: return null
            if (bits !in 0..raw.size * 8) return null
            return Cidr(text, BigInteger(1, raw), bits, raw.size)
        }
    }
}

/** The kind of network a connection left on, as the platform names it, and the interface's own name. */
data class LinkDescription(val kind: String?, val name: String?) {
    init {
        require(kind == null || kind in KINDS) { "interface kind must be one of ${KINDS.joinToString("|")}, got '$kind'" }
    }

    companion object {
        /** result.schema.json `readiness.interface`. */
        val KINDS = listOf("wifi", "cellular", "ethernet", "loopback", "other")
    }
}

/**
 * Says which network a local address belongs to. The JVM's answer is [NetworkInterfaceLinks];
 * the Android app answers from ConnectivityManager (its NetworkCapabilities transports), which
 * sees Wi-Fi and cellular where interface names only suggest them.
 */
fun interface LinkInspector {
    fun describe(local: InetAddress): LinkDescription
}

/**
 * result.schema.json `readiness`: what the check saw. [error] is why the block must not run
 * (the fetch failed, or the address is in none of the lab networks); null when it may.
 */
data class ReadinessReport(
    val origin: String,
    val link: LinkDescription,
    val localAddress: String?,
    val rttMs: Double?,
    val httpStatus: Int?,
    val onLabNetwork: Boolean?,
    val error: String?,
) {
    val refused: Boolean get() = error != null

    fun toJson(nodes: JsonNodeFactory = JsonNodeFactory.instance): ObjectNode = nodes.objectNode().apply {
        put("origin", origin)
        put("interface", link.kind)
        put("interface_name", link.name?.take(64))
        put("local_address", localAddress)
        put("rtt_ms", rttMs)
        put("http_status", httpStatus)
        put("on_lab_network", onLabNetwork)
        put("error", error?.take(1000))
    }
}
