package dev.latencylab.harness.job

import com.fasterxml.jackson.core.JsonParser
import com.fasterxml.jackson.core.JsonProcessingException
import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.ObjectMapper
import dev.latencylab.harness.contract.ContractSchemas
import dev.latencylab.harness.contract.violations
import dev.latencylab.harness.readiness.Cidr
import dev.latencylab.harness.readiness.ReadinessRequest
import java.io.File
import java.io.IOException
import java.io.InputStream

/** The job document cannot be used; the message names the field and what is allowed. */
class InvalidJobException(message: String) : Exception(message)

/**
 * Reads a job document: parses it once (Jackson's streaming parser builds the tree; a
 * 20,000-request job is a few MB), validates it against job.schema.json, then checks what
 * the schema cannot express (arm labels unique, every request names a known arm, seq unique).
 */
class JobReader(private val schemas: ContractSchemas = ContractSchemas.bundled()) {
    private val mapper = ObjectMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)

    fun read(file: File): Job {
        if (!file.isFile) throw InvalidJobException("job file $file does not exist or is not a file")
        return try {
            file.inputStream().buffered().use { read(it) }
        } catch (e: IOException) {
            if (e is JsonProcessingException) throw e.asInvalidJob()
            throw InvalidJobException("cannot read job file $file: ${e.message}")
        }
    }

    fun read(input: InputStream): Job {
        val tree = try {
            mapper.readTree(input) ?: throw InvalidJobException("job document is empty")
        } catch (e: JsonProcessingException) {
            throw e.asInvalidJob()
        }
        return fromTree(tree)
    }

    fun fromTree(tree: JsonNode): Job {
        val problems = schemas.job.violations(tree)
        if (problems.isNotEmpty()) {
            throw InvalidJobException("job document violates job.schema.json: " + problems.joinToString("; "))
        }
        val arms = tree["arms"].mapIndexed { i, node -> arm(node, i) }
        val labels = HashSet<String>()
        for ((i, arm) in arms.withIndex()) {
            if (!labels.add(arm.label)) throw InvalidJobException("$.arms[$i].label: '${arm.label}' is used by more than one arm")
        }
        val seen = HashSet<Int>()
        val requests = tree["requests"].mapIndexed { i, node ->
            val request = request(node, i)
            if (request.arm !in labels) {
                throw InvalidJobException(
                    "$.requests[$i].arm: '${request.arm}' is not an arm label; known: ${labels.sorted().joinToString(", ")}")
            }
            if (!seen.add(request.seq)) throw InvalidJobException("$.requests[$i].seq: ${request.seq} appears more than once")
            request
        }.sortedBy { it.seq }
        return Job(
            runId = tree["run_id"].asText(),
            block = tree["block"].asInt(),
            attempt = tree["attempt"].asInt(),
            timeoutMs = tree["timeout_ms"].asInt(),
            gapMs = tree["gap_ms"]?.asInt() ?: 0,
            maxParallel = tree["max_parallel"]?.asInt() ?: Job.DEFAULT_MAX_PARALLEL,
            arms = arms,
            requests = requests,
            pinnedAddresses = pinnedAddresses(tree["pinned_addresses"]),
            readiness = readiness(tree["readiness"]),
        )
    }

    private fun readiness(node: JsonNode?): ReadinessRequest? {
        if (node == null || node.isNull) return null
        val text = node["origin"].asText()
        val origin = Origin.parse(text)
            ?: throw InvalidJobException("$.readiness.origin: '$text' is not http://host[:port] with a port in 1..65535")
        val networks = node["lab_networks"]?.mapIndexed { i, entry ->
            Cidr.parse(entry.asText())
                ?: throw InvalidJobException("$.readiness.lab_networks[$i]: '${entry.asText()}' is not an address/prefix range")
        } ?: emptyList()
        return ReadinessRequest(origin, node.textOrNull("path") ?: ReadinessRequest.DEFAULT_PATH, networks)
    }

    private fun pinnedAddresses(node: JsonNode?): Map<String, String> {
        if (node == null || node.isNull) return emptyMap()
        return node.fields().asSequence().associate { (host, address) ->
            if (!Origin.isIpLiteral(address.asText())) {
                throw InvalidJobException("$.pinned_addresses.$host: '${address.asText()}' is not an IP address")
            }
            host to address.asText()
        }
    }

    private fun arm(node: JsonNode, index: Int): Arm {
        val originText = node["origin"].asText()
        val origin = Origin.parse(originText)
            ?: throw InvalidJobException("$.arms[$index].origin: '$originText' is not scheme://host[:port] with a port in 1..65535")
        return Arm(
            label = node["label"].asText(),
            protocol = Protocol.of(node["protocol"].asText()),
            connection = ConnectionPolicy.of(node["connection"].asText()),
            origin = origin,
            serverName = node.textOrNull("server_name"),
            caBundlePem = node.textOrNull("ca_bundle_pem"),
        )
    }

    private fun request(node: JsonNode, index: Int): PlannedRequest = PlannedRequest(
        seq = node["seq"].asInt(),
        arm = node["arm"].asText(),
        phase = node["phase"].asText(),
        op = node["op"].asText(),
        method = node["method"].asText(),
        path = node["path"].asText(),
        headers = node["headers"]?.fields()?.asSequence()?.associate { (k, v) -> k to v.asText() } ?: emptyMap(),
        bodyBytes = node["body_bytes"]?.asInt() ?: 0,
        body = node.textOrNull("body_b64")?.let { decodeBody(it, node["seq"].asInt()) },
        expectStatus = node.intOrNull("expect_status"),
        newConnection = node["new_connection"]?.asBoolean() ?: false,
        period = node.intOrNull("period"),
        repetition = node.intOrNull("repetition"),
        step = node.intOrNull("step"),
        part = node.textOrNull("part"),
        serverDelayMs = node["server_delay_ms"]?.takeUnless { it.isNull }?.asDouble(),
        origin = node.textOrNull("origin")?.let { text ->
            Origin.parse(text) ?: throw InvalidJobException("$.requests[$index].origin: '$text' is not scheme://host[:port] with a port in 1..65535")
        },
        group = node.intOrNull("group"),
    )

    private fun decodeBody(base64: String, seq: Int): ByteArray = try {
        java.util.Base64.getDecoder().decode(base64)
    } catch (e: IllegalArgumentException) {
        throw InvalidJobException("request seq $seq: body_b64 is not base64: ${e.message}")
    }

    private fun JsonNode.textOrNull(name: String): String? = get(name)?.takeUnless { it.isNull }?.asText()
    private fun JsonNode.intOrNull(name: String): Int? = get(name)?.takeUnless { it.isNull }?.asInt()

    private fun JsonProcessingException.asInvalidJob(): InvalidJobException {
        val where = location?.let { " (line ${it.lineNr}, column ${it.columnNr})" } ?: ""
        return InvalidJobException("job document is not valid JSON$where: ${originalMessage}")
    }
}
