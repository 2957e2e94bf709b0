package dev.latencylab.harness.android

import android.app.Activity
import android.content.Context
import android.os.Bundle
import dev.latencylab.harness.BlockRunner
import dev.latencylab.harness.engine.Engines
import dev.latencylab.harness.engine.Http3EngineProvider
import dev.latencylab.harness.job.JobReader
import dev.latencylab.harness.result.DeviceInfo
import dev.latencylab.harness.result.ResultWriter
import java.io.File
import java.io.PrintWriter
import java.io.StringWriter

/**
 * What one `am instrument -w -r -e job … -e out … <test package>/<BenchInstrumentation>` does
 * (the Instrumentation itself only hands over its arguments and its status channel):
 *
 *  - `job`: path of the job document the runner pushed (in the app's shell-readable media
 *    directory, /sdcard/Android/media/dev.latencylab.harness/…); a 20,000-request job never
 *    travels as an argument;
 *  - `out`: where to write the result document (default: result.json beside the job).
 *
 * It reads the job, runs the measurement core, writes the result (validated against the
 * contract) and reports the result's path so that the runner can `adb pull` it.
 *
 * The status bundles are those AndroidJUnitRunner's InstrumentationResultPrinter sends for one
 * test, because that is what `am instrument -r` output readers know (the runner's outcome.py,
 * ddmlib): status 1 when the job starts, 0 when its result is written, -2 with the `stack` when
 * it could not be run (no job argument, an invalid job, a result that broke the contract), and
 * the run finishes with Activity.RESULT_OK (-1) and a `stream` of "OK (1 test)" or "FAILURES!!!".
 * Status 2 carries the harness's own keys (`latencylab_*`), which those readers pass over.
 */
class BenchRun(
    private val context: Context,
    /** The phone's HTTP/3 engine (Cronet in the Gradle build); null in a build without one. */
    private val http3: Http3EngineProvider?,
    /** Where the harness runs, for the fingerprint's harness_version (e.g. "android"). */
    private val variant: String,
    private val progressEvery: Int = PROGRESS_EVERY,
) {
    /** Instrumentation.sendStatus. */
    fun interface Status {
        fun send(code: Int, bundle: Bundle)
    }

    /** What Instrumentation.finish gets. */
    class Finish(val resultCode: Int, val results: Bundle)

    fun run(arguments: Bundle, status: Status): Finish {
        status.send(STATUS_START, identity().apply { putString(KEY_STREAM, "\n$REPORTED_CLASS:") })
        return try {
            measure(arguments, status)
            status.send(STATUS_OK, identity().apply { putString(KEY_STREAM, ".") })
            Finish(Activity.RESULT_OK, Bundle().apply { putString(KEY_STREAM, "\n\nOK (1 test)\n\n") })
        } catch (e: Throwable) {
            // Reported, not thrown: an exception out of the instrumentation thread kills the
            // process, and the runner would see a crash instead of the reason.
            val stack = StringWriter().also { e.printStackTrace(PrintWriter(it)) }.toString()
            status.send(STATUS_FAILURE, identity().apply {
                putString(KEY_STACK, stack)
                putString(KEY_STREAM, "\nError in $REPORTED_METHOD($REPORTED_CLASS):\n$stack")
            })
            Finish(Activity.RESULT_OK, Bundle().apply { putString(KEY_STREAM, "\n\nFAILURES!!!\nTests run: 1,  Failures: 1\n\n") })
        }
    }

    private fun measure(arguments: Bundle, status: Status) {
        val jobFile = File(requireNotNull(arguments.getString(ARG_JOB)) { "instrumentation argument '$ARG_JOB' (path of the job document) is required" })
        val out = arguments.getString(ARG_OUT)?.let(::File) ?: File(jobFile.absoluteFile.parentFile, "result.json")
        val job = JobReader().read(jobFile)
        val device: DeviceInfo = AndroidDeviceInfo.read(context)
        // The state the phone was in as the block began, also where no result gets written.
        device.thermalStatus?.let { thermal -> status.send(STATUS_PROGRESS, Bundle().apply { putString(KEY_THERMAL_STATUS, thermal) }) }
        var reported = 0
        // Called after each request or concurrency group: report each time another progressEvery requests are done.
        val progress = { done: Int, total: Int ->
            if (done / progressEvery > reported / progressEvery && done < total) {
                reported = done
                status.send(STATUS_PROGRESS, Bundle().apply { putString(KEY_PROGRESS, "$done/$total") })
            }
        }
        val result = BlockRunner(Engines(http3), progress = progress).run(job, device, variant)
        ResultWriter().write(result, out)
        status.send(STATUS_PROGRESS, Bundle().apply {
            putString(KEY_RESULT, out.absolutePath)
            putString(KEY_SAMPLES, result.samples.size.toString())
        })
    }

    private fun identity() = Bundle().apply {
        putString(KEY_ID, REPORTER_ID)
        putString(KEY_CLASS, REPORTED_CLASS)
        putString(KEY_TEST, REPORTED_METHOD)
        putInt(KEY_NUM_TESTS, 1)
        putInt(KEY_CURRENT, 1)
    }

    companion object {
        const val ARG_JOB = "job"
        const val ARG_OUT = "out"

        // InstrumentationResultPrinter's codes: 1 start, 0 ok, -2 failure; 2 is free for progress.
        const val STATUS_START = 1
        const val STATUS_OK = 0
        const val STATUS_FAILURE = -2
        const val STATUS_PROGRESS = 2
        const val PROGRESS_EVERY = 1000

        // InstrumentationResultPrinter's keys (android.app.Instrumentation.REPORT_KEY_STREAMRESULT is "stream").
        const val KEY_ID = "id"
        const val KEY_CLASS = "class"
        const val KEY_TEST = "test"
        const val KEY_NUM_TESTS = "numtests"
        const val KEY_CURRENT = "current"
        const val KEY_STACK = "stack"
        const val KEY_STREAM = "stream"

        const val KEY_PROGRESS = "latencylab_progress"
        const val KEY_RESULT = "latencylab_result"
        const val KEY_SAMPLES = "latencylab_samples"
        const val KEY_THERMAL_STATUS = "latencylab_thermal_status"

        const val REPORTER_ID = "LatencyLabHarness"
        /** The instrumentation class the runner names (`<test package>/<this class>`). */
        const val REPORTED_CLASS = "dev.latencylab.harness.instrumentation.BenchInstrumentation"
        const val REPORTED_METHOD = "runJob"
    }
}
