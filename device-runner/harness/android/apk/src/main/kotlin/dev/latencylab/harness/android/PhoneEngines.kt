package dev.latencylab.harness.android

import android.content.Context
import dev.latencylab.harness.engine.Http3EngineProvider

/**
 * The engines of the APKs built without Gradle (this module): no HTTP/3 engine, because
 * Cronet comes only from Google's Maven repository. An h3 arm then gets error samples that
 * say so, and the fingerprint's client_stacks name "none" for h3; the variant in
 * harness_version and the app's `dev.latencylab.harness.engines` meta-data say the same.
 * The Gradle build a lab runs uses ../app/…/PhoneEngines.kt (Cronet) instead of this file.
 */
object PhoneEngines {
    const val VARIANT = "android, built without Gradle: no Cronet"

    @Suppress("UNUSED_PARAMETER")
    fun http3(context: Context): Http3EngineProvider? = null
}
