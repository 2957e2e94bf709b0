package dev.latencylab.harness

import com.fasterxml.jackson.databind.ObjectMapper
import com.networknt.schema.JsonSchema
import dev.latencylab.harness.contract.ContractSchemas
import dev.latencylab.harness.contract.violations
import dev.latencylab.harness.job.JobReader
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestFactory
import java.io.File

/** The contract's shared test vectors, judged by this harness's validator (every implementation validates them). */
class ContractExamplesTest {
    private val mapper = ObjectMapper()
    private val examples: List<File> = Repo.examples.listFiles { f -> f.name.endsWith(".json") }!!.sortedBy { it.name }

    private fun schemaFor(name: String): JsonSchema {
        val kind = name.removePrefix("invalid-").substringBefore('-')
        return when (kind) {
            "job" -> Repo.schemas.job
            "result" -> Repo.schemas.result
            "sample" -> Repo.schemas.sample
            else -> error("example $name: unknown kind '$kind'")
        }
    }

    @Test
    fun `there are valid and invalid examples of every kind to check`() {
        val names = examples.map { it.name }
        for (kind in listOf("job-", "result-", "sample-")) assertTrue(names.any { it.startsWith(kind) }, "no $kind example")
        assertTrue(names.any { it.startsWith("invalid-") }, "no invalid example")
    }

    @TestFactory
    fun `every valid example validates`() = examples.filterNot { it.name.startsWith("invalid-") }.map { file ->
        DynamicTest.dynamicTest(file.name) {
            val problems = schemaFor(file.name).violations(mapper.readTree(file))
            assertEquals(emptyList<String>(), problems, "${file.name} should be valid")
        }
    }

    @TestFactory
    fun `every invalid example is rejected`() = examples.filter { it.name.startsWith("invalid-") }.map { file ->
        DynamicTest.dynamicTest(file.name) {
            val problems = schemaFor(file.name).violations(mapper.readTree(file))
            assertFalse(problems.isEmpty(), "${file.name} must be rejected")
        }
    }

    @TestFactory
    fun `every job example is read by the job reader`() = examples.filter { it.name.startsWith("job-") }.map { file ->
        DynamicTest.dynamicTest(file.name) {
            val job = JobReader(Repo.schemas).read(file)
            assertEquals(mapper.readTree(file)["requests"].size(), job.requests.size)
            assertEquals(job.requests.sortedBy { it.seq }, job.requests)
        }
    }

    @Test
    fun `the result schema's reference to the sample schema resolves (a bad sample inside a result is rejected)`() {
        val result = mapper.readTree(File(Repo.examples, "result-series-ok.json")) as com.fasterxml.jackson.databind.node.ObjectNode
        (result["samples"][0] as com.fasterxml.jackson.databind.node.ObjectNode).put("error_class", "flaky")
        val problems = Repo.schemas.result.violations(result)
        assertTrue(problems.any { "samples[0].error_class" in it }, "expected a samples[0].error_class violation, got $problems")
    }

    @Test
    fun `the schemas bundled into the jar are the repository's files, unchanged`() {
        for (name in listOf("job.schema.json", "result.schema.json", "sample.schema.json")) {
            val bundled = javaClass.classLoader.getResourceAsStream(ContractSchemas.BUNDLED_PATH + name)!!.readBytes()
            assertTrue(bundled.contentEquals(File(Repo.contract, name).readBytes()), "$name: bundled copy differs from the repository's")
        }
        // And the bundled copies load and resolve their references too.
        val bundledSchemas = ContractSchemas.bundled()
        val example = mapper.readTree(File(Repo.examples, "result-series-ok.json"))
        assertEquals(emptyList<String>(), bundledSchemas.result.violations(example))
    }

    @Test
    fun `the harness version is the Maven project version`() {
        val pomVersion = System.getProperty("latencylab.harness.pom.version")
        assertEquals(pomVersion, HarnessInfo.VERSION, "HarnessInfo.VERSION must follow pom.xml <version>")
    }
}
