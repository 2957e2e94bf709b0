package dev.latencylab.harness.job

import dev.latencylab.harness.readiness.ReadinessRequest
import java.net.Inet6Address
import java.net.InetAddress

/** One block's planned requests (job.schema.json), already validated and cross-checked. */
data class Job(
    val runId: String,
    val block: Int,
    val attempt: Int,
    val timeoutMs: Int,
    val gapMs: Int,
    /** HTTP/1.1 connections per origin a concurrency group may use (job `max_parallel`, default 6). */
    val maxParallel: Int = DEFAULT_MAX_PARALLEL,
    val arms: List<Arm>,
    /** In `seq` order. */
    val requests: List<PlannedRequest>,
    /**
     * Hosted pools (job `pinned_addresses`): host name -> the IP address the runner checked at
     * lease time. A pinned host is connected to at that address only, never looked up again.
     */
    val pinnedAddresses: Map<String, String> = emptyMap(),
    /** The job's `readiness`: the check to run before the first request; null when it asks for none. */
    val readiness: ReadinessRequest? = null,
) {
    companion object {
        const val DEFAULT_MAX_PARALLEL = 6
    }
}

enum class Protocol(val wire: String) {
    H1C("h1c"), H1("h1"), H2("h2"), H3("h3"), GRPC("grpc");

    companion object {
        fun of(wire: String): Protocol = entries.first { it.wire == wire }
    }
}

enum class ConnectionPolicy(val wire: String) {
    /** One connection per arm for the whole block, reused by every request. */
    WARM("warm"),
    /** A new connection per request with no state kept: no pooled connection, no TLS session, no cached name. */
    COLD("cold"),
    /** A new TCP/QUIC connection per request that resumes the arm's previous TLS session. */
    RESUMED("resumed");

    companion object {
        fun of(wire: String): ConnectionPolicy = entries.first { it.wire == wire }
    }
}

data class Origin(val scheme: String, val host: String, val port: Int) {
    val isTls: Boolean get() = scheme == "https"

    /** An IP literal needs no name lookup: its dns_* phases stay null (nothing happened). */
    val hostIsIpLiteral: Boolean get() = isIpLiteral(host)

    /** The host as it appears in a URL (IPv6 literals in brackets). */
    val urlHost: String get() = if (host.contains(':')) "[$host]" else host

    override fun toString(): String = "$scheme://$urlHost:$port"

    companion object {
        private val ORIGIN = Regex("""^(https?)://(\[[0-9A-Fa-f:.]+]|[^:/?#@\[\]]+)(?::(\d{1,5}))?$""")

        /** Parses `scheme://host[:port]` (the schema's origin pattern); null when it is not one. */
        fun parse(text: String): Origin? {
            val m = ORIGIN.matchEntire(text) ?: return null
            val scheme = m.groupValues[1]
            val host = m.groupValues[2].removePrefix("[").removeSuffix("]")
            val port = m.groupValues[3].ifEmpty { if (scheme == "https") "443" else "80" }.toInt()
            if (port !in 1..65535) return null
            return Origin(scheme, host, port)
        }

        fun isIpLiteral(host: String): Boolean {
            if (host.contains(':')) return true // only IPv6 literals contain colons here
            val parts = host.split('.')
            return parts.size == 4 && parts.all { p -> p.isNotEmpty() && p.length <= 3 && p.all(Char::isDigit) && p.toInt() <= 255 }
        }

        /** Parses an IP literal without any lookup (InetAddress.getByName does none for literals). */
        fun literalAddress(host: String): InetAddress {
            require(isIpLiteral(host)) { "$host is not an IP literal" }
            val address = InetAddress.getByName(host)
            check(host.contains(':') == (address is Inet6Address)) { "$host parsed as $address" }
            return address
        }
    }
}

data class Arm(
    val label: String,
    val protocol: Protocol,
    val connection: ConnectionPolicy,
    val origin: Origin,
    /** TLS SNI and certificate name when it differs from the origin's host. */
    val serverName: String?,
    val caBundlePem: String?,
) {
    /** The name TLS checks the certificate against (and sends as SNI). */
    val tlsName: String get() = serverName ?: origin.host

    /**
     * This arm sending to another origin (a request's own `origin`, a customer's absolute URL):
     * same protocol, connection policy and trust anchors, its own connection, and the TLS name
     * is that origin's host (the arm's server_name names the arm's own origin only).
     */
    fun at(other: Origin): Arm = if (other == origin) this else copy(origin = other, serverName = null)

    /**
     * This arm with its origin's host pinned to the address the runner checked (hosted pools,
     * job `pinned_addresses`): connections go to that IP literal (no lookup, so no dns_*
     * phase), while SNI, the certificate name and Host/:authority stay the host's name.
     */
    fun pinned(addresses: Map<String, String>): Arm {
        val address = addresses[origin.host] ?: return this
        return copy(origin = origin.copy(host = address), serverName = tlsName)
    }
}

data class PlannedRequest(
    val seq: Int,
    val arm: String,
    val phase: String,
    val op: String,
    val method: String,
    val path: String,
    val headers: Map<String, String>,
    val bodyBytes: Int,
    val newConnection: Boolean,
    val period: Int?,
    val repetition: Int?,
    val step: Int?,
    val part: String?,
    val serverDelayMs: Double?,
    /** A customer's own body (decoded `body_b64`), sent as is; null: `bodyBytes` generated bytes. */
    val body: ByteArray? = null,
    /** The status that counts as success (even ≥ 400); null: any status below 400. */
    val expectStatus: Int? = null,
    /** Where this request goes instead of its arm's origin (a customer's absolute URL); null: the arm's. */
    val origin: Origin? = null,
    /** Consecutive requests of one arm and phase with the same group are issued concurrently; null: alone. */
    val group: Int? = null,
)
