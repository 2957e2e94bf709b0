package dev.latencylab.harness.measure

import java.io.EOFException
import java.io.InterruptedIOException
import java.net.ConnectException
import java.net.NoRouteToHostException
import java.net.PortUnreachableException
import java.net.SocketException
import java.net.SocketTimeoutException
import java.net.UnknownHostException
import java.security.cert.CertificateException
import java.util.concurrent.TimeoutException
import javax.net.ssl.SSLException
import javax.net.ssl.SSLHandshakeException
import javax.net.ssl.SSLPeerUnverifiedException

data class Failure(val errorClass: ErrorClass, val detail: String)

/** The negotiated protocol is not the arm's: a silent fallback must never become a measurement. */
class ProtocolMismatchException(message: String) : java.io.IOException(message)

/**
 * Maps what a client library threw to the contract's error classes by walking the cause
 * chain; the first cause that says what went wrong decides. The detail keeps the exception's
 * type and message (the outermost one, which is what the library reported).
 */
object Failures {
    fun classify(error: Throwable): Failure = Failure(classOf(error), describe(error))

    fun describe(error: Throwable): String {
        val root = generateSequence(error) { it.cause }.take(8).last()
        val outer = "${error.javaClass.simpleName}: ${error.message}"
        return if (root === error) outer else "$outer (cause: ${root.javaClass.simpleName}: ${root.message})"
    }

    private fun classOf(error: Throwable): ErrorClass {
        for (e in generateSequence(error) { it.cause }.take(8)) {
            when {
                e is ProtocolMismatchException -> return ErrorClass.PROTOCOL_MISMATCH
                e is UnknownHostException -> return ErrorClass.DNS
                e is SocketTimeoutException || e is TimeoutException -> return ErrorClass.TIMEOUT
                // OkHttp's call timeout: InterruptedIOException("timeout").
                e is InterruptedIOException && e.message == "timeout" -> return ErrorClass.TIMEOUT
                e is ConnectException || e is NoRouteToHostException || e is PortUnreachableException -> return ErrorClass.CONNECT
                e is SSLHandshakeException || e is SSLPeerUnverifiedException || e is CertificateException -> return ErrorClass.TLS
                isReset(e) -> return ErrorClass.RESET
                e is SSLException -> return ErrorClass.TLS
            }
        }
        return ErrorClass.OTHER
    }

    private fun isReset(e: Throwable): Boolean {
        val message = e.message.orEmpty().lowercase()
        return when {
            e.javaClass.name == "okhttp3.internal.http2.StreamResetException" -> true
            e is EOFException -> true
            e is SocketException -> "reset" in message || "broken pipe" in message || "closed" in message
            else -> "unexpected end of stream" in message || "connection reset" in message
        }
    }
}
