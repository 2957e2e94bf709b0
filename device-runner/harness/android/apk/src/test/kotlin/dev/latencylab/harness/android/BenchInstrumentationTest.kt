package dev.latencylab.harness.android

import android.app.Activity
import android.content.Context
import android.os.Bundle
import dev.latencylab.harness.JobBuilder
import dev.latencylab.harness.instrumentation.BenchInstrumentation
import dev.latencylab.harness.plainOrigin
import com.fasterxml.jackson.databind.ObjectMapper
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Rule
import org.junit.Test
import org.junit.rules.TemporaryFolder
import org.junit.runner.RunWith
import org.robolectric.RobolectricTestRunner
import org.robolectric.RuntimeEnvironment
import org.robolectric.annotation.Config
import java.io.File
import java.util.Collections
import java.util.concurrent.CompletableFuture

/**
 * The instrumentation as the system drives it: onCreate with `am instrument`'s arguments, then
 * start(), whose thread runs onStart. What it hands to the system (sendStatus, finish, which
 * on a phone go to ActivityThread and on to `am instrument`) is caught here, and its target
 * context is Robolectric's application.
 */
@RunWith(RobolectricTestRunner::class)
@Config(sdk = [29])
class BenchInstrumentationTest {
    @get:Rule
    val tmp = TemporaryFolder()

    private class Caught(private val target: Context) : BenchInstrumentation() {
        val statuses: MutableList<Int> = Collections.synchronizedList(ArrayList())
        val finished = CompletableFuture<Pair<Int, Bundle>>()

        override fun getTargetContext(): Context = target
        override fun sendStatus(resultCode: Int, results: Bundle) {
            statuses += resultCode
        }
        override fun finish(resultCode: Int, results: Bundle) {
            finished.complete(resultCode to results)
        }
    }

    @Test
    fun `onCreate starts the job on the instrumentation's thread and finishes with its outcome`() {
        val builder = JobBuilder().arm("c", "h1c", "warm", plainOrigin(), ca = false).request("c", "/healthz")
        val job = File(tmp.root, "job.json").also { ObjectMapper().writeValue(it, builder.json()) }
        val instrumentation = Caught(RuntimeEnvironment.getApplication())

        instrumentation.onCreate(Bundle().apply { putString(BenchRun.ARG_JOB, job.path) })
        val (code, results) = instrumentation.finished.get()

        assertEquals(Activity.RESULT_OK, code)
        assertTrue(results.getString(BenchRun.KEY_STREAM)!!, "OK (1 test)" in results.getString(BenchRun.KEY_STREAM)!!)
        assertEquals(listOf(1, 2, 2, 0), instrumentation.statuses.toList())
        assertEquals(1, ObjectMapper().readTree(File(tmp.root, "result.json"))["samples"].size())
    }

    @Test
    fun `the class the status bundles name is the instrumentation's own`() {
        assertEquals(BenchInstrumentation::class.java.name, BenchRun.REPORTED_CLASS)
    }
}
