package dev.latencylab.harness

import com.fasterxml.jackson.databind.JsonNode
import dev.latencylab.harness.measure.Phase
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNotNull
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.fail

/** Reads a sample's field as Long?, failing the test on anything but an integer or null. */
fun JsonNode.us(field: String): Long? {
    val v = get(field) ?: fail("sample has no field $field: $this")
    if (v.isNull) return null
    assertTrue(v.isIntegralNumber, "$field must be an integer, got $v")
    return v.asLong()
}

fun JsonNode.text(field: String): String? = get(field)?.takeUnless { it.isNull }?.asText()

fun JsonNode.bool(field: String): Boolean? = get(field)?.takeUnless { it.isNull }?.asBoolean()

/** Every phase that happened is in the contract's order (t0 = 0 ≤ … ≤ app_done). */
fun assertPhasesInOrder(sample: JsonNode) {
    assertEquals(0L, sample.us("t0"))
    var last = 0L
    var lastName = "t0"
    for (phase in Phase.entries) {
        val value = sample.us(phase.field) ?: continue
        assertTrue(value >= last, "${phase.field}=$value before $lastName=$last in $sample")
        last = value
        lastName = phase.field
    }
    assertNotNull(sample.us("app_done"), "app_done is always set")
}

/** A request that opened its own connection: every connection phase happened. */
fun assertOpenedConnection(sample: JsonNode, tls: Boolean = true) {
    assertEquals(false, sample.bool("conn_reused"), "conn_reused in $sample")
    assertNotNull(sample.us("conn_start"), "conn_start in $sample")
    assertNotNull(sample.us("conn_ready"), "conn_ready in $sample")
    if (tls) assertNotNull(sample.us("tls_start"), "tls_start in $sample") else assertNull(sample.us("tls_start"), "tls_start in $sample")
}

/** A request on a connection opened before it: no connection phase, null rather than 0. */
fun assertReusedConnection(sample: JsonNode) {
    assertEquals(true, sample.bool("conn_reused"), "conn_reused in $sample")
    for (field in listOf("dns_start", "dns_end", "conn_start", "tls_start", "conn_ready")) {
        assertNull(sample.us(field), "$field must be null on a reused connection: $sample")
    }
}

/** A successful exchange: no error, status 200, every request/response phase present. */
fun assertOk(sample: JsonNode) {
    assertNull(sample.text("error_class"), "unexpected error: ${sample.text("error_class")} ${sample.text("error_detail")}")
    assertEquals(200, sample["status"].asInt(), "status in $sample")
    for (phase in listOf(Phase.REQ_START, Phase.REQ_END, Phase.RESP_FIRST_BYTE, Phase.RESP_HEADERS_END, Phase.RESP_END)) {
        assertNotNull(sample.us(phase.field), "${phase.field} in $sample")
    }
    assertNotNull(sample.us("server_time_us"), "server_time_us from Server-Timing in $sample")
    assertPhasesInOrder(sample)
}

fun assertFailed(sample: JsonNode, errorClass: String) {
    assertEquals(errorClass, sample.text("error_class"), "error_class in $sample")
    assertFalse(sample.text("error_detail").isNullOrBlank(), "error_detail in $sample")
    assertPhasesInOrder(sample)
}

fun JsonNode.samples(): List<JsonNode> = get("samples").toList()
