package dev.latencylab.harness.instrumentation

import android.app.Instrumentation
import android.os.Bundle
import dev.latencylab.harness.android.BenchRun
import dev.latencylab.harness.android.PhoneEngines

/**
 * The harness's instrumentation: the runner starts it with
 * `am instrument -w -r -e job … -e out … dev.latencylab.harness.test/dev.latencylab.harness.instrumentation.BenchInstrumentation`.
 *
 * A plain android.app.Instrumentation rather than AndroidJUnitRunner: there is one job to run,
 * not a test suite, and the APKs built without Gradle (harness/android/apk) cannot fetch
 * AndroidX Test. It runs in the harness app's process (the test APK instruments
 * dev.latencylab.harness), so it uses the app's classes; BenchRun does the work and reports
 * in the status protocol AndroidJUnitRunner uses. Open so that a test can catch what it
 * hands to the system (sendStatus, finish).
 */
open class BenchInstrumentation : Instrumentation() {
    private var arguments: Bundle = Bundle()

    override fun onCreate(arguments: Bundle?) {
        super.onCreate(arguments)
        this.arguments = arguments ?: Bundle()
        start() // onStart on the instrumentation's own thread, as the platform expects
    }

    override fun onStart() {
        super.onStart()
        val context = targetContext
        val outcome = BenchRun(context, PhoneEngines.http3(context), PhoneEngines.VARIANT)
            .run(arguments) { code, bundle -> sendStatus(code, bundle) }
        finish(outcome.resultCode, outcome.results)
    }
}
