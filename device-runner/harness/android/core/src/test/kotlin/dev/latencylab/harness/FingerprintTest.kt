package dev.latencylab.harness

import com.fasterxml.jackson.databind.ObjectMapper
import dev.latencylab.harness.contract.ContractSchemas
import dev.latencylab.harness.contract.violations
import dev.latencylab.harness.result.Fingerprint
import dev.latencylab.harness.result.ResultDocument
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.io.File

/** The fingerprint's optional thermal status: written exactly where the contract defines it. */
class FingerprintTest {
    private fun fingerprint(thermal: String?) = Fingerprint(
        TEST_DEVICE.copy(thermalStatus = thermal), "latencylab-harness test", "System.nanoTime", 1.0, mapOf("h2" to "okhttp 5"),
    )

    @Test
    fun `the bundled contract's fingerprint fields are the repository's`() {
        val repository = ObjectMapper().readTree(File(Repo.contract, "result.schema.json"))["\$defs"]["fingerprint"]["properties"]
        assertEquals(repository.fieldNames().asSequence().toSet(), ContractSchemas.bundledFingerprintFields)
    }

    @Test
    fun `a thermal status is written where the contract defines the key, and a result with it validates`() {
        val json = fingerprint("severe").toJson()
        val defined = Fingerprint.THERMAL_STATUS in ContractSchemas.bundledFingerprintFields
        assertEquals(if (defined) "severe" else null, json[Fingerprint.THERMAL_STATUS]?.asText())
        assertFalse(fingerprint(null).toJson().has(Fingerprint.THERMAL_STATUS), "an unknown status is left out")
        val result = ResultDocument("run", 0, 1, "ok", emptyList(), fingerprint("severe"))
        assertEquals(emptyList<String>(), Repo.schemas.result.violations(result.toJson()))
    }

    @Test
    fun `a thermal status longer than any platform's name is refused`() {
        assertThrows<IllegalArgumentException> { TEST_DEVICE.copy(thermalStatus = "x".repeat(17)) }
    }
}
