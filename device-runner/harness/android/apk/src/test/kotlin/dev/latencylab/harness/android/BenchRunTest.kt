package dev.latencylab.harness.android

import android.app.Activity
import android.content.Context
import android.os.Build
import android.os.Bundle
import android.os.PowerManager
import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.node.ObjectNode
import dev.latencylab.harness.JobBuilder
import dev.latencylab.harness.Repo
import dev.latencylab.harness.contract.violations
import dev.latencylab.harness.plainOrigin
import dev.latencylab.harness.tlsOrigin
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Rule
import org.junit.Test
import org.junit.rules.TemporaryFolder
import org.junit.runner.RunWith
import org.robolectric.RobolectricTestRunner
import org.robolectric.RuntimeEnvironment
import org.robolectric.Shadows.shadowOf
import org.robolectric.annotation.Config
import org.robolectric.annotation.ConscryptMode
import java.io.File

/**
 * The instrumentation's work on Android 10's framework (Robolectric): the arguments, the job
 * measured by the core against the real reference target, the status bundles the runner
 * reads, the result file. The h3 arm shows what this build holds: no HTTP/3 engine.
 */
@RunWith(RobolectricTestRunner::class)
@Config(sdk = [29])
// The JVM's TLS provider, not Robolectric's Conscrypt: with Conscrypt first, grpc-okhttp takes its
// Android path (it knows org.conscrypt.OpenSSLProvider as an Android provider) and the gRPC arm's
// handshake never completed (DEADLINE_EXCEEDED) — a mix no phone has (its Conscrypt is
// com.android.org.conscrypt). Whether gRPC handshakes through a phone's Conscrypt is for the first lab run.
@ConscryptMode(ConscryptMode.Mode.OFF)
class BenchRunTest {
    @get:Rule
    val tmp = TemporaryFolder()

    private val context: Context get() = RuntimeEnvironment.getApplication()
    private val mapper = ObjectMapper()

    private class Status(val code: Int, val bundle: Bundle)

    private class Ran(val statuses: List<Status>, val finish: BenchRun.Finish) {
        val codes get() = statuses.map { it.code }
        fun value(key: String): String? = statuses.firstNotNullOfOrNull { it.bundle.getString(key) }
        val stream: String get() = finish.results.getString(BenchRun.KEY_STREAM) ?: ""
    }

    private fun run(arguments: Bundle, progressEvery: Int = BenchRun.PROGRESS_EVERY): Ran {
        val statuses = ArrayList<Status>()
        val finish = BenchRun(context, PhoneEngines.http3(context), PhoneEngines.VARIANT, progressEvery)
            .run(arguments) { code, bundle -> statuses += Status(code, bundle) }
        return Ran(statuses, finish)
    }

    private fun writeJob(job: ObjectNode, name: String = "job.json"): File =
        File(tmp.root, name).also { mapper.writeValue(it, job) }

    private fun arguments(job: File?, out: File? = null) = Bundle().apply {
        job?.let { putString(BenchRun.ARG_JOB, it.path) }
        out?.let { putString(BenchRun.ARG_OUT, it.path) }
    }

    private fun JsonNode.text(field: String): String? = get(field)?.takeUnless { it.isNull }?.asText()

