package dev.latencylab.harness.android

import org.junit.Assert.assertEquals
import org.junit.Test
import java.io.File
import javax.xml.parsers.DocumentBuilderFactory

/** The APK packages the libraries at the versions the core is built and tested with. */
class ApkLibrariesTest {
    private val android = File(System.getProperty("latencylab.repo.dir") ?: "../../../..", "device-runner/harness/android")

    private fun properties(pom: File): Map<String, String> {
        val document = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom)
        val nodes = document.getElementsByTagName("properties").item(0).childNodes
        return (0 until nodes.length).map { nodes.item(it) }.filter { it.nodeType == org.w3c.dom.Node.ELEMENT_NODE }
            .associate { it.nodeName to it.textContent.trim() }
    }

    @Test
    fun `the library versions equal the core's`() {
        val core = properties(File(android, "core/pom.xml"))
        val apk = properties(File(android, "apk/pom.xml"))
        for (key in listOf("kotlin.version", "okhttp.version", "grpc.version", "networknt.version", "jackson.version", "slf4j.version")) {
            assertEquals(key, core[key], apk[key])
        }
    }
}
