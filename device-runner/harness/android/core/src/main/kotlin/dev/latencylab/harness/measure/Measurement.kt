package dev.latencylab.harness.measure

/** The contract's error classes (sample.schema.json `error_class`). */
enum class ErrorClass(val wire: String) {
    DNS("dns"), CONNECT("connect"), TLS("tls"), TIMEOUT("timeout"),
    PROTOCOL_MISMATCH("protocol_mismatch"), HTTP("http"), RESET("reset"), OTHER("other"),
}

/**
 * What an engine observed for one request: its timeline plus the connection and response
 * context. Fields stay null when the library did not report them; nothing is filled in.
 */
class Measurement(val timeline: Timeline) {
    @Volatile var connId: String? = null
    @Volatile var connReused: Boolean? = null
    @Volatile var alpn: String? = null
    @Volatile var tlsVersion: String? = null
    @Volatile var tlsResumed: Boolean? = null
    @Volatile var earlyData: Boolean? = null
    @Volatile var reqBytes: Long? = null
    @Volatile var respBytes: Long? = null
    @Volatile var status: Int? = null
    @Volatile var serverTimeUs: Long? = null
    /** Requests of the arm in flight when this one was issued, itself included (see [InFlight]). */
    @Volatile var inFlight: Int? = null
    var errorClass: ErrorClass? = null
        private set
    var errorDetail: String? = null
        private set

    val failed: Boolean get() = errorClass != null

    /** Records a failure; the first one wins (later ones are consequences). */
    @Synchronized
    fun fail(errorClass: ErrorClass, detail: String) {
        if (this.errorClass != null) return
        this.errorClass = errorClass
        this.errorDetail = detail.take(MAX_DETAIL)
    }

    fun fail(failure: Failure) = fail(failure.errorClass, failure.detail)

    /** Replaces a failure when a later observation explains it better (e.g. the ALPN behind a transport error). */
    @Synchronized
    fun overrideFailure(errorClass: ErrorClass, detail: String) {
        this.errorClass = errorClass
        this.errorDetail = detail.take(MAX_DETAIL)
    }

    /**
     * A completed exchange with an HTTP error status is an `http` error sample (failures are
     * data: docs/methodology.md §4); with `expected` (the job's expect_status) that status is
     * the success and any other an error.
     */
    fun failOnHttpStatus(expected: Int? = null) {
        val code = status
        if (failed || code == null) return
        if (expected != null) {
            if (code != expected) fail(ErrorClass.HTTP, "HTTP $code, expected $expected")
        } else if (code >= 400) {
            fail(ErrorClass.HTTP, "HTTP $code")
        }
    }

    companion object {
        const val MAX_DETAIL = 1000
    }
}
