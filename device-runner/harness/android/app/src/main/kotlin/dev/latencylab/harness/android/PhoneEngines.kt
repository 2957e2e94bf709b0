package dev.latencylab.harness.android

import android.content.Context
import dev.latencylab.harness.engine.Http3EngineProvider

/**
 * The engines of the Gradle build a lab runs (app/build.gradle.kts): Cronet for HTTP/3.
 * The APKs built without Gradle (../apk) replace this file with one that has no HTTP/3
 * engine, since Cronet comes only from Google's Maven repository.
 */
object PhoneEngines {
    const val VARIANT = "android"

    fun http3(context: Context): Http3EngineProvider? = CronetHttp3Provider(context)
}
