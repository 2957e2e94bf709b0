package dev.latencylab.harness.contract

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.ObjectMapper
import com.networknt.schema.JsonSchema
import com.networknt.schema.JsonSchemaFactory
import com.networknt.schema.SchemaLocation
import com.networknt.schema.SpecVersion
import java.io.File

/**
 * The wire contract's JSON Schemas (the `*.schema.json` files in device-runner/contract), loaded with a
 * standard draft 2020-12 validator.
 *
 * The schemas name each other by their `$id` under [CONTRACT_ID_PREFIX] (result.schema.json
 * refers to `sample.schema.json` relative to its own id); that prefix is mapped to wherever
 * the schema files are: the copies bundled into the jar at build time (the default), or the
 * repository's contract directory (tests read the one source of truth directly).
 */
class ContractSchemas private constructor(base: String) {
    private val factory: JsonSchemaFactory = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012) { builder ->
        builder.schemaMappers { mappers -> mappers.mapPrefix(CONTRACT_ID_PREFIX, base) }
    }

    val job: JsonSchema by lazy { load("job.schema.json") }
    val result: JsonSchema by lazy { load("result.schema.json") }
    val sample: JsonSchema by lazy { load("sample.schema.json") }

    private fun load(name: String): JsonSchema = factory.getSchema(SchemaLocation.of(CONTRACT_ID_PREFIX + name))

    companion object {
        const val CONTRACT_ID_PREFIX = "https://latencylab.dev/contract/v1/"
        const val BUNDLED_PATH = "dev/latencylab/harness/contract/"

        /** The copies the build put on the classpath (see pom.xml `<resources>`). */
        fun bundled(): ContractSchemas = ContractSchemas("classpath:$BUNDLED_PATH")

        /**
         * The fingerprint fields the bundled result schema defines. Optional fields arrive with
         * newer contracts; a writer leaves out those its own contract does not know yet.
         */
        val bundledFingerprintFields: Set<String> by lazy {
            val stream = ContractSchemas::class.java.classLoader.getResourceAsStream(BUNDLED_PATH + "result.schema.json")
                ?: error("no ${BUNDLED_PATH}result.schema.json on the classpath")
            stream.use { ObjectMapper().readTree(it).path("\$defs").path("fingerprint").path("properties").fieldNames().asSequence().toSet() }
        }

        /** The schema files in a contract directory, e.g. the repository's device-runner/contract. */
        fun fromDirectory(dir: File): ContractSchemas {
            require(File(dir, "result.schema.json").isFile) { "no result.schema.json in contract directory $dir" }
            return ContractSchemas(dir.absoluteFile.toURI().toString().trimEnd('/') + "/")
        }
    }
}

/** Every violation as `<json path>: <what is wrong>`, sorted so that messages are stable; empty when valid. */
fun JsonSchema.violations(document: JsonNode, limit: Int = 20): List<String> =
    validate(document).map { it.message }.sorted().take(limit)
