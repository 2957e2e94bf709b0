package dev.latencylab.harness

import java.io.Closeable
import java.io.File
import java.net.InetAddress
import java.net.Socket
import java.security.KeyFactory
import java.security.KeyStore
import java.security.cert.CertificateFactory
import java.security.spec.PKCS8EncodedKeySpec
import java.util.Base64
import javax.net.ssl.KeyManagerFactory
import javax.net.ssl.SSLContext
import javax.net.ssl.SSLServerSocket
import kotlin.concurrent.thread

/**
 * A minimal HTTPS/1.1 server on loopback that negotiates no ALPN at all (its SSLServerSocket
 * is given no application protocols): every response is `200 ok`, connections are kept alive.
 */
class H1OnlyTlsServer(certPem: File, keyPem: File) : Closeable {
    private val server: SSLServerSocket
    val port: Int get() = server.localPort

    init {
        val cert = CertificateFactory.getInstance("X.509").generateCertificate(certPem.inputStream())
        val der = Base64.getDecoder().decode(keyPem.readLines().filterNot { it.startsWith("-----") }.joinToString(""))
        val key = KeyFactory.getInstance("EC").generatePrivate(PKCS8EncodedKeySpec(der))
        val store = KeyStore.getInstance("PKCS12").apply {
            load(null, null)
            setKeyEntry("server", key, CharArray(0), arrayOf(cert))
        }
        val kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm()).apply { init(store, CharArray(0)) }
        val ssl = SSLContext.getInstance("TLS").apply { init(kmf.keyManagers, null, null) }
        server = ssl.serverSocketFactory.createServerSocket(0, 50, InetAddress.getLoopbackAddress()) as SSLServerSocket
        thread(isDaemon = true, name = "h1-only-tls") {
            while (!server.isClosed) {
                val client = runCatching { server.accept() }.getOrNull() ?: break
                thread(isDaemon = true) { serve(client) }
            }
        }
    }

    private fun serve(socket: Socket) = socket.use { s ->
        val input = s.getInputStream().buffered()
        val output = s.getOutputStream()
        while (true) {
            // Read one request head (the harness's requests here carry no body).
            val head = StringBuilder()
            while (!head.endsWith("\r\n\r\n")) {
                val b = input.read()
                if (b < 0) return
                head.append(b.toChar())
            }
            output.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok".toByteArray())
            output.flush()
        }
    }

    override fun close() = server.close()
}
