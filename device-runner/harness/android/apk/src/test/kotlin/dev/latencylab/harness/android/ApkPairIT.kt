package dev.latencylab.harness.android

import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertTrue
import org.junit.Test
import java.io.File
import java.util.concurrent.TimeUnit
import java.util.zip.ZipEntry
import java.util.zip.ZipFile

/**
 * The two APKs build_apks.py made (failsafe, after the package phase), read back with the
 * real tools a lab's phone and Google's SDK agree with: apksigner's verification, aapt's view
 * of the manifests (what PackageManager will see: package, versions, the instrumentation and
 * its target), dexdump's listing of the dex files.
 */
class ApkPairIT {
    private val apkDir = File(System.getProperty("latencylab.apk.dir") ?: "target/apk")
    private val app = File(apkDir, "app.apk")
    private val test = File(apkDir, "test.apk")
    private val gradle = File(System.getProperty("latencylab.repo.dir") ?: "../../../..", "device-runner/harness/android/app/build.gradle.kts").readText()

    private fun gradleValue(key: String): String =
        Regex("""^\s*$key\s*=\s*"?([^"\s]+)"?""", RegexOption.MULTILINE).find(gradle)!!.groupValues[1]

    private fun tool(vararg command: String): String {
        val process = ProcessBuilder(*command).redirectErrorStream(true).start()
        val output = process.inputStream.bufferedReader().readText()
        assertTrue("${command.joinToString(" ")} did not end", process.waitFor(5, TimeUnit.MINUTES))
        assertEquals("${command.joinToString(" ")}:\n$output", 0, process.exitValue())
        return output
    }

    private fun classes(apk: File): Set<String> =
        Regex("""Class descriptor\s*:\s*'L([^;]+);'""").findAll(tool("dexdump", "-h", apk.path)).map { it.groupValues[1].replace('/', '.') }.toSet()

    @Test
    fun `both APKs verify, signed by one certificate`() {
        val certificates = listOf(app, test).map { apk ->
            val verified = tool("apksigner", "verify", "--verbose", "--print-certs", "--min-sdk-version", gradleValue("minSdk"), apk.path)
            assertTrue(verified, verified.startsWith("Verifies"))
            // For minSdk 28+ apksigner signs with scheme v3 alone (v3 covers what v2 would).
            assertTrue(verified, Regex("""Verified using v3 scheme \(APK Signature Scheme v3\): true""").containsMatchIn(verified))
            Regex("""certificate SHA-256 digest: ([0-9a-f]{64})""").find(verified)!!.groupValues[1]
        }
        // Android starts an instrumentation only in an app signed with the instrumentation's certificate.
        assertEquals(certificates[0], certificates[1])
    }

    @Test
    fun `the app's badging names the package, the versions the runner expects, its SDKs and permissions`() {
        val badging = tool("aapt", "dump", "badging", app.path)
        assertTrue(badging, badging.contains(
            "package: name='dev.latencylab.harness' versionCode='${gradleValue("versionCode")}' versionName='${gradleValue("versionName")}'"))
        assertTrue(badging, badging.contains("sdkVersion:'${gradleValue("minSdk")}'"))
        assertTrue(badging, badging.contains("targetSdkVersion:'${gradleValue("targetSdk")}'"))
        assertTrue(badging, badging.contains("uses-permission: name='android.permission.INTERNET'"))
        assertTrue(badging, badging.contains("uses-permission: name='android.permission.ACCESS_NETWORK_STATE'"))
    }

