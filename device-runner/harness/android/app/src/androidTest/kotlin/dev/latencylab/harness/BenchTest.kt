package dev.latencylab.harness

import android.os.Bundle
import androidx.test.ext.junit.runners.AndroidJUnit4
import androidx.test.platform.app.InstrumentationRegistry
import dev.latencylab.harness.android.AndroidDeviceInfo
import dev.latencylab.harness.android.CronetHttp3Provider
import dev.latencylab.harness.engine.Engines
import dev.latencylab.harness.job.JobReader
import dev.latencylab.harness.result.ResultWriter
import org.junit.Test
import org.junit.runner.RunWith
import java.io.File

/**
 * The instrumentation test the runner starts (fastlane android bench →
 * `am instrument -w -r -e job … -e out … dev.latencylab.harness.test/androidx.test.runner.AndroidJUnitRunner`):
 *
 *  - `job`: path of the job document the runner pushed (in the app's shell-readable media
 *    directory, /sdcard/Android/media/dev.latencylab.harness/…); a 20,000-request job never
 *    travels as an argument;
 *  - `out`: where to write the result document (default: result.json beside the job).
 *
 * It runs the measurement core on the job and writes the result; then it reports the result's
 * path in an instrumentation status bundle (key `latencylab_result`) so the runner can
 * `adb pull` it. An unreadable job fails the test with the reader's message.
 */
@RunWith(AndroidJUnit4::class)
class BenchTest {
    @Test
    fun runJob() {
        val instrumentation = InstrumentationRegistry.getInstrumentation()
        val args = InstrumentationRegistry.getArguments()
        val context = instrumentation.targetContext
        val jobFile = File(requireNotNull(args.getString(ARG_JOB)) { "instrumentation argument '$ARG_JOB' (path of the job document) is required" })
        val out = args.getString(ARG_OUT)?.let(::File) ?: File(jobFile.parentFile, "result.json")

        val job = JobReader().read(jobFile)
        var reported = 0
        // Called after each request or concurrency group: report each time another PROGRESS_EVERY requests are done.
        val progress = { done: Int, total: Int ->
            if (done / PROGRESS_EVERY > reported / PROGRESS_EVERY && done < total) {
                reported = done
                instrumentation.sendStatus(STATUS_PROGRESS, Bundle().apply { putString("latencylab_progress", "$done/$total") })
            }
        }
        val result = BlockRunner(Engines(CronetHttp3Provider(context)), progress = progress)
            .run(job, AndroidDeviceInfo.read(context), "android")
        ResultWriter().write(result, out)

        instrumentation.sendStatus(STATUS_PROGRESS, Bundle().apply {
            putString("latencylab_result", out.absolutePath)
            putString("latencylab_samples", result.samples.size.toString())
        })
    }

    companion object {
        // Not among the keys AndroidJUnitRunner interprets itself (class, package, size, …).
        const val ARG_JOB = "job"
        const val ARG_OUT = "out"
        // 2 = "in progress" status (ddmlib treats it as custom metrics); 1/0/-2 belong to the runner.
        const val STATUS_PROGRESS = 2
        const val PROGRESS_EVERY = 1000
    }
}
