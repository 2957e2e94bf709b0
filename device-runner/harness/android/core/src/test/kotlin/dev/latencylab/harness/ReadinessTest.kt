package dev.latencylab.harness

import com.fasterxml.jackson.databind.ObjectMapper
import dev.latencylab.harness.contract.violations
import dev.latencylab.harness.engine.Engines
import dev.latencylab.harness.job.InvalidJobException
import dev.latencylab.harness.job.JobReader
import dev.latencylab.harness.job.Origin
import dev.latencylab.harness.jvm.Cli
import dev.latencylab.harness.jvm.KwikHttp3Provider
import dev.latencylab.harness.readiness.Cidr
import dev.latencylab.harness.readiness.LinkDescription
import dev.latencylab.harness.readiness.LinkInspector
import dev.latencylab.harness.readiness.ReadinessCheck
import dev.latencylab.harness.readiness.ReadinessRequest
import dev.latencylab.harness.result.DeviceInfo
import dev.latencylab.harness.result.Fingerprint
import dev.latencylab.harness.result.ResultWriter
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNotNull
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.io.ByteArrayOutputStream
import java.io.File
import java.io.PrintStream
import java.net.InetAddress

/**
 * Readiness from the phone (job/result `readiness`), the phone's own thermal status in the
 * fingerprint, and each sample's block-relative monotonic issue time (`issued_mono_us`),
 * against the real reference target. The runner judges the reported address again itself
 * (device-runner/runner/tests/test_readiness.py); these check the harness's half.
 */
class ReadinessTest {
    private val mapper = ObjectMapper()

    @Test
    fun `a job with a readiness check reports interface, address and round trip, then measures`() {
        val job = JobBuilder().arm("c", "h1c", "warm", plainOrigin())
            .request("c", "/healthz").request("c", "/bytes/10")
            .readiness(plainOrigin(), listOf("127.0.0.0/8", "fd00:1ab::/64")).build()
        val (result, json) = runJob(job)
        assertEquals("ok", result.status)
        val readiness = json["readiness"]
        assertEquals(plainOrigin(), readiness["origin"].asText())
        assertEquals("loopback", readiness["interface"].asText())
        assertEquals("127.0.0.1", readiness["local_address"].asText())
        assertEquals(200, readiness["http_status"].asInt())
        assertTrue(readiness["on_lab_network"].asBoolean())
        assertTrue(readiness["rtt_ms"].asDouble() >= 0.0)
        assertTrue(readiness["error"].isNull)
        assertEquals(2, json["samples"].size())
    }

    @Test
    fun `off the lab network the block is refused and measures nothing`() {
        val job = JobBuilder().arm("c", "h1c", "warm", plainOrigin()).request("c", "/healthz")
            .readiness(plainOrigin(), listOf("198.19.0.0/24")).build()
        val (result, json) = runJob(job) // validated against result.schema.json
        assertEquals("not_ready", result.status)
        assertEquals(0, json["samples"].size())
        assertFalse(json["readiness"]["on_lab_network"].asBoolean())
        val expected = "not on the lab network: local address 127.0.0.1 (loopback) is in none of 198.19.0.0/24"
        assertEquals(expected, json["error"].asText())
        assertEquals(expected, json["readiness"]["error"].asText())
    }

    @Test
    fun `a target that does not answer refuses the block`() {
        val job = JobBuilder().arm("c", "h1c", "warm", plainOrigin()).request("c", "/healthz")
            .readiness("http://127.0.0.1:${unusedPort()}").build()
        val (result, json) = runJob(job)
        assertEquals("not_ready", result.status)
        assertTrue(json["readiness"]["local_address"].isNull)
        assertTrue(json["readiness"]["on_lab_network"].isNull) // no networks named: nothing judged
        assertTrue(json["error"].asText().startsWith("ConnectException"), json["error"].asText())
    }

    @Test
    fun `the platform says which network the connection left on`() {
        val wifi = LinkInspector { LinkDescription("wifi", "wlan0") }
        val job = JobBuilder().arm("c", "h1c", "warm", plainOrigin()).request("c", "/healthz").readiness(plainOrigin()).build()
        val result = BlockRunner(Engines(KwikHttp3Provider), links = wifi).run(job, TEST_DEVICE, "jvm-test")
        val json = ResultWriter(Repo.schemas).validated(result)
        assertEquals("wifi", json["readiness"]["interface"].asText())
        assertEquals("wlan0", json["readiness"]["interface_name"].asText())
        assertThrows(IllegalArgumentException::class.java) { LinkDescription("bluetooth", "bt0") }
    }

    @Test
    fun `the check runs on its own connection, not the block's`() {
        val report = ReadinessCheck().run(ReadinessRequest(Origin.parse(plainOrigin())!!))
        assertNull(report.error, report.toString())
        val job = JobBuilder().arm("c", "h1c", "warm", plainOrigin()).request("c", "/healthz").readiness(plainOrigin()).build()
        val (_, json) = runJob(job)
        assertTrue(json["samples"][0]["conn_reused"].asBoolean().not(), "the block's first request opens its own connection")
    }

