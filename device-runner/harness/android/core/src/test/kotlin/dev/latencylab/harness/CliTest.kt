package dev.latencylab.harness

import com.fasterxml.jackson.core.JsonEncoding
import com.fasterxml.jackson.databind.ObjectMapper
import dev.latencylab.harness.contract.violations
import dev.latencylab.harness.jvm.Cli
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.io.ByteArrayOutputStream
import java.io.File
import java.io.PrintStream

/** The command line the lab's fakes (standing in for fastlane and a phone) run: `java -jar harness-core.jar …`. */
class CliTest {
    private val mapper = ObjectMapper()

    private class Run(val code: Int, val out: String, val err: String)

    private fun cli(vararg args: String): Run {
        val out = ByteArrayOutputStream()
        val err = ByteArrayOutputStream()
        val code = Cli(PrintStream(out, true), PrintStream(err, true)).run(arrayOf(*args))
        return Run(code, out.toString(), err.toString())
    }

    @Test
    fun `a job runs and its result is written with the device options in the fingerprint`(@TempDir dir: File) {
        val job = File(dir, "job.json")
        mapper.writeValue(job, JobBuilder(runId = "cli-run").arm("h2", "h2", "warm", tlsOrigin()).arm("g", "grpc", "warm", tlsOrigin())
            .request("h2", "/bytes/10").request("g", "/bytes/10").json())
        val out = File(dir, "out/result.json")
        val run = cli("--job", job.path, "--out", out.path, "--platform", "android", "--model", "Pixel 8", "--os-version", "14",
            "--radio", "wifi", "--battery", "87", "--charging", "true", "--temperature", "31.5")
        assertEquals(0, run.code, run.err)
        assertTrue("2 samples (0 failed)" in run.err, run.err)
        val result = mapper.readTree(out)
        assertEquals(emptyList<String>(), Repo.schemas.result.violations(result))
        assertEquals("cli-run", result["run_id"].asText())
        assertEquals("ok", result["status"].asText())
        val fp = result["fingerprint"]
        assertEquals("android", fp["platform"].asText())
        assertEquals("Pixel 8", fp["model"].asText())
        assertEquals("14", fp["os_version"].asText())
        assertEquals("wifi", fp["radio"].asText())
        assertEquals(87.0, fp["battery"].asDouble())
        assertTrue(fp["charging"].asBoolean())
        assertEquals(31.5, fp["temperature"].asDouble())
        assertEquals("System.nanoTime", fp["clock_source"].asText())
        assertTrue(fp["clock_resolution_us"].asDouble() > 0)
        assertEquals(setOf("h2", "grpc"), fp["client_stacks"].fieldNames().asSequence().toSet())
        assertTrue(fp["client_stacks"]["h2"].asText().startsWith("okhttp 5."), fp.toString())
        assertTrue(fp["client_stacks"]["grpc"].asText().startsWith("grpc-java 1."), fp.toString())
        assertTrue(fp["harness_version"].asText().startsWith("latencylab-harness ${HarnessInfo.VERSION}"))
        result["samples"].forEach { assertNull(it["error_class"].takeUnless { n -> n.isNull }, it.toString()) }
        assertFalse(dir.walk().any { it.name.endsWith(".tmp") }, "no temporary file is left behind")
    }

    @Test
    fun `an invalid job exits 3 naming the field, and writes nothing`(@TempDir dir: File) {
        val job = File(dir, "job.json")
        val doc = JobBuilder().arm("a", "h2", "warm", tlsOrigin()).request("a", "/bytes/1").json()
        doc.put("timeout_ms", 5)
        mapper.writeValue(job, doc)
        val out = File(dir, "result.json")
        val run = cli("--job", job.path, "--out", out.path)
        assertEquals(Cli.EXIT_BAD_JOB, run.code)
        assertTrue("timeout_ms" in run.err, run.err)
        assertFalse(out.exists())

        val missing = cli("--job", File(dir, "none.json").path, "--out", out.path)
        assertEquals(Cli.EXIT_BAD_JOB, missing.code)
        assertTrue("does not exist" in missing.err, missing.err)
    }

    @Test
    fun `bad options exit 2 with the allowed range`(@TempDir dir: File) {
        assertEquals(Cli.EXIT_USAGE, cli("--out", "x.json").code)
        val battery = cli("--job", "j.json", "--out", "r.json", "--battery", "140")
        assertEquals(Cli.EXIT_USAGE, battery.code)
        assertTrue("--battery must be a number in 0.0..100.0, got '140'" in battery.err, battery.err)
        val platform = cli("--job", "j.json", "--out", "r.json", "--platform", "windows")
        assertEquals(Cli.EXIT_USAGE, platform.code)
        assertTrue("platform must be one of host|android|ios" in platform.err, platform.err)
        assertEquals(Cli.EXIT_USAGE, cli("--job", "j.json", "--out", "r.json", "--charging", "maybe").code)
        assertEquals(Cli.EXIT_USAGE, cli("--job", "j.json", "--out", "r.json", "--frobnicate", "1").code)
        assertEquals(0, cli("--help").code)
        assertFalse(File(dir, "r.json").exists())
    }

    /**
     * The contract's largest block, measured for real: 20,000 requests from a job file,
     * executed against the reference target on loopback (cleartext h1c, warm, a 2-byte
     * `/healthz` answer, to keep the run short), 20,000 samples validated and written.
     */
    @Test
    fun `a 20,000-request job is read, measured and answered in full`(@TempDir dir: File) {
        val job = File(dir, "big.json")
        mapper.factory.createGenerator(job, JsonEncoding.UTF8).use { g ->
            g.writeStartObject()
            g.writeStringField("contract", "latencylab.job/v1")
            g.writeStringField("run_id", "big")
            g.writeNumberField("block", 3)
            g.writeNumberField("attempt", 1)
            g.writeNumberField("timeout_ms", 10_000)
            g.writeArrayFieldStart("arms")
            g.writeStartObject()
            g.writeStringField("label", "h1c")
            g.writeStringField("protocol", "h1c")
            g.writeStringField("connection", "warm")
            g.writeStringField("origin", plainOrigin())
            g.writeEndObject()
            g.writeEndArray()
            g.writeArrayFieldStart("requests")
            for (seq in 0 until 20_000) {
                g.writeStartObject()
                g.writeNumberField("seq", seq)
                g.writeStringField("arm", "h1c")
                g.writeStringField("phase", if (seq == 0) "warmup" else "measure")
                g.writeStringField("op", "get")
                g.writeStringField("method", "GET")
                g.writeStringField("path", "/healthz")
                g.writeNumberField("repetition", seq)
                g.writeEndObject()
            }
            g.writeEndArray()
            g.writeEndObject()
        }
        val out = File(dir, "big-result.json")
        val run = cli("--job", job.path, "--out", out.path)
        assertEquals(0, run.code, run.err)
        val result = mapper.readTree(out)
        val samples = result["samples"]
        assertEquals(20_000, samples.size())
        assertEquals((0 until 20_000).toList(), samples.map { it["seq"].asInt() })
        assertTrue(samples.all { it["error_class"].isNull && it["resp_bytes"].asLong() == 3L && it["block"].asInt() == 3 })
        assertEquals(1, samples.count { !it["conn_reused"].asBoolean() }, "one warm connection carried the whole block")
    }
}