    @Test
    fun `the test APK instruments the app with BenchInstrumentation, at the same versions`() {
        val badging = tool("aapt", "dump", "badging", test.path)
        assertTrue(badging, badging.contains(
            "package: name='dev.latencylab.harness.test' versionCode='${gradleValue("versionCode")}' versionName='${gradleValue("versionName")}'"))
        val manifest = tool("aapt", "dump", "xmltree", test.path, "AndroidManifest.xml")
        val instrumentation = manifest.substringAfter("E: instrumentation")
        assertTrue(manifest, instrumentation.contains("=\"${BenchRun.REPORTED_CLASS}\""))
        assertTrue(manifest, Regex("""android:targetPackage\(0x[0-9a-f]+\)="dev\.latencylab\.harness"""").containsMatchIn(instrumentation))
    }

    @Test
    fun `resources and dex are stored uncompressed, as Android 11+ requires for targetSdk 30+ and ART maps dex`() {
        ZipFile(app).use { zip ->
            val stored = zip.entries().asSequence().filter { it.name == "resources.arsc" || it.name.matches(Regex("classes\\d*\\.dex")) }
                .associate { it.name to (it.method == ZipEntry.STORED) }
            assertTrue(stored.toString(), "resources.arsc" in stored && "classes.dex" in stored && stored.values.all { it })
        }
        tool("zipalign", "-c", "-p", "4", app.path)
        tool("zipalign", "-c", "-p", "4", test.path)
    }

    @Test
    fun `the Java resources the code reads at run time travel in the app`() {
        ZipFile(app).use { zip ->
            val names = zip.entries().asSequence().map { it.name }.toSet()
            // The contract's schemas (JobReader, ResultWriter), grpc's providers found through ServiceLoader.
            for (name in listOf("job.schema.json", "result.schema.json", "sample.schema.json")) {
                assertTrue(name, "dev/latencylab/harness/contract/$name" in names)
            }
            assertTrue(names.filter { it.startsWith("META-INF/services/io.grpc.") }.toString(),
                "META-INF/services/io.grpc.ManagedChannelProvider" in names)
            assertFalse("the core's JVM-only package travels only on the JVM", names.any { it.startsWith("dev/latencylab/harness/jvm/") })
        }
    }

    @Test
    fun `the app's manifest says which engines it holds`() {
        val manifest = tool("aapt", "dump", "xmltree", app.path, "AndroidManifest.xml")
        val engines = manifest.substringAfter("=\"dev.latencylab.harness.engines\"").lineSequence().drop(1).first()
        assertTrue(manifest, "h3: none" in engines && "okhttp 5." in engines && "grpc-java 1." in engines)
        assertTrue(manifest, manifest.contains("android:networkSecurityConfig"))
    }

    @Test
    fun `the app's dex holds the core, the Android shell and the libraries, and nothing JVM-only or Gradle-only`() {
        val dex = tool("dexdump", "-f", app.path)
        assertTrue(dex, Regex("""DEX version '03[5-9]'""").containsMatchIn(dex))
        val classes = classes(app)
        for (expected in listOf("dev.latencylab.harness.BlockRunner", "dev.latencylab.harness.android.BenchRun",
                                "dev.latencylab.harness.android.AndroidDeviceInfo", "dev.latencylab.harness.android.AndroidThermalStatus",
                                "dev.latencylab.harness.android.PhoneEngines", "okhttp3.OkHttpClient", "io.grpc.okhttp.OkHttpChannelBuilder",
                                "com.networknt.schema.JsonSchemaFactory", "kotlin.jvm.internal.Intrinsics")) {
            assertTrue("$expected missing from app.apk", expected in classes)
        }
        for (prefix in listOf("dev.latencylab.harness.jvm.", "dev.latencylab.harness.instrumentation.", "org.chromium.", "androidx.", "tech.kwik.")) {
            assertFalse("app.apk holds $prefix…", classes.any { it.startsWith(prefix) })
        }
    }

    @Test
    fun `the test APK's dex holds the instrumentation alone`() {
        val classes = classes(test)
        assertTrue(classes.toString(), BenchRun.REPORTED_CLASS in classes)
        // D8 adds the classes of its lambdas beside it (…BenchInstrumentation$$ExternalSyntheticLambda0).
        assertTrue(classes.toString(), classes.all { it.startsWith(BenchRun.REPORTED_CLASS) })
        val listing = tool("dexdump", "-h", test.path)
        assertTrue(listing, Regex("""Superclass\s*:\s*'Landroid/app/Instrumentation;'""").containsMatchIn(listing))
    }
}
