package dev.latencylab.harness.result

import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.node.JsonNodeFactory
import com.fasterxml.jackson.databind.node.ObjectNode
import dev.latencylab.harness.contract.ContractSchemas
import dev.latencylab.harness.contract.violations
import dev.latencylab.harness.readiness.ReadinessReport
import java.io.File
import java.nio.file.Files
import java.nio.file.StandardCopyOption

/** result.schema.json: what the harness returns for one job. */
class ResultDocument(
    val runId: String,
    val block: Int,
    val attempt: Int,
    /** `ok` when every request was attempted, whatever their outcome; `not_ready` when the readiness check refused the block. */
    val status: String,
    val samples: List<Sample>,
    val fingerprint: Fingerprint,
    val error: String? = null,
    /** The job's readiness check as it ran; null when the job asked for none (the key is then left out). */
    val readiness: ReadinessReport? = null,
) {
    fun toJson(nodes: JsonNodeFactory = JsonNodeFactory.instance): ObjectNode = nodes.objectNode().apply {
        put("contract", CONTRACT)
        put("run_id", runId)
        put("block", block)
        put("attempt", attempt)
        put("status", status)
        putArray("samples").apply { samples.forEach { add(it.toJson(nodes)) } }
        set<ObjectNode>("fingerprint", fingerprint.toJson(nodes))
        // The phone harness measures no TCP/ICMP baseline (no raw sockets on a phone); the runner does.
        putNull("baseline")
        readiness?.let { set<ObjectNode>("readiness", it.toJson(nodes)) }
        put("error", error)
    }

    companion object {
        const val CONTRACT = "latencylab.result/v1"
    }
}

/** Our own output broke the contract: a harness bug, never written out. */
class InvalidResultException(message: String) : Exception(message)

/** Validates a result document against result.schema.json and writes it atomically. */
class ResultWriter(private val schemas: ContractSchemas = ContractSchemas.bundled()) {
    private val mapper = ObjectMapper()

    fun validated(result: ResultDocument): ObjectNode {
        val json = result.toJson()
        val problems = schemas.result.violations(json)
        if (problems.isNotEmpty()) {
            throw InvalidResultException("result document violates result.schema.json: " + problems.joinToString("; "))
        }
        return json
    }

    /** Writes to a temporary file beside [out] and renames it, so a reader never sees half a result. */
    fun write(result: ResultDocument, out: File) {
        val json = validated(result)
        val dir = out.absoluteFile.parentFile
        dir.mkdirs()
        val tmp = File.createTempFile(".${out.name}.", ".tmp", dir)
        try {
            tmp.outputStream().buffered().use { mapper.writeValue(it, json) }
            Files.move(tmp.toPath(), out.toPath(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE)
        } finally {
            tmp.delete()
        }
    }
}
