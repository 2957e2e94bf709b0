package dev.latencylab.harness.net

import java.io.ByteArrayInputStream
import java.security.KeyStore
import java.security.cert.CertificateException
import java.security.cert.CertificateFactory
import java.security.cert.X509Certificate
import javax.net.ssl.SSLContext
import javax.net.ssl.TrustManagerFactory
import javax.net.ssl.X509TrustManager

/**
 * What an arm trusts: the platform's CAs plus the arm's `ca_bundle_pem` (extra anchors, for
 * the reference target's private CA). Verification is never turned off.
 */
class TrustMaterial private constructor(val trustManager: X509TrustManager, val extraAnchors: List<X509Certificate>) {

    /**
     * A new SSLContext: its client session cache is the TLS resumption state, so a cold
     * request takes a new one every time and a warm or resumed arm keeps one for the block.
     */
    fun newSslContext(): SSLContext = SSLContext.getInstance("TLS").apply { init(null, arrayOf(trustManager), null) }

    companion object {
        /** @throws CertificateException when the PEM holds no usable certificate. */
        fun of(caBundlePem: String?): TrustMaterial {
            val platform = platformTrustManager(null)
            if (caBundlePem.isNullOrBlank()) return TrustMaterial(platform, emptyList())
            val extra = parsePem(caBundlePem)
            val store = KeyStore.getInstance(KeyStore.getDefaultType()).apply { load(null, null) }
            // One trust manager over both sets: the platform's anchors and the extra ones.
            platform.acceptedIssuers.forEachIndexed { i, cert -> store.setCertificateEntry("platform-$i", cert) }
            extra.forEachIndexed { i, cert -> store.setCertificateEntry("extra-$i", cert) }
            return TrustMaterial(platformTrustManager(store), extra)
        }

        private fun parsePem(pem: String): List<X509Certificate> {
            val certs = try {
                CertificateFactory.getInstance("X.509")
                    .generateCertificates(ByteArrayInputStream(pem.toByteArray(Charsets.US_ASCII)))
                    .filterIsInstance<X509Certificate>()
            } catch (e: CertificateException) {
                throw CertificateException("ca_bundle_pem is not a PEM certificate bundle: ${e.message}", e)
            }
            if (certs.isEmpty()) throw CertificateException("ca_bundle_pem holds no certificate")
            return certs
        }

        private fun platformTrustManager(store: KeyStore?): X509TrustManager {
            val factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm())
            factory.init(store)
            return factory.trustManagers.filterIsInstance<X509TrustManager>().single()
        }
    }
}