    @Test
    fun `a job is measured against the reference target and its result written where out says`() {
        shadowOf(context.getSystemService(PowerManager::class.java)).setCurrentThermalStatus(PowerManager.THERMAL_STATUS_MODERATE)
        val builder = JobBuilder(runId = "android-run")
        for (protocol in listOf("h1", "h2", "grpc")) {
            builder.arm(protocol, protocol, "warm", tlsOrigin())
                .request(protocol, "/bytes/0", phase = "warmup")
                .request(protocol, "/bytes/70000", op = "bytes", step = 0)
        }
        builder.arm("h3", "h3", "warm", tlsOrigin(), serverName = "target.latencylab.test").request("h3", "/bytes/1", op = "bytes", step = 0)
        val out = File(tmp.root, "pulled/result.json")

        val ran = run(arguments(writeJob(builder.json()), out))

        // Started, the thermal status, the result's path, passed: as AndroidJUnitRunner reports one test.
        assertEquals(listOf(1, 2, 2, 0), ran.codes)
        assertEquals(BenchRun.REPORTED_CLASS, ran.statuses[0].bundle.getString(BenchRun.KEY_CLASS))
        assertEquals("runJob", ran.statuses[0].bundle.getString(BenchRun.KEY_TEST))
        assertEquals("moderate", ran.value(BenchRun.KEY_THERMAL_STATUS))
        assertEquals(out.absolutePath, ran.value(BenchRun.KEY_RESULT))
        assertEquals("7", ran.value(BenchRun.KEY_SAMPLES))
        assertEquals(Activity.RESULT_OK, ran.finish.resultCode)
        assertTrue(ran.stream, "OK (1 test)" in ran.stream)

        val result = mapper.readTree(out)
        assertEquals(emptyList<String>(), Repo.schemas.result.violations(result))
        assertEquals("ok", result.text("status"))
        val samples = result["samples"].toList()
        val alpn = mapOf("h1" to "http/1.1", "h2" to "h2", "grpc" to "h2")
        samples.filter { it.text("arm") != "h3" }.forEach { s ->
            assertNull(s.toString(), s.text("error_class"))
            assertEquals(alpn[s.text("arm")], s.text("alpn"))
        }
        assertEquals(listOf(0L, 70_000L), samples.filter { it.text("arm") == "h2" }.map { it["resp_bytes"].asLong() })
        val h3 = samples.single { it.text("arm") == "h3" }
        assertEquals("other", h3.text("error_class"))
        assertTrue(h3.text("error_detail")!!, "Cronet" in h3.text("error_detail")!!)

        val fingerprint = result["fingerprint"]
        assertEquals("android", fingerprint.text("platform"))
        assertEquals(Build.MODEL, fingerprint.text("model"))
        assertEquals("10", fingerprint.text("os_version"))
        assertTrue(fingerprint.text("harness_version")!!, "without Gradle" in fingerprint.text("harness_version")!!)
        assertTrue(fingerprint["client_stacks"].toString(), fingerprint["client_stacks"].text("h3")!!.startsWith("none"))
        assertTrue(fingerprint["client_stacks"].toString(), fingerprint["client_stacks"].text("h2")!!.startsWith("okhttp 5."))
        // PowerManager's status, in the fingerprint and in the status bundle.
        assertEquals("moderate", fingerprint.text("thermal_status"))
    }

    @Test
    fun `without out the result is written beside the job, and progress is reported as requests complete`() {
        val builder = JobBuilder().arm("c", "h1c", "warm", plainOrigin(), ca = false)
        repeat(5) { builder.request("c", "/healthz") }
        val job = writeJob(builder.json())

        val ran = run(arguments(job), progressEvery = 2)

        val beside = File(tmp.root, "result.json")
        assertEquals(beside.absolutePath, ran.value(BenchRun.KEY_RESULT))
        assertEquals(5, mapper.readTree(beside)["samples"].size())
        assertEquals(listOf("2/5", "4/5"), ran.statuses.mapNotNull { it.bundle.getString(BenchRun.KEY_PROGRESS) })
        assertEquals(0, ran.codes.last())
    }

    @Test
    fun `no job argument is a failure status naming the argument, and nothing is measured`() {
        val ran = run(arguments(job = null))

        assertEquals(listOf(1, -2), ran.codes)
        val stack = ran.statuses[1].bundle.getString(BenchRun.KEY_STACK)!!
        assertTrue(stack, stack.lineSequence().first().contains("instrumentation argument 'job'"))
        assertEquals(Activity.RESULT_OK, ran.finish.resultCode)
        assertTrue(ran.stream, "FAILURES!!!" in ran.stream)
    }

    @Test
    fun `an invalid job fails with the reader's message and writes no result`() {
        val job = writeJob(mapper.createObjectNode().put("contract", "latencylab.job/v1"))
        val out = File(tmp.root, "result.json")

        val ran = run(arguments(job, out))

        assertEquals(listOf(1, -2), ran.codes)
        val first = ran.statuses[1].bundle.getString(BenchRun.KEY_STACK)!!.lineSequence().first()
        assertTrue(first, first.startsWith("dev.latencylab.harness.job.InvalidJobException"))
        assertFalse(out.exists())
        assertNull(ran.value(BenchRun.KEY_RESULT))
    }
}