    @Test
    fun `address ranges are parsed without lookups and match by prefix`() {
        val v4 = Cidr.parse("198.19.0.0/24")!!
        assertTrue(InetAddress.getByName("198.19.0.23") in v4)
        assertFalse(InetAddress.getByName("198.19.1.23") in v4)
        assertFalse(InetAddress.getByName("fd00:1ab::1") in v4)
        val v6 = Cidr.parse("fd00:1ab::/64")!!
        assertTrue(InetAddress.getByName("fd00:1ab::17") in v6)
        assertFalse(InetAddress.getByName("fd00:1ac::17") in v6)
        assertTrue(InetAddress.getByName("10.1.2.3") in Cidr.parse("0.0.0.0/0")!!)
        for (bad in listOf("lab-wifi", "198.19.0.0", "198.19.0.0/33", "fd00::/129", "wifi.lab/24", "/24")) {
            assertNull(Cidr.parse(bad), bad)
        }
    }

    @Test
    fun `a lab network the schema lets through but that is no range is refused naming the field`() {
        val doc = JobBuilder().arm("c", "h1c", "warm", plainOrigin()).request("c", "/healthz")
            .readiness(plainOrigin(), listOf("198.19.0.0/24", "198.19.0.0/40")).json()
        val e = assertThrows(InvalidJobException::class.java) { JobReader(Repo.schemas).fromTree(doc) }
        assertTrue("$.readiness.lab_networks[1]" in e.message!!, e.message)
    }

    @Test
    fun `samples carry their issue time since the block began on the monotonic clock`() {
        val job = JobBuilder().arm("h2", "h2", "warm", tlsOrigin(), serverName = "localhost")
            .request("h2", "/bytes/10", phase = "warmup")
            .request("h2", "/delay/20", group = 1, step = 0).request("h2", "/delay/20", group = 1, step = 1)
            .request("h2", "/delay/20", group = 1, step = 2)
            .request("h2", "/bytes/10", step = 3).build()
        val (_, json) = runJob(job)
        val issued = json["samples"].map { it["issued_mono_us"].asLong() }
        json["samples"].forEach { assertTrue(it["error_class"].isNull, it.toString()) }
        assertTrue(issued.all { it >= 0 }, issued.toString())
        // The warm-up first, the group after it, the last request after the whole group completed.
        assertTrue(issued[0] <= issued.subList(1, 4).min(), issued.toString())
        val groupDone = (1..3).maxOf { i -> issued[i] + json["samples"][i]["app_done"].asLong() }
        assertTrue(issued[4] >= groupDone, "issued $issued, group done at $groupDone µs")
    }

    @Test
    fun `the thermal status is the platform's own name, or refused`() {
        val android = TEST_DEVICE.copy(thermalStatus = "severe")
        assertEquals("severe", Fingerprint(android, "v", "System.nanoTime", 1.0, emptyMap()).toJson()["thermal_status"].asText())
        assertEquals("moderate", DeviceInfo.androidThermalStatus(2))
        assertNull(DeviceInfo.androidThermalStatus(7))
        assertThrows(IllegalArgumentException::class.java) { TEST_DEVICE.copy(thermalStatus = "serious") }
        assertThrows(IllegalArgumentException::class.java) { TEST_DEVICE.copy(platform = "host", thermalStatus = "none") }
        val iphone = DeviceInfo("ios", "iPhone16,1", "18.1", thermalStatus = "serious")
        assertEquals("serious", Fingerprint(iphone, "v", "mach", 1.0, emptyMap()).toJson()["thermal_status"].asText())
    }

    @Test
    fun `the command line takes the thermal status into the fingerprint`(@TempDir dir: File) {
        val job = File(dir, "job.json")
        mapper.writeValue(job, JobBuilder().arm("c", "h1c", "warm", plainOrigin()).request("c", "/healthz")
            .readiness(plainOrigin()).json())
        val out = File(dir, "result.json")
        val err = ByteArrayOutputStream()
        val code = Cli(PrintStream(ByteArrayOutputStream(), true), PrintStream(err, true)).run(arrayOf(
            "--job", job.path, "--out", out.path, "--platform", "ios", "--thermal-status", "fair"))
        assertEquals(0, code, err.toString())
        val result = mapper.readTree(out)
        assertEquals(emptyList<String>(), Repo.schemas.result.violations(result))
        assertEquals("fair", result["fingerprint"]["thermal_status"].asText())
        assertNotNull(result["readiness"])
        val bad = Cli(PrintStream(ByteArrayOutputStream(), true), PrintStream(err, true)).run(arrayOf(
            "--job", job.path, "--out", out.path, "--platform", "android", "--thermal-status", "fair"))
        assertEquals(Cli.EXIT_USAGE, bad)
        assertTrue("thermal status on android must be one of none|light" in err.toString(), err.toString())
    }
}
