package dev.latencylab.harness

/** The harness's own version (kept equal to the Maven project version; a test checks it). */
object HarnessInfo {
    const val VERSION = "0.1.0"

    /** `harness_version` in the fingerprint: the core's version and where it runs, e.g. "0.1.0 (android)". */
    fun describe(variant: String): String = "latencylab-harness $VERSION ($variant)"
}
